// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

/// A watched service's timers through the core: the listing asks for them, an elapse is resolved into the run it
/// started (its launch or wake carries the timer's fields), a `missed` dispatch numbered with the unit's sequence, or
/// a count, and the record keeps the timer's totals and schedule (docs/journal.md, "Timers").
struct DaemonCoreTimerTests {
    typealias H = CoreHarness

    /// web.timer, which starts web.service, last triggered at `second` (after ``CoreHarness/t0``, realtime and
    /// monotonic alike), next due 10 s later.
    static func timer(triggeredAt second: UInt64?) -> TimerSnapshot {
        TimerSnapshot(
            name: "web.timer", unit: H.unit,
            nextElapseRealtime: (UInt64(H.t0) + ((second ?? 0) + 10) * 1_000) * 1_000,
            lastTrigger: second.map { (UInt64(H.t0) + $0 * 1_000) * 1_000 } ?? 0,
            lastTriggerMonotonic: second.map { $0 * 1_000_000 } ?? 0, accuracy: 1_000_000
        )
    }

    private func tracking() throws -> H {
        var h = try H()
        h.timers = [Self.timer(triggeredAt: nil)]
        h.send(.start)
        h.send(.listing([H.snapshot("inactive", "z", second: 0)]))
        return h
    }

    private func fields(_ h: H, _ index: Int) -> [String: String] {
        Dictionary(h.journal[index].entry.fields.map { ($0.name, $0.value) }) { first, _ in first }
    }

    @Test("the listing asks for the timers of the watched services")
    func listingReadsTimers() throws {
        let h = try tracking()
        #expect(h.timerReads == [[H.unit]])
    }

    @Test("a run the timer started carries the timer, its due time and the lateness; a manual run carries none")
    func timedRun() throws {
        var h = try tracking()
        h.send(.timerChanged(Self.timer(triggeredAt: 10)))
        h.send(.changed(H.snapshot("active", "a", second: 13)))
        h.send(.changed(H.snapshot("inactive", "a", second: 14)))
        h.send(.changed(H.snapshot("active", "b", second: 30)))
        #expect(h.dispatches() == ["1 launch a", "2 sleep a", "3 wake b"])
        let launch = fields(h, 0)
        #expect(launch["LIFECYCLE_TIMER"] == "web.timer")
        #expect(launch["LIFECYCLE_TIMER_DUE_TIME"] == "2026-03-01T10:00:10.000Z")
        #expect(launch["LIFECYCLE_TIMER_LATENESS_SECONDS"] == "3.0", "queued behind something for 3 s")
        #expect(fields(h, 2)["LIFECYCLE_TIMER"] == nil)
        let totals = h.core.tracker.records[H.unit]?.timers["web.timer"]
        #expect(totals?.runs == 1)
        #expect(totals?.maxLatenessMicroseconds == 3_000_000)
        #expect(totals?.lastTrigger == H.t0 + 10_000)
        #expect(totals?.nextElapse == H.t0 + 20_000)
    }

    @Test("a run whose change came before its timer's: no timer fields on its launch, but the timer counts the run")
    func runBeforeElapse() throws {
        var h = try tracking()
        h.send(.changed(H.snapshot("active", "a", second: 10)))
        h.send(.timerChanged(Self.timer(triggeredAt: 10)))
        h.send(.jobRemoved(unit: H.unit, jobID: 7, result: "done", unitResult: "success"))
        #expect(h.dispatches() == ["1 launch a"])
        #expect(fields(h, 0)["LIFECYCLE_TIMER"] == nil)
        let totals = h.core.tracker.records[H.unit]?.timers["web.timer"]
        #expect(totals?.runs == 1)
        #expect(totals?.lastOutcome == .ran)
        #expect(totals?.coalesced == 0 && totals?.skipped == 0)
    }

    @Test("a start job failed on a dependency: one missed dispatch, numbered, at warning, with the cause")
    func missed() throws {
        var h = try tracking()
        h.send(.timerChanged(Self.timer(triggeredAt: 10)))
        h.send(.jobRemoved(unit: H.unit, jobID: 7, result: "dependency", unitResult: "success"))
        h.send(.jobRemoved(unit: H.unit, jobID: 7, result: "dependency", unitResult: "success"))
        #expect(h.dispatches() == ["1 missed"])
        let missed = fields(h, 0)
        #expect(missed["MESSAGE_ID"] == DispatchKind.missed.messageID)
        #expect(missed["PRIORITY"] == "4")
        #expect(missed["LIFECYCLE_TIMER"] == "web.timer")
        #expect(missed["LIFECYCLE_TIMER_DUE_TIME"] == "2026-03-01T10:00:10.000Z")
        #expect(missed["LIFECYCLE_MISSED_CAUSE"] == "dependency")
        #expect(missed["LIFECYCLE_TIMER_LATENESS_SECONDS"] == nil)
        #expect(missed["MESSAGE"] == "web.service: missed the run web.timer was due to start at 2026-03-01T10:00:10.000Z (dependency)")
        #expect(h.core.tracker.records[H.unit]?.timers["web.timer"]?.missed == ["dependency": 1])
        #expect(h.saved.last?.timers["web.timer"]?.lastOutcome == .missed, "saved before it is sent")
    }

