// SPDX-License-Identifier: Apache-2.0

import Glibc

/// What identifies one state of a file's contents without reading them: a replaced file has a new inode, a file
/// rewritten in place a new modification time (and usually size).
struct FileIdentity: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modificationSeconds: Int64
    var modificationNanoseconds: Int64
}

extension FileIdentity {
    /// The identity of the regular file that `path` leads to now (following symbolic links), from `stat(2)`; nil
    /// when it cannot be found or is not a regular file. A digest cached for it needs no descriptor: each start of a
    /// watched service looked its executable up with `open`, two `fstat` and `close` (docs/PERFORMANCE.md, "A
    /// start's executable found by one stat").
    init?(statingPath path: String) {
        var status = stat()
        guard stat(path, &status) == 0, let identity = try? FileIdentity(regularFile: status, path: path) else {
            return nil
        }
        self = identity
    }

    /// The identity in `status`; systemd's `stat_verify_regular()`: a directory is `EISDIR`, any other file that is
    /// not regular `EBADFD`.
    init(regularFile status: stat, path: String) throws(VersionReadError) {
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else {
            throw VersionReadError(path: path, operation: "read", errno: type == S_IFDIR ? EISDIR : EBADFD)
        }
        let modified = status.st_mtim
        self.init(
            device: UInt64(truncatingIfNeeded: status.st_dev),
            inode: UInt64(truncatingIfNeeded: status.st_ino),
            size: Int64(status.st_size),
            modificationSeconds: Int64(modified.tv_sec),
            modificationNanoseconds: Int64(modified.tv_nsec)
        )
    }
}
