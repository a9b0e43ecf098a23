// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// Keeps what the process holds in memory close to what it uses (docs/PERFORMANCE.md, resident memory).
enum ProcessMemory {
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

    private typealias Trim = @convention(c) (Int) -> Int32

    private static let trim: Trim? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()
}
