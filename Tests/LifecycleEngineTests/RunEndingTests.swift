// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// Endings read from PID 1's journal entries, in the sequences systemd 252 was measured to log (notes §5).
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

    @Test("a run the journal shows only starting has no known ending")
    func stillRunning() {
        #expect(RunEnding(entries: [entry("39f53479d3a045ac8e11786248231fbf", 1)]) == nil)
        #expect(RunEnding(entries: []) == nil)
    }
}
