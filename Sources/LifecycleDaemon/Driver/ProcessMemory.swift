// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Keeps what the process holds in memory close to what it uses (docs/PERFORMANCE.md, resident memory).
enum ProcessMemory {
    /// Gives back what start-up used and the daemon does not need any more: the heap's free pages and the
    /// executable's code pages (see ``releaseFreeHeap()`` and ``releaseCodePages()``).
    static func releaseStartupMemory() {
        releaseFreeHeap()
        releaseCodePages()
    }

    /// Gives the heap's free pages back to the system (`malloc_trim(0)`).
    ///
    /// Loading the state files and checking their pending dispatches against the journal allocate, at their peak,
    /// several times what the daemon keeps afterwards (every state file's pending dispatch, as strings). glibc keeps
    /// freed memory for reuse and returns by itself only what is free at the top of the heap. `malloc_trim` is looked
    /// up at run time: Swift's Glibc module does not export it, and other C libraries lack it (then this does
    /// nothing).
    static func releaseFreeHeap() {
        _ = trim?(0)
    }

    /// Drops the executable's code pages from the process's resident set: `madvise(MADV_DONTNEED)` on each of its
    /// mappings that is executable and not writable.
    ///
    /// Start-up runs code that the daemon seldom or never runs again (configuration, state files, journal checks,
    /// the first listing), and each page fault in a file mapping also maps the pages around it that are cached
    /// (the kernel's fault-around, 64 KB): about 8 MB of the static binary are resident at READY. Those pages are
    /// the file's own, never written (code is not relocated), so dropping them loses nothing: they stay in the page
    /// cache, and a later fault maps back only what runs again. Writable mappings are never touched: theirs hold
    /// relocations and data.
    static func releaseCodePages() {
        guard let maps = try? ReadableFile(opening: "/proc/self/maps").readAll() else { return }
        let mappings = MemoryMapping.all(in: String(decoding: maps, as: UTF8.self))
        let ownCode = UInt(bitPattern: #dsohandle)
        guard let executable = mappings.first(where: { $0.addresses.contains(ownCode) }) else { return }
        for mapping in mappings
        where mapping.mapsSameFile(as: executable) && mapping.isExecutable && !mapping.isWritable {
            _ = madvise(
                UnsafeMutableRawPointer(bitPattern: mapping.addresses.lowerBound),
                mapping.addresses.count, MADV_DONTNEED
            )
        }
    }

    private typealias Trim = @convention(c) (Int) -> Int32

    private static let trim: Trim? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
    }()
}
