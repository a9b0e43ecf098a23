// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleStorage
import Testing

/// One lifecycled per state directory, and a directory that cannot be written is reported, not thrown.
struct StateDirectoryLockTests {
    @Test("creates the directory and locks .lock; a second lock on it is refused, naming the holder")
    func exclusive() throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.path + "/state"
        let lock = try StateDirectoryLock(directory: directory)
        #expect(lock.lockedPath == directory + "/.lock")
        #expect(lock.writeProblem == nil)
        #expect(throws: StateDirectoryLockError.held(path: directory + "/.lock", owner: getpid())) {
            try StateDirectoryLock(directory: directory)
        }
    }

    @Test("a directory whose parent is missing: the problem with its errno, nothing locked, nothing thrown")
    func vanished() throws {
        let temporary = try TemporaryDirectory()
        let directory = temporary.path + "/missing/state"
        let lock = try StateDirectoryLock(directory: directory)
        #expect(lock.lockedPath == nil)
        #expect(lock.writeProblem == StateDirectoryProblem(directory: directory, step: "create \(directory)", errno: ENOENT))
        #expect(lock.writeProblem?.description == "cannot write the state directory \(directory): No such file or directory (ENOENT)")
    }

    @Test("a path that is no directory: the problem, and a lock on what opens read-only")
    func notADirectory() throws {
        let temporary = try TemporaryDirectory()
        let file = temporary.path + "/file"
        let fd = creat(file, 0o644)
        #expect(fd >= 0)
        close(fd)
        let lock = try StateDirectoryLock(directory: file)
        #expect(lock.writeProblem?.errno == ENOTDIR)
        #expect(lock.lockedPath == file)
        #expect(throws: StateDirectoryLockError.self) { try StateDirectoryLock(directory: file) }
    }
}
