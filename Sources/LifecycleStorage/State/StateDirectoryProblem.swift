// SPDX-License-Identifier: Apache-2.0

/// Why lifecycled cannot write its state directory (a read-only mount, no permission, a parent that is missing).
///
/// Not a reason to stop: the daemon tracks on with its records in memory and its dispatches in the journal, as while
/// the file system is full, and the next start with a writable directory catches up from those dispatches.
public struct StateDirectoryProblem: Sendable, Equatable, CustomStringConvertible {
    /// The state directory.
    public var directory: String
    /// The step that failed and what it worked on, e.g. `open /var/lib/lifecycled/.lock`.
    public var step: String
    public var errno: Int32

    public init(directory: String, step: String, errno: Int32) {
        self.directory = directory
        self.step = step
        self.errno = errno
    }

    /// `Read-only file system (EROFS)`.
    public var reason: String { Posix.describe(errno: errno) }

    /// `cannot write the state directory /var/lib/lifecycled: Read-only file system (EROFS)`.
    public var description: String { "cannot write the state directory \(directory): \(reason)" }
}