    @Test("a start a condition skipped is no run and no miss: only counted")
    func skipped() throws {
        var h = try tracking()
        h.send(.timerChanged(Self.timer(triggeredAt: 10)))
        h.send(.changed(H.snapshot("active", "a", second: 10)))
        h.send(.changed(H.snapshot("inactive", "a", second: 11)))
        h.send(.timerChanged(Self.timer(triggeredAt: 20)))
        h.send(.jobRemoved(unit: H.unit, jobID: 8, result: "done", unitResult: "success"))
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"])
        let totals = h.core.tracker.records[H.unit]?.timers["web.timer"]
        #expect(totals?.runs == 1)
        #expect(totals?.skipped == 1)
        #expect(totals?.lastOutcome == .skipped)
    }
}

/// The runs a timer was due to start while lifecycled was away, from PID 1's failed start jobs.
struct DaemonCoreTimerRecoveryTests {
    typealias H = CoreHarness
    typealias T = DaemonCoreTimerTests

    /// web.service's record as a lifecycled that last resolved web.timer's elapse at 10 s left it.
    static func record() -> UnitRecord {
        var totals = TimerTotals()
        totals.countRun(latenessSeconds: 0, at: H.t0 + 10_000)
        totals.lastTrigger = H.t0 + 10_000
        return UnitRecord(unit: H.unit, sequence: 4, timers: ["web.timer": totals])
    }

    static func job(_ second: Int64, _ result: String) -> FailedStartJob {
        FailedStartJob(unit: H.unit, time: H.t0 + second * 1_000 + 250, result: result)
    }

    @Test("each failed start job since the last elapse resolved is a recovered missed dispatch at its time, once")
    func missedWhileAway() throws {
        var h = try H(records: [Self.record()])
        h.timers = [T.timer(triggeredAt: 40)]
        h.failedStarts = [Self.job(5, "dependency"), Self.job(20, "dependency"), Self.job(40, "timeout")]
        h.now = H.t0 + 45_000
        h.send(.start)
        h.send(.listing([H.snapshot("inactive", "z", second: 0)]))
        #expect(h.missedStartQueries.map(\.units) == [[H.unit: H.t0 + 10_000]])
        #expect(h.dispatches() == ["5 missed reconciled", "6 missed reconciled"])
        let fields = h.journal.map { dispatch in
            Dictionary(dispatch.entry.fields.map { ($0.name, $0.value) }) { first, _ in first }
        }
        #expect(fields.map { $0["LIFECYCLE_TIME"] } == ["2026-03-01T10:00:20.250Z", "2026-03-01T10:00:40.250Z"])
        #expect(fields.map { $0["LIFECYCLE_TIMER_DUE_TIME"] } == ["2026-03-01T10:00:20.250Z", "2026-03-01T10:00:40.000Z"])
        #expect(fields.map { $0["LIFECYCLE_MISSED_CAUSE"] } == ["dependency", "timeout"])
        let totals = h.core.tracker.records[H.unit]?.timers["web.timer"]
        #expect(totals?.missed == ["dependency": 1, "timeout": 1])
        #expect(totals?.lastResolved == H.t0 + 40_250, "the next start reads after it")
    }

    @Test("a timer that did not elapse meanwhile, or is new, asks nothing")
    func nothingToAsk() throws {
        var h = try H(records: [Self.record()])
        h.timers = [T.timer(triggeredAt: 10)]
        h.send(.start)
        h.send(.listing([H.snapshot("inactive", "z", second: 0)]))
        #expect(h.missedStartQueries.isEmpty)
        var fresh = try H()
        fresh.timers = [T.timer(triggeredAt: 40)]
        fresh.send(.start)
        fresh.send(.listing([H.snapshot("inactive", "z", second: 0)]))
        #expect(fresh.missedStartQueries.isEmpty)
    }
}
