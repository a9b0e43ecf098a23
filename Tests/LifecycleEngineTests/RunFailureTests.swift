// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import LifecycleEngine

/// How a failed run is described: systemd's Result, and the exit status or the signal by its name.
struct RunFailureTests {
    private func failure(_ details: CrashDetails) -> RunFailure? {
        RunFailure(crashNotice: Dispatch(name: "crash", time: 5, lifecycle: nil, customData: details.data))
    }

    @Test("an exit status is a number, a signal its number and name, as systemd prints them")
    func statusText() {
        #expect(failure(CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 7))?.summary
            == "exit-code, status=7")
        #expect(failure(CrashDetails(result: "signal", execMainCode: 2, execMainStatus: 9))?.summary
            == "signal, status=9/KILL")
        #expect(failure(CrashDetails(result: "core-dump", execMainCode: 3, execMainStatus: 11))?.statusText
            == "11/SEGV")
        #expect(failure(CrashDetails(result: "start-limit-hit"))?.summary == "start-limit-hit")
        #expect(failure(CrashDetails(result: "timeout", execMainCode: 2, execMainStatus: 15))?.statusText
            == "15/TERM")
        #expect(failure(CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 9))?.statusText == "9")
    }

    @Test("a start that failed before any main process ran (ExecCondition= exited 255): no exit code or status, not 0")
    func noMainProcess() {
        let details = CrashDetails(result: "exit-code", execMainCode: 0, execMainStatus: 0)
        #expect(details.data == ["unit_result": .string("exit-code")])
        #expect(failure(details)?.summary == "exit-code")
    }

    @Test("signal names, real-time signals, and numbers that are not signals")
    func signalNames() {
        #expect(SignalName.name(1) == "HUP")
        #expect(SignalName.name(6) == "ABRT")
        #expect(SignalName.name(31) == "SYS")
        #expect(SignalName.name(36) == "RTMIN+2")
        #expect(SignalName.name(0) == nil)
        #expect(SignalName.name(65) == nil)
    }

    @Test("three failures within the window make a crash loop; older ones do not count")
    func crashLoop() {
        let minute: Milliseconds = 60_000
        let rule = CrashLoopRule()
        let now: Milliseconds = 100 * minute
        #expect(rule.isLooping([now - 10 * minute, now - 5 * minute, now], now: now))
        #expect(!rule.isLooping([now - 10 * minute - 1, now - 5 * minute, now], now: now))
        #expect(!rule.isLooping([now - 2, now - 1], now: now))
    }
}
