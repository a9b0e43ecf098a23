// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import lifecyclectl

import Glibc

/// `status`'s warning about a state directory lifecycled cannot write.
struct StateDirectoryCheckTests {
    @Test("a writable directory: nothing to say")
    func writable() throws {
        let directory = try TemporaryDirectory()
        #expect(StateDirectoryCheck().problems(directory: directory.path, daemon: .notRunning).isEmpty)
    }

    @Test("a missing directory says so, whether lifecycled runs or not")
    func missing() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/missing/state"
        #expect(StateDirectoryCheck().problems(directory: missing, daemon: .notRunning) == [
            "the state directory \(missing) does not exist",
        ])
    }

    @Test("a directory missing only in the running lifecycled's root, seen through /proc/PID/root")
    func missingForTheDaemon() throws {
        let directory = try TemporaryDirectory()
        let proc = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: proc.path + "/42/root", withIntermediateDirectories: true)
        let check = StateDirectoryCheck(procDirectory: proc.path)
        #expect(check.problems(directory: directory.path, daemon: .running(pid: 42)) == [
            "the state directory \(directory.path) does not exist for lifecycled (pid 42)",
        ])
        // Its root unreachable (another user's daemon): no guess.
        #expect(check.problems(directory: directory.path, daemon: .running(pid: 43)).isEmpty)
    }
}
