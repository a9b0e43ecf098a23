// SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An exclusive lock on a state directory, held for the life of the process: two lifecycled on one directory would
/// number and write every dispatch twice.
///
/// `flock(2)` on `DIR/.lock`: the kernel releases it when the process dies, however it dies, so a SIGKILLed daemon
/// never leaves a stale lock behind. The file holds the owner's PID, for the message of the one refused.
public final class StateDirectoryLock: Sendable {
    public let path: String
    private let fd: CInt

    /// Creates the directory if needed and takes the lock.
    ///
    /// - Throws: ``StateDirectoryLockError/held(path:owner:)`` when another process holds it, or an I/O error.
    public init(directory: String) throws(StateDirectoryLockError) {
        path = directory + "/.lock"
        do {
            try Posix.makeDirectory(directory, mode: 0o755)
        } catch where error.errno == EEXIST {
        } catch {
            throw .io(path: directory, operation: "create", errno: error.errno)
        }
        let fd: CInt
        do {
            fd = try Posix.openFile(path, flags: O_RDWR | O_CREAT, mode: 0o644)
        } catch {
            throw .io(path: path, operation: "open", errno: error.errno)
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            let owner = (try? Posix.readAll(fd, limit: 64)).map { String(decoding: $0, as: UTF8.self) }
            Posix.closeIgnoringErrors(fd)
            guard code == EWOULDBLOCK else { throw .io(path: path, operation: "lock", errno: code) }
            throw .held(path: path, owner: owner.flatMap { Int32($0.filter(\.isNumber)) })
        }
        _ = ftruncate(fd, 0)
        try? Posix.writeAll(fd, Array("\(getpid())\n".utf8))
        self.fd = fd
    }

    deinit {
        Posix.closeIgnoringErrors(fd)
    }
}

/// Why the state directory could not be locked.
public enum StateDirectoryLockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another process holds the lock (its PID when it wrote one).
    case held(path: String, owner: Int32?)
    case io(path: String, operation: String, errno: Int32)

    public var description: String {
        switch self {
        case .held(let path, let owner):
            let who = owner.map { "process \($0)" } ?? "another process"
            return "The state directory is in use by \(who) (\(path) is locked): only one lifecycled may run on it"
        case .io(let path, let operation, let errno):
            return "Failed to \(operation) \(path): \(Posix.describe(errno: errno))"
        }
    }
}
