// SPDX-License-Identifier: Apache-2.0

import Glibc

/// An exclusive lock on a state directory, held for the life of the process: two lifecycled on one directory would
/// number and write every dispatch twice.
///
/// `flock(2)` on `DIR/.lock`: the kernel releases it when the process dies, however it dies, so a SIGKILLed daemon
/// never leaves a stale lock behind. The file holds the owner's PID, for the message of the one refused.
///
/// A directory that cannot be created or written is not a reason to stop (``writeProblem``): `flock` works on a
/// descriptor opened read-only, so the lock is then taken on `.lock` opened read-only, or on the directory itself
/// when it has no `.lock`; when the directory does not exist at all, nothing is locked (``lockedPath`` is nil).
public final class StateDirectoryLock: Sendable {
    /// What is locked: `DIR/.lock`, or `DIR` itself; nil when nothing could be opened to lock.
    public let lockedPath: String?
    /// Why the directory cannot be written; nil when it can.
    public let writeProblem: StateDirectoryProblem?
    private let fd: CInt

    /// Creates the directory if needed and takes the lock.
    ///
    /// - Throws: ``StateDirectoryLockError/held(path:owner:)`` when another process holds it; nothing else, a
    ///   directory that cannot be written is ``writeProblem``.
    public init(directory: String) throws(StateDirectoryLockError) {
        let lockFile = directory + "/.lock"
        var problem: StateDirectoryProblem?
        var opened: (fd: CInt, path: String)?
        do {
            try Posix.makeDirectory(directory, mode: 0o755)
        } catch {
            problem = StateDirectoryProblem(directory: directory, step: "create \(directory)", errno: error.errno)
        }
        if problem == nil {
            do {
                opened = (try Posix.openFile(lockFile, flags: O_RDWR | O_CREAT, mode: 0o644), lockFile)
            } catch {
                problem = StateDirectoryProblem(directory: directory, step: "open \(lockFile)", errno: error.errno)
            }
        }
        if problem != nil { opened = Self.openReadOnly([lockFile, directory]) }
        if let opened, flock(opened.fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            let owner = (try? Posix.readAll(opened.fd, limit: 64)).map { String(decoding: $0, as: UTF8.self) }
            Posix.closeIgnoringErrors(opened.fd)
            if code == EWOULDBLOCK {
                throw .held(path: opened.path, owner: owner.flatMap { Int32($0.filter(\.isNumber)) })
            }
            // ENOLCK and the like: the file system cannot lock; tracking matters more than the lock.
            self.lockedPath = nil
            self.fd = -1
        } else {
            self.lockedPath = opened?.path
            self.fd = opened?.fd ?? -1
        }
        self.writeProblem = problem
        if problem == nil, fd >= 0 {
            _ = ftruncate(fd, 0)
            try? Posix.writeAll(fd, Array("\(getpid())\n".utf8))
        }
    }

    /// The first of `paths` that opens read-only.
    private static func openReadOnly(_ paths: [String]) -> (fd: CInt, path: String)? {
        for path in paths {
            if let fd = try? Posix.openFile(path, flags: O_RDONLY) { return (fd, path) }
        }
        return nil
    }

    deinit {
        if fd >= 0 { Posix.closeIgnoringErrors(fd) }
    }
}

/// Why the state directory could not be locked.
public enum StateDirectoryLockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another process holds the lock (its PID when it wrote one).
    case held(path: String, owner: Int32?)

    public var description: String {
        switch self {
        case .held(let path, let owner):
            let who = owner.map { "process \($0)" } ?? "another process"
            return "The state directory is in use by \(who) (\(path) is locked): only one lifecycled may run on it"
        }
    }
}
