// SPDX-License-Identifier: Apache-2.0

import Glibc

/// A file that a unit's version is computed from could not be read.
///
/// The daemon logs it and treats the version as unknown (no update detection for that run); it is never fatal.
public struct VersionReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file that could not be read.
    public var path: String
    /// What failed: `open`, `stat` or `read`.
    public var operation: String
    /// The `errno` of the failed call. A file that is not a regular file gets systemd's choice for that case
    /// (`stat_verify_regular()`): `EISDIR` for a directory, `EBADFD` for anything else.
    public var errno: Int32

    public init(path: String, operation: String, errno: Int32) {
        self.path = path
        self.operation = operation
        self.errno = errno
    }

    /// systemd's phrasing, for example `Failed to open /usr/sbin/nginx: No such file or directory`.
    public var description: String {
        "Failed to \(operation) \(path): \(String(cString: strerror(errno)))"
    }
}
