// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import lifecyclectl

import Glibc

/// Finding lifecycled in a process table: fake ones laid out like /proc, and the real one.
struct DaemonProbeTests {
    /// A fake /proc: `self` and one directory per process with `comm` and `status`.
    private func makeProc(
        _ processes: [(pid: Int32, comm: String, state: String, nspid: String)],
        ownNSpid: String = "900"
    ) throws -> TemporaryDirectory {
        let proc = try TemporaryDirectory()
        try proc.write("Name:\tlifecyclectl\nState:\tR (running)\nNSpid:\t\(ownNSpid)\n", to: "self/status")
        for process in processes {
            try proc.write(process.comm + "\n", to: "\(process.pid)/comm")
            try proc.write(
                "Name:\t\(process.comm)\nState:\t\(process.state)\nPid:\t\(process.pid)\nNSpid:\t\(process.nspid)\n",
                to: "\(process.pid)/status"
            )
        }
        return proc
    }

    private let systemd = (pid: Int32(1), comm: "systemd", state: "S (sleeping)", nspid: "1")

    @Test("a lifecycled process is found with its pid")
    func running() throws {
        let proc = try makeProc([
            systemd, (412, "lifecycled", "S (sleeping)", "412"), (500, "bash", "S (sleeping)", "500"),
        ])
        #expect(DaemonProbe(procDirectory: proc.path).status() == .running(pid: 412))
    }

    @Test("without a lifecycled process the daemon is not running")
    func notRunning() throws {
        let proc = try makeProc([systemd, (500, "lifecyclectl", "R (running)", "500")])
        #expect(DaemonProbe(procDirectory: proc.path).status() == .notRunning)
    }

    @Test("a zombie does not count")
    func zombie() throws {
        let proc = try makeProc([systemd, (412, "lifecycled", "Z (zombie)", "412")])
        #expect(DaemonProbe(procDirectory: proc.path).status() == .notRunning)
    }

    @Test("a container's lifecycled, seen from the host, is not this machine's")
    func otherNamespace() throws {
        let proc = try makeProc([systemd, (4_000, "lifecycled", "S (sleeping)", "4000\t57")])
        #expect(DaemonProbe(procDirectory: proc.path).status() == .notRunning)
        // From inside that container, its own lifecycled counts.
        let inside = try makeProc([systemd, (57, "lifecycled", "S (sleeping)", "4000\t57")], ownNSpid: "4100\t90")
        #expect(DaemonProbe(procDirectory: inside.path).status() == .running(pid: 57))
    }

    @Test("with several candidates the lowest pid wins")
    func lowestPid() throws {
        let proc = try makeProc([
            systemd, (812, "lifecycled", "S (sleeping)", "812"), (97, "lifecycled", "S (sleeping)", "97"),
        ])
        #expect(DaemonProbe(procDirectory: proc.path).status() == .running(pid: 97))
    }

    @Test("a table that hides PID 1 is hidepid=invisible: the answer is unknown, not a wrong no")
    func hidden() throws {
        let proc = try makeProc([(500, "bash", "S (sleeping)", "500")])
        guard case .unknown = DaemonProbe(procDirectory: proc.path).status() else {
            Issue.record("expected unknown")
            return
        }
        guard case .unknown = DaemonProbe(procDirectory: proc.path + "/missing").status() else {
            Issue.record("expected unknown for an unreadable table")
            return
        }
    }

    @Test("the real /proc: a probe for this test process's own name finds it or an older namesake")
    func realProc() throws {
        let comm = try String(contentsOfFile: "/proc/self/comm", encoding: .utf8)
            .trimmingCharacters(in: .newlines)
        let status = DaemonProbe(processName: comm).status()
        let pid = try #require(status.pid)
        #expect(pid <= getpid())
    }

    @Test("status lines are parsed for the namespace depth and the zombie state")
    func parsing() {
        #expect(DaemonProbe.namespaceDepth("Name:\tx\nNSpid:\t4000\t57\n") == 2)
        #expect(DaemonProbe.namespaceDepth("Name:\tx\nNSpid:\t1\n") == 1)
        #expect(DaemonProbe.namespaceDepth("Name:\tx\n") == nil)
        #expect(DaemonProbe.isZombie("State:\tZ (zombie)\n"))
        #expect(DaemonProbe.isZombie("State:\tX (dead)\n"))
        #expect(!DaemonProbe.isZombie("State:\tS (sleeping)\n"))
    }
}
