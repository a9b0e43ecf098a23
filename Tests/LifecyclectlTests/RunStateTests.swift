// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

@testable import lifecyclectl

/// The STATE of `lifecyclectl status`: what a record says about the unit's last run.
struct RunStateTests {
    private static let calendar = LocalCalendar(timeZone: Fixtures.utc)

    private func summary(_ record: UnitRecord, crashLoop: CrashLoopRule = CrashLoopRule()) -> UnitSummary {
        UnitSummary(record: record, now: Fixtures.now, calendar: Self.calendar, crashLoop: crashLoop)
    }

    @Test("running after a launch, stopped after a sleep, nothing before the first event")
    func runningAndStopped() {
        #expect(RunState(record: Fixtures.cron) == .running)
        #expect(RunState(record: Fixtures.nginx) == .stopped)
        #expect(RunState(record: Fixtures.fresh) == nil)
    }

    @Test("a run that ended with a crash notice is failed, with systemd's Result and exit status")
    func failed() {
        let bad = summary(Fixtures.bad)
        #expect(bad.runState == .failed)
        #expect(bad.failure?.summary == "exit-code, status=7")
        #expect(!bad.isCrashLooping)
        #expect(bad.stateText == "failed")
    }

    @Test("the time awake stops when a run fails: the failed run adds nothing")
    func awakeStops() {
        #expect(summary(Fixtures.bad).totalSecondsAwake == 0)
        #expect(summary(Fixtures.cron).totalSecondsAwake == 90_000 + 180)  // the running period counts
    }

    @Test("a failed last run counts as a crash before the next launch counts it")
    func crashesIncludeTheFailedRun() {
        #expect(summary(Fixtures.bad).crashes == 1)
        #expect(summary(Fixtures.killed).crashes == 3)
        #expect(summary(Fixtures.nginx).crashes == 1)
    }

    @Test("a killed run shows the signal's name; three failures in ten minutes are a crash loop")
    func crashLoop() {
        let killed = summary(Fixtures.killed)
        #expect(killed.failure?.summary == "signal, status=9/KILL")
        #expect(killed.isCrashLooping)
        #expect(killed.stateText == "crash-looping")
        #expect(!summary(Fixtures.killed, crashLoop: CrashLoopRule(crashes: 4, minutes: 10)).isCrashLooping)
        #expect(!summary(Fixtures.killed, crashLoop: CrashLoopRule(crashes: 3, minutes: 8)).isCrashLooping)
    }

    @Test("a record from before failures were kept is failed without a result")
    func oldRecord() {
        var record = Fixtures.bad
        record.lastFailure = nil
        record.recentCrashes = []
        #expect(summary(record).runState == .failed)
        #expect(summary(record).failure == nil)
    }
}
