// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#endif

/// Gives the memory that start-up freed back to the system.
///
/// Loading the state files and checking their pending dispatches against the journal allocate, at their peak,
/// several times what the daemon keeps afterwards (the pending dispatches of every state file, as strings). glibc
/// keeps freed memory for reuse and returns it only from the top of the heap, so without this the peak stays in
/// VmRSS for the life of the process: with 1,000 units, RssAnon fell from about 9 MB to the few MB the records need
/// (docs/PERFORMANCE.md). `malloc_trim(3)` is looked up at run time: Swift's Glibc module does not export it, and
/// other C libraries lack it (then this does nothing).
enum HeapRelease {
    private typealias Trim = @convention(c) (Int) -> Int32

    private static let trim: Trim? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()

    /// Returns the heap's free pages to the system (`malloc_trim(0)`).
    static func releaseFreeMemory() {
        _ = trim?(0)
    }
}
