// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import LifecycleEngine

/// Who OOM-killed a run, from PID 1's entries as `src/core/cgroup.c` writes them: `unit_check_oom()` logs
/// `fe6faa94…` "A process of this unit has been killed by the OOM killer.", `unit_check_oomd_kill()` logs
/// `d989611b…` "systemd-oomd killed 3 process(es) in this unit." with `N_PROCESSES=3` (or "killed some
/// process(es)" without it); with the default `OOMPolicy=stop`, `src/core/service.c` then fails the unit with
/// `UNIT_RESULT=oom-kill` (catalog `d9b373ed…`).
struct OOMKillerTests {
    typealias ID = RunRecord.MessageID

    let run = ["UNIT": "web.service", "INVOCATION_ID": "0123456789abcdef0123456789abcdef"]

    func entry(_ id: String, _ time: Milliseconds, _ fields: [String: String] = [:]) -> RunEnding.Entry {
        RunEnding.Entry(messageID: id, time: time, fields: run.merging(fields) { _, new in new })
    }

    var killed: RunEnding.Entry {
        entry(
            RunEnding.MessageID.unitProcessExit, 6, ["EXIT_CODE": "killed", "EXIT_STATUS": "9", "COMMAND": "ExecStart"]
        )
    }

    var oomKillResult: RunEnding.Entry { entry(ID.unitFailureResult, 7, ["UNIT_RESULT": "oom-kill"]) }

    @Test("the kernel's OOM killer: PID 1's out-of-memory message, then the oom-kill result")
    func kernel() {
        let entries = [
            entry(ID.unitOutOfMemory, 5, [
                "MESSAGE": "web.service: A process of this unit has been killed by the OOM killer.",
            ]),
            killed, oomKillResult,
        ]
        #expect(OOMKiller.killer(in: entries) == .kernel)
        #expect(OOMKiller.isOOMKill(entries))
    }

    @Test("systemd-oomd: PID 1's oomd message, with or without N_PROCESSES, and the same oom-kill result")
    func oomd() {
        let counted = entry(ID.unitOOMDKill, 5, [
            "N_PROCESSES": "3", "MESSAGE": "web.service: systemd-oomd killed 3 process(es) in this unit.",
        ])
        #expect(OOMKiller.killer(in: [counted, killed, oomKillResult]) == .oomd)
        let uncounted = entry(ID.unitOOMDKill, 8, [
            "MESSAGE": "web.service: systemd-oomd killed some process(es) in this unit.",
        ])
        #expect(OOMKiller.killer(in: [killed, oomKillResult, uncounted]) == .oomd)
    }

    @Test("both killers in one run: the later kill is the one that ended it")
    func both() {
        let kernel = entry(ID.unitOutOfMemory, 3)
        let oomd = entry(ID.unitOOMDKill, 5, ["N_PROCESSES": "12"])
        #expect(OOMKiller.killer(in: [kernel, oomd, killed, oomKillResult]) == .oomd)
        #expect(OOMKiller.killer(in: [oomd, kernel, killed, oomKillResult]) == .kernel)
    }

    @Test("an oom-kill result whose message was lost names no killer, but is an OOM kill")
    func resultOnly() {
        #expect(OOMKiller.killer(in: [killed, oomKillResult]) == nil)
        #expect(OOMKiller.isOOMKill([killed, oomKillResult]))
    }

    @Test("OOMPolicy=continue: the kernel killed a process, the run went on and ended well")
    func continued() {
        let entries = [entry(ID.unitOutOfMemory, 3), entry(RunEnding.MessageID.unitSuccess, 9)]
        #expect(OOMKiller.killer(in: entries) == .kernel)
        #expect(OOMKiller.isOOMKill(entries))
    }

    @Test("a run killed by a plain SIGKILL was not OOM-killed")
    func notOOM() {
        let entries = [killed, entry(ID.unitFailureResult, 7, ["UNIT_RESULT": "signal"])]
        #expect(OOMKiller.killer(in: entries) == nil)
        #expect(!OOMKiller.isOOMKill(entries))
        #expect(!OOMKiller.isOOMKill([]))
    }

    @Test("stored as kernel and oomd")
    func rawValues() {
        #expect(OOMKiller.kernel.rawValue == "kernel")
        #expect(OOMKiller.oomd.rawValue == "oomd")
        #expect(OOMKiller(rawValue: "systemd-oomd") == nil)
    }
}
