// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// Endings read from PID 1's journal entries, in the sequences systemd 252 was measured to log
/// (docs/systemd.md, "PID 1's journal entries about a run").
struct RunEndingTests {
    typealias ID = RunEnding.MessageID

    func entry(_ id: String, _ time: Milliseconds, _ fields: [String: String] = [:]) -> RunEnding.Entry {
        RunEnding.Entry(messageID: id, time: time, fields: fields)
    }

    @Test("a clean stop: Stopping, Deactivated successfully, Stopped")
    func cleanStop() {
        let ending = RunEnding(entries: [
            entry("de5b426a63be47a7b6ac3eaac82e2f6f", 1), entry(ID.unitSuccess, 2), entry(ID.unitStopped, 3),
        ])
        #expect(ending == .endedCleanly(at: 2))
    }

    @Test("a crash: process exit with code and status, then the failure result")
    func crash() {
        let ending = RunEnding(entries: [
            entry(ID.unitProcessExit, 5, ["EXIT_CODE": "killed", "EXIT_STATUS": "9"]),
            entry(ID.unitFailureResult, 6, ["UNIT_RESULT": "signal"]),
            entry("5eb03494b6584870a536b337290809b3", 7, ["N_RESTARTS": "1"]),
            entry(ID.unitStopped, 8),
        ])
        #expect(ending == .failed(CrashDetails(result: "signal", execMainCode: 2, execMainStatus: 9), at: 6))
    }

    @Test("restarts refused by the start limit are logged with the run before them: its own end counts, not the refusal", arguments: [
        ([(ID.unitSuccess, 2, [:])], RunEnding.endedCleanly(at: 2)),
        ([(ID.unitProcessExit, 2, ["EXIT_CODE": "exited", "EXIT_STATUS": "1"]), (ID.unitFailureResult, 3, ["UNIT_RESULT": "exit-code"])],
         RunEnding.failed(CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 1), at: 3)),
    ] as [([(String, Milliseconds, [String: String])], RunEnding)])
    func startLimitHit(own: [(String, Milliseconds, [String: String])], ending: RunEnding) {
        // As systemd 252 logs a Restart=always loop hitting StartLimitBurst=: the run's end, the scheduled restart, then
        // the refusal, all with the run's INVOCATION_ID.
        let refusal = [
            entry("5eb03494b6584870a536b337290809b3", 4, ["N_RESTARTS": "3"]), entry(ID.unitStopped, 5),
            entry(ID.unitFailureResult, 6, ["UNIT_RESULT": "start-limit-hit"]), entry(ID.unitFailed, 6, ["JOB_RESULT": "failed"]),
        ]
        #expect(RunEnding(entries: own.map { entry($0.0, $0.1, $0.2) } + refusal) == ending)
    }

    @Test("a control process's exit is not the run's: the main process's is, and without one there is none")
    func controlProcesses() {
        let killed = RunEnding(entries: [
            entry(ID.unitProcessExit, 5, ["EXIT_CODE": "killed", "EXIT_STATUS": "9", "COMMAND": "ExecStart"]),
            entry(ID.unitProcessExit, 6, ["EXIT_CODE": "exited", "EXIT_STATUS": "0", "COMMAND": "ExecStopPost"]),
            entry(ID.unitFailureResult, 7, ["UNIT_RESULT": "signal"]),
        ])
        #expect(killed == .failed(CrashDetails(result: "signal", execMainCode: 2, execMainStatus: 9), at: 7))
        // ExecCondition= exited 255: the start failed, and no main process ran.
        let check = RunEnding(entries: [
            entry(ID.unitProcessExit, 5, ["EXIT_CODE": "exited", "EXIT_STATUS": "255", "COMMAND": "ExecCondition"]),
            entry(ID.unitFailureResult, 6, ["UNIT_RESULT": "exit-code"]),
        ])
        #expect(check == .failed(CrashDetails(result: "exit-code"), at: 6))
    }

    @Test("a history keeps the main process's exit beside the control processes' ones")
    func historyKeepsMainExit() {
        let fields = ["UNIT": "web.service", "INVOCATION_ID": String(repeating: "a", count: 32)]
        func exit(_ time: Milliseconds, _ command: String, _ status: String) -> RunEnding.Entry {
            entry(ID.unitProcessExit, time, fields.merging(["EXIT_CODE": "exited", "EXIT_STATUS": status, "COMMAND": command]) { a, _ in a })
        }
        let history = RunHistory(entries: [
            entry(ID.unitStarting, 1, fields),
            exit(2, "ExecStartPre", "0"), exit(3, "ExecStartPre", "0"), exit(4, "ExecStartPre", "0"),
            exit(5, "ExecStart", "3"),
            exit(6, "ExecStopPost", "0"), exit(7, "ExecStopPost", "0"),
            entry(ID.unitFailureResult, 8, fields.merging(["UNIT_RESULT": "exit-code"]) { a, _ in a }),
        ])
        let run = history.run(of: "web.service", String(repeating: "a", count: 32))
        #expect(run?.ending == .failed(CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 3), at: 8))
    }

    @Test("a run the journal shows only starting has no known ending")
    func stillRunning() {
        #expect(RunEnding(entries: [entry("39f53479d3a045ac8e11786248231fbf", 1)]) == nil)
        #expect(RunEnding(entries: []) == nil)
    }
}
