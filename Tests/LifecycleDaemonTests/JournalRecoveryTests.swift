// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleCore
import LifecycleDaemon
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

/// Records brought up to lifecycled's own journal at start: a state file that could not be written, or was set aside.
struct JournalRecoveryTests {
    static let runA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let runB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    static let runC = "cccccccccccccccccccccccccccccccc"
    let start: UInt64 = 1_772_359_200  // 2026-03-01T10:00:00Z

    func tracker(records: [UnitRecord] = []) throws -> UnitTracker {
        let configuration = LifecycleConfiguration(watch: [WatchRule(pattern: try UnitPattern("web.service"))])
        return UnitTracker(configuration: configuration, timeZone: TimeZoneRules.utc, records: records)
    }

    func snap(_ state: String, _ id: String, second: UInt64, result: String = "success") -> UnitSnapshot {
        UnitSnapshot(
            name: "web.service", activeState: ActiveState(state), subState: "x", invocationID: id, result: result,
            stateChangeTimestamp: (start + second) * 1_000_000, stateChangeTimestampMonotonic: second * 1_000_000 + 1
        )
    }

    /// Feeds `snapshots` to `tracker`; returns the journal entries it would send, as the journal gives them back.
    func run(_ tracker: inout UnitTracker, _ snapshots: [(UnitSnapshot, String?)]) -> [JournaledDispatch] {
        snapshots.flatMap { snapshot, version in
            tracker.transitions(for: snapshot, whileReloading: false).flatMap { tracker.apply($0, version: version, now: 0) }
        }.compactMap { effect in
            guard case .dispatch(_, _, _, _, _, let entry) = effect else { return nil }
            return JournaledDispatch(fields: Dictionary(entry.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }))
        }
    }

    @Test("a record behind the journal ends up as if it had been saved all along, and is saved")
    func staleRecordCatchesUp() throws {
        var live = try tracker()
        _ = run(&live, [(snap("active", Self.runA, second: 0), "1")])
        let stale = try #require(live.records["web.service"])
        let missed = run(&live, [
            (snap("inactive", Self.runA, second: 60), nil), (snap("active", Self.runB, second: 120), "2"),
            (snap("failed", Self.runB, second: 200, result: "signal"), nil), (snap("active", Self.runC, second: 260), "2"),
        ])
        #expect(missed.map(\.kind) == [.sleep, .launch, .crash, .launch])
        #expect(missed.map(\.sequence) == [2, 3, 4, 5])

        var restarted = try tracker(records: [stale])
        let effects = restarted.catchUp(with: ["web.service": missed])
        var expected = try #require(live.records["web.service"])
        expected.pendingDispatches = stale.pendingDispatches
        #expect(restarted.records["web.service"] == expected)
        #expect(effects == [.persist(expected)])
        #expect(expected.state.version == "2" && expected.state.totalCrashCount == 1 && expected.sequence == 5)

        // Nothing more to reconcile: the listing shows the run the journal last recorded.
        #expect(restarted.reconcile([snap("active", Self.runC, second: 260)], endings: [:]).isEmpty)
    }

    @Test("dispatches at or below the record's sequence change nothing")
    func upToDate() throws {
        var live = try tracker()
        let sent = run(&live, [(snap("active", Self.runA, second: 0), "1")])
        var restarted = try tracker(records: Array(live.records.values))
        #expect(restarted.catchUp(with: ["web.service": sent]).isEmpty)
        #expect(restarted.records == live.records)
    }

    @Test("a unit with no record (its state file set aside or deleted) is rebuilt from all its dispatches, and numbers on")
    func noRecord() throws {
        var live = try tracker()
        let sent = run(&live, [
            (snap("active", Self.runA, second: 0), "1"), (snap("inactive", Self.runA, second: 60), nil),
            (snap("active", Self.runB, second: 120), "2"), (snap("failed", Self.runB, second: 200, result: "signal"), nil),
        ])
        var rebuilt = try tracker()
        let effects = rebuilt.catchUp(with: ["web.service": sent])
        var expected = try #require(live.records["web.service"])
        expected.pendingDispatches = []
        #expect(rebuilt.records["web.service"] == expected)
        #expect(effects == [.persist(expected)])
        #expect(expected.state.totalCrashCount == 0 && expected.state.totalLaunchCount == 2 && expected.sequence == 4)
        // The next run is numbered on, and counts the crash of the run before.
        let next = rebuilt.transitions(for: snap("active", Self.runC, second: 300), whileReloading: false)
            .flatMap { rebuilt.apply($0, version: "2", now: 0) }
        let dispatched = next.compactMap { if case .dispatch(_, let dispatch, _, _, let sequence, _) = $0 { "\(sequence) \(dispatch.name)" } else { nil } }
        #expect(dispatched == ["5 launch"])
        #expect(rebuilt.records["web.service"]?.state.totalCrashCount == 1)
    }

    @Test("a record rebuilt from its dispatches keeps its run totals: each run's start-up, CPU and OOM kill counted once")
    func totalsRebuilt() throws {
        func dispatch(_ sequence: UInt64, _ kind: DispatchKind, _ id: String, run: RunRecord = RunRecord()) -> JournaledDispatch {
            var dispatch = JournaledDispatch(
                unit: "web.service", sequence: sequence, kind: kind, time: Milliseconds(start * 1_000) + Milliseconds(sequence),
                invocationID: id
            )
            dispatch.run = run
            return dispatch
        }
        var started = RunRecord()
        started.startupSeconds = 0.3
        var ended = started
        ended.cpuSeconds = 2
        var killed = RunRecord()
        killed.startupSeconds = 7
        killed.cpuSeconds = 1
        killed.oom = .kernel
        let dispatches = [
            dispatch(1, .launch, Self.runA, run: started), dispatch(2, .sleep, Self.runA, run: ended),
            dispatch(3, .wake, Self.runB), dispatch(4, .crash, Self.runB, run: killed),
            dispatch(5, .sleep, Self.runB, run: killed),  // the same run's end again: not counted twice
        ]
        var rebuilt = try tracker()
        _ = rebuilt.catchUp(with: ["web.service": dispatches])
        var expected = RunTotals()
        expected.addStartup(0.3, of: Self.runA)
        expected.add(ended, of: Self.runA)
        expected.add(killed, of: Self.runB)
        let totals = try #require(rebuilt.records["web.service"]?.runTotals)
        #expect(totals == expected)
        #expect(totals.startups == 2 && totals.cpuMicroseconds == 3_000_000 && totals.oomKills["kernel"] == 1)
    }

    @Test("a record rebuilt from its dispatches keeps its timers' runs, lateness and misses, read from the entries' fields")
    func timerTotalsRebuilt() throws {
        func entry(_ sequence: UInt64, _ kind: DispatchKind, _ extra: [String: String]) -> JournaledDispatch? {
            JournaledDispatch(fields: [
                "MESSAGE_ID": kind.messageID, "LIFECYCLE_UNIT": "web.service", "LIFECYCLE_SEQUENCE": String(sequence),
                "LIFECYCLE_TIME": "2026-03-01T10:00:0\(sequence).000Z", "LIFECYCLE_AUTOTRACKED": "true",
            ].merging(extra) { _, new in new })
        }
        let timed = ["LIFECYCLE_TIMER": "web.timer", "LIFECYCLE_TIMER_LATENESS_SECONDS": "2.5"]
        let dispatches = try [
            entry(1, .launch, timed.merging(["LIFECYCLE_INVOCATION_ID": Self.runA]) { _, new in new }),
            entry(2, .sleep, ["LIFECYCLE_INVOCATION_ID": Self.runA]),
            entry(3, .missed, ["LIFECYCLE_TIMER": "web.timer", "LIFECYCLE_MISSED_CAUSE": "dependency", "LIFECYCLE_AUTOTRACKED": "false"]),
            entry(4, .wake, ["LIFECYCLE_INVOCATION_ID": Self.runB]),  // started otherwise: no timer's run
        ].map { try #require($0) }
        var rebuilt = try tracker()
        _ = rebuilt.catchUp(with: ["web.service": dispatches])
        let totals = try #require(rebuilt.records["web.service"]?.timers["web.timer"])
        #expect(totals.runs == 1)
        #expect(totals.latenessMicroseconds == 2_500_000)
        #expect(totals.missed == ["dependency": 1])
        #expect(totals.lastOutcome == .missed)
        #expect(rebuilt.records["web.service"]?.timers.count == 1)
    }

    @Test("an entry that is not a dispatch of this schema is not read as one")
    func unreadableEntries() {
        let good = [
            "MESSAGE_ID": DispatchKind.wake.messageID, "LIFECYCLE_UNIT": "web.service", "LIFECYCLE_SEQUENCE": "3",
            "LIFECYCLE_TIME": "2026-03-01T10:00:00.250Z",
        ]
        #expect(JournaledDispatch(fields: good) == JournaledDispatch(unit: "web.service", sequence: 3, kind: .wake, time: 1_772_359_200_250, isAutotracked: false))
        for key in good.keys.sorted() {
            var fields = good
            fields[key] = nil
            #expect(JournaledDispatch(fields: fields) == nil, "without \(key)")
            guard key != "LIFECYCLE_UNIT" else { continue }
            fields[key] = "x"
            #expect(JournaledDispatch(fields: fields) == nil, "with \(key)=x")
        }
    }

    @Test("a unit that starts fresh does not take runs from before its newest dispatch as missed, even when the journal lost that run's entries")
    func freshUnitKeepsItsPast() throws {
        var tracker = try tracker()
        let newest = JournaledDispatch(unit: "web.service", sequence: 2, kind: .sleep, time: 5_000, invocationID: Self.runB)
        _ = tracker.catchUp(with: ["web.service": [newest]])
        // PID 1's entries of run B are missing (journald was stopped); run A is older, run C began later.
        let history = RunHistory(entries: [(Self.runA, Milliseconds(1_000)), (Self.runC, 7_000)].map { run, time in
            RunEnding.Entry(messageID: RunEnding.MessageID.unitStarted, time: time, fields: ["UNIT": "web.service", "INVOCATION_ID": run])
        })
        let transitions = tracker.reconcile([snap("active", Self.runC, second: 7)], endings: [:], history: history)
        #expect(transitions.map(\.invocationID) == [Self.runC])
        #expect(transitions.map(\.transition) == [.began])
    }
}
