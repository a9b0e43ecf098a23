// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The `.prom` file node_exporter's textfile collector reads, replaced atomically (``AtomicFile``): the temporary
/// file is `.<name>.XXXXXX` in the same directory, a name the collector ignores (it reads only `*.prom`), and the
/// rename makes a scrape see either the old file or the new one, never half of one.
public struct MetricsFile: Sendable, Equatable {
    /// Readable by node_exporter, which runs as its own user (`prometheus` in Debian).
    static let mode: mode_t = 0o644

    /// The file's absolute path, ending in `.prom`.
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// Replaces the file with `text`. The directory must exist: it is node_exporter's, not lifecycled's, to create.
    ///
    /// - Throws: ``StateStoreError/io(path:operation:errno:)`` naming the failed step.
    public func write(_ text: String) throws(StateStoreError) {
        try AtomicFile.replace(Array(text.utf8), at: path, mode: Self.mode)
    }

    /// Removes the temporary files (`.<name>.XXXXXX`) an earlier writer left beside the file when it was killed
    /// between creating one and renaming it: nothing else removes them, and each kill would leave one more.
    ///
    /// - Returns: how many were removed.
    @discardableResult
    public func removeLeftovers() -> Int {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard let entries = try? Posix.directoryEntries(directory.isEmpty ? "/" : directory) else { return 0 }
        var removed = 0
        for entry in entries where AtomicFile.temporaryTarget(of: entry) == name {
            if unlink((directory.isEmpty ? "" : directory) + "/" + entry) == 0 { removed += 1 }
        }
        return removed
    }
}
