// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Whether lifecycled can write its state directory, as far as `lifecyclectl` can tell: when it cannot, the daemon
/// tracks on with its records in memory only, and the state files that `status` reads stay behind.
///
/// The path is checked as this process sees it (missing, or on a read-only mount: `statvfs`'s `ST_RDONLY`) and, when
/// lifecycled runs and its root is reachable (as root), as the daemon sees it, through `/proc/PID/root`: the service
/// runs with `ProtectSystem=strict`, so a `ReadOnlyPaths=` drop-in makes the directory read-only in its mount
/// namespace alone. A path that is only hidden from this user (`EACCES`) says nothing.
struct StateDirectoryCheck: Sendable {
    /// Where the process table is mounted; tests pass a directory laid out like it.
    var procDirectory = "/proc"

    /// One sentence per problem found, without a prefix; none when the directory looks writable.
    func problems(directory: String, daemon: DaemonStatus) -> [String] {
        if let problem = Self.problem(at: directory) {
            return ["the state directory \(directory) \(problem)"]
        }
        guard let pid = daemon.pid else { return [] }
        let root = "\(procDirectory)/\(pid)/root"
        guard access(root + "/", X_OK) == 0, let problem = Self.problem(at: root + directory) else { return [] }
        return ["the state directory \(directory) \(problem) for lifecycled (pid \(pid))"]
    }

    /// "does not exist" or "is read-only"; nil when neither can be told.
    private static func problem(at path: String) -> String? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else {
            return errno == ENOENT || errno == ENOTDIR ? "does not exist" : nil
        }
        return info.f_flag & UInt(ST_RDONLY) != 0 ? "is read-only" : nil
    }
}
