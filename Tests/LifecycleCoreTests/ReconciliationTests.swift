// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

/// What lifecycled recovers at start about runs that began or ended while it was not running.
struct ReconciliationTests {
    static let runA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let runB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

    /// A tracker whose web.service record says run A launched and is running.
    func tracker() throws -> UnitTracker {
        var state = UnitState()
        let engine = LifecycleEngine(settings: LifecycleSettings(autotrackingEnabled: false), calendar: LocalCalendar(timeZone: TimeZoneRules.utc))
        _ = engine.track(.launch, at: 1_000, state: &state)
        let configuration = LifecycleConfiguration(watch: [WatchRule(pattern: try UnitPattern("web.service"))])
        return UnitTracker(
            configuration: configuration, timeZone: TimeZoneRules.utc,
            records: [UnitRecord(unit: "web.service", state: state, invocationID: Self.runA, sequence: 1)]
        )
    }

    func snap(_ state: String, _ id: String, result: String = "success") -> UnitSnapshot {
        UnitSnapshot(name: "web.service", activeState: ActiveState(state), subState: "x", invocationID: id, result: result, stateChangeTimestamp: 9_000_000)
    }

    @Test("a unit that kept running while lifecycled was down gives nothing: no false crash")
    func keptRunning() throws {
        let tracker = try tracker()
        let listing = [snap("active", Self.runA)]
        #expect(tracker.runsToLookUp(in: listing).isEmpty)
        #expect(tracker.reconcile(listing, endings: [:]).isEmpty)
    }

    @Test("a run that stopped and was unloaded is looked up in the journal and becomes a reconciled sleep")
    func stoppedAndUnloaded() throws {
        var tracker = try tracker()
        #expect(tracker.runsToLookUp(in: []).map(\.invocationID) == [Self.runA])
        let transitions = tracker.reconcile([], endings: ["web.service": .endedCleanly(at: 5_000)])
        #expect(transitions.map(\.transition) == [.endedCleanly])
        #expect(transitions.first?.time == 5_000)
        let effects = transitions.flatMap { tracker.apply($0, version: nil, now: 0) }
        let dispatch = effects.compactMap { if case .dispatch(_, let d, _, _, _, _) = $0 { d } else { nil } }.first
        #expect(dispatch?.name == "sleep")
        #expect(dispatch?.payload["reconciled"] == .bool(true))
        #expect(dispatch?.payload["lifecycle_secondsawake"] == .int(4))
    }

    @Test("a run that failed while still listed is a reconciled crash notice, read from the listing")
    func failedAndListed() throws {
        let tracker = try tracker()
        let listing = [snap("failed", Self.runA, result: "exit-code")]
        #expect(tracker.runsToLookUp(in: listing).isEmpty)
        let transitions = tracker.reconcile(listing, endings: [:])
        #expect(transitions.map(\.transition) == [.failed(CrashDetails(result: "exit-code"))])
        #expect(transitions.allSatisfy { $0.isReconciled })
    }

    @Test("a start the start limit refused after the stored run ended: the run's end is the journal's, never the refusal's crash", arguments: [
        (RunEnding.endedCleanly(at: 5_000) as RunEnding?, RunTransition.endedCleanly, Milliseconds(5_000)),
        (RunEnding.failed(CrashDetails(result: "exit-code"), at: 6_000) as RunEnding?, RunTransition.failed(CrashDetails(result: "exit-code")), Milliseconds(6_000)),
        (nil as RunEnding?, RunTransition.endedUnknown, Milliseconds(9_000)),  // unknown: at the refusal at the latest
    ])
    func refusedStart(ending: RunEnding?, transition: RunTransition, time: Milliseconds) throws {
        let tracker = try tracker()
        let listing = [snap("failed", Self.runA, result: "start-limit-hit")]
        #expect(tracker.runsToLookUp(in: listing).map(\.invocationID) == [Self.runA])
        let transitions = tracker.reconcile(listing, endings: ending.map { ["web.service": $0] } ?? [:])
        #expect(transitions.map(\.transition) == [transition])
        #expect(transitions.first?.time == time)
        #expect(transitions.allSatisfy { $0.isReconciled })
    }

    @Test("a run the history shows end, then a start the start limit refused: the history's end")
    func refusedStartAfterHistory() throws {
        let tracker = try tracker()
        let listing = [snap("failed", Self.runA, result: "start-limit-hit")]
        let history = RunHistory(entries: [
            RunEnding.Entry(messageID: RunEnding.MessageID.unitSuccess, time: 5_000, fields: ["UNIT": "web.service", "INVOCATION_ID": Self.runA]),
        ])
        #expect(tracker.reconcile(listing, endings: [:], history: history).map(\.transition) == [.endedCleanly])
    }

    @Test("a run whose crash notice was already sent is not reported again at the next start")
    func crashAlreadyRecorded() throws {
        var tracker = try tracker()
        let failed = snap("failed", Self.runA, result: "exit-code")
        _ = tracker.transitions(for: snap("active", Self.runA), whileReloading: false)
        let effects = tracker.transitions(for: failed, whileReloading: false).flatMap { tracker.apply($0, version: nil, now: 0) }
        #expect(effects.contains { if case .dispatch(_, _, .crash, _, _, _) = $0 { true } else { false } })
        let restarted = UnitTracker(configuration: tracker.configuration, timeZone: TimeZoneRules.utc, records: Array(tracker.records.values))
        #expect(restarted.reconcile([failed], endings: [:]).isEmpty)
        #expect(restarted.runsToLookUp(in: []).isEmpty)
    }

    @Test("a restart while lifecycled was down is the old run's end and the new run's begin")
    func restarted() throws {
        let tracker = try tracker()
        let listing = [snap("active", Self.runB)]
        #expect(tracker.runsToLookUp(in: listing).map(\.invocationID) == [Self.runA])
        let transitions = tracker.reconcile(listing, endings: ["web.service": .endedCleanly(at: 5_000)])
        #expect(transitions.map(\.transition) == [.endedCleanly, .began])
        #expect(transitions.map(\.invocationID) == [Self.runA, Self.runB])
    }

    @Test("a quiet unit restarted while lifecycled was down: the old run ends unknown (a sleep, not a crash) when it was last watched")
    func quietRestart() throws {
        var tracker = try tracker()
        let listing = [snap("active", Self.runB)]
        // LogLevelMax=notice: PID 1 logged nothing of the run's end, nor of the runs after it.
        let transitions = tracker.reconcile(listing, endings: [:], history: history([]), watchedUntil: 7_000)
        #expect(transitions.map(\.transition) == [.endedUnknown, .began])
        #expect(transitions.map(\.invocationID) == [Self.runA, Self.runB])
        #expect(transitions.first?.time == 7_000)
        let effects = transitions.flatMap { tracker.apply($0, version: nil, now: 0) }
        let dispatches = effects.compactMap { if case .dispatch(_, let d, let kind, _, _, _) = $0 { (d, kind) } else { nil } }
        #expect(dispatches.map(\.0.name) == ["sleep", "wake"])
        #expect(!dispatches.contains { $0.1 == .crash })
        #expect(dispatches.first?.0.payload["run_end"] == .string("unknown"))
        #expect(dispatches.first?.0.payload["lifecycle_secondsawake"] == .int(6))
        #expect(tracker.records["web.service"]?.state.totalCrashCount == 0)
    }

    @Test("a stored run missing from the listing, with no word of its end, is not ended: no run is known to follow it")
    func missingFromListing() throws {
        let tracker = try tracker()
        // A listing taken while systemd re-executes can lack a unit that runs on.
        #expect(tracker.reconcile([], endings: [:], history: history([]), watchedUntil: 7_000).isEmpty)
    }

    @Test("an unknown end is never later than the next run's begin, nor earlier than the stored run's")
    func unknownEndBounds() throws {
        let tracker = try tracker()
        // Watched until after the next run began (the history's margin): the next run's begin bounds it.
        let next = history([("web.service", Self.runB, ID.unitStarted, 6_000)])
        let late = tracker.reconcile([snap("active", Self.runB)], endings: [:], history: next, watchedUntil: 8_000)
        #expect(late.first?.transition == .endedUnknown && late.first?.time == 6_000)
        // Not known to be watched at all (the user manager): at the stored run's own begin.
        let unwatched = tracker.reconcile([snap("active", Self.runB)], endings: [:])
        #expect(unwatched.first?.transition == .endedUnknown && unwatched.first?.time == 1_000)
    }

    @Test("a run the history shows begin but not end, followed by another: ends unknown; the listed run does not")
    func missedRunWithoutEnd() throws {
        let tracker = try tracker()
        let history = history([
            ("web.service", Self.runA, ID.unitStopped, 2_000),
            ("web.service", Self.runB, ID.unitStarted, 3_000),
            ("web.service", Self.runC, ID.unitStarted, 4_000),
        ])
        let transitions = tracker.reconcile([snap("active", Self.runC)], endings: [:], history: history)
        #expect(transitions.map(\.transition) == [.endedCleanly, .began, .endedUnknown, .began])
        #expect(transitions.map(\.invocationID) == [Self.runA, Self.runB, Self.runB, Self.runC])
        #expect(transitions[2].time == 3_000)
    }

    // MARK: - Runs from PID 1's journal since lifecycled last tracked

    static let runC = "cccccccccccccccccccccccccccccccc"
    typealias ID = RunEnding.MessageID

    func history(_ entries: [(unit: String, run: String, id: String, time: Milliseconds)]) -> RunHistory {
        RunHistory(entries: entries.map {
            RunEnding.Entry(messageID: $0.id, time: $0.time, fields: ["UNIT": $0.unit, "INVOCATION_ID": $0.run])
        })
    }

    func watchingEverything(_ tracker: UnitTracker) throws -> UnitTracker {
        var tracker = tracker
        tracker.reconfigure(LifecycleConfiguration(watch: [WatchRule(pattern: try UnitPattern("*.service"))]), timeZone: TimeZoneRules.utc)
        return tracker
    }

    @Test("a run of a unit with no record that began and ended while lifecycled was down: a reconciled launch and sleep")
    func wholeRunWhileDown() throws {
        var tracker = try watchingEverything(try tracker())
        let history = history([
            ("job.service", Self.runC, ID.unitStarted, 2_000), ("job.service", Self.runC, ID.unitSuccess, 3_000),
        ])
        let transitions = tracker.reconcile([snap("active", Self.runA)], endings: [:], history: history)
        #expect(transitions.map(\.unit) == ["job.service", "job.service"])
        #expect(transitions.map(\.transition) == [.began, .endedCleanly])
        #expect(transitions.map(\.time) == [2_000, 3_000])
        #expect(transitions.allSatisfy { $0.isReconciled && $0.invocationID == Self.runC })
        let names = transitions.flatMap { tracker.apply($0, version: nil, now: 0) }.compactMap {
            if case .dispatch(_, let dispatch, _, _, let sequence, _) = $0 { "\(sequence) \(dispatch.name)" } else { nil }
        }
        #expect(names == ["1 launch", "2 sleep"])
    }

    @Test("a unit with no record running since before the history gives nothing; one that began within it, a launch")
    func noRecordRunning() throws {
        let tracker = try watchingEverything(try tracker())
        let new = UnitSnapshot(name: "new.service", activeState: .active, subState: "running", invocationID: Self.runC, result: "success", stateChangeTimestamp: 7_000_000)
        let running = [snap("active", Self.runA), new]
        #expect(tracker.reconcile(running, endings: [:], history: history([])).isEmpty)
        #expect(tracker.reconcile(running, endings: [:], history: nil).isEmpty)
        let transitions = tracker.reconcile(running, endings: [:], history: history([("new.service", Self.runC, ID.unitStarted, 6_900)]))
        #expect(transitions.map(\.transition) == [.began])
        #expect(transitions.first?.time == 6_900)
    }

    @Test("every run between the stored one and the listed one is recorded once, in order; earlier runs are skipped")
    func runsBetween() throws {
        let tracker = try tracker()
        let history = history([
            ("web.service", "0000", ID.unitStarted, 100), ("web.service", "0000", ID.unitSuccess, 200),
            ("web.service", Self.runA, ID.unitStarted, 1_000), ("web.service", Self.runA, ID.unitSuccess, 4_000),
            ("web.service", Self.runB, ID.unitStarted, 5_000), ("web.service", Self.runB, ID.unitFailureResult, 6_000),
            ("web.service", Self.runC, ID.unitStarted, 7_000),
        ])
        let transitions = tracker.reconcile(
            [snap("active", Self.runC)], endings: ["web.service": .endedCleanly(at: 4_000)], history: history
        )
        #expect(transitions.map(\.invocationID) == [Self.runA, Self.runB, Self.runB, Self.runC])
        #expect(transitions.map(\.transition) == [.endedCleanly, .began, .failed(CrashDetails(result: "failed")), .began])
        #expect(transitions.map(\.time) == [4_000, 5_000, 6_000, 7_000])
    }

    @Test("given out a run at a time, a unit's transitions come in the order they come all at once, the stored end first and the listed begin last")
    func givenOutInRounds() throws {
        let tracker = try tracker()
        let history = history([
            ("web.service", Self.runB, ID.unitStarted, 5_000), ("web.service", Self.runB, ID.unitSuccess, 6_000),
            ("web.service", Self.runC, ID.unitStarted, 7_000),
        ])
        let listing = [snap("active", "dddddddddddddddddddddddddddddddd")]
        let endings: [String: RunEnding] = ["web.service": .endedCleanly(at: 4_000)]
        var unit = try #require(tracker.reconciliation(listing, endings: endings, history: history).first)
        #expect(unit.beginsLeft == 3, "two runs from the history, and the listed one")
        var rounds: [[String]] = []
        while !unit.isDone { rounds.append(unit.next(runs: 1).map { "\($0.transition)/\($0.invocationID.prefix(1))" }) }
        #expect(rounds == [
            ["endedCleanly/a", "began/b", "endedCleanly/b"],
            // Run C's end is nowhere: the begin of the listed run D ends it when applied.
            ["began/c", "began/d"],
        ])
        #expect(rounds.flatMap(\.self) == tracker.reconcile(listing, endings: endings, history: history).map {
            "\($0.transition)/\($0.invocationID.prefix(1))"
        })
    }

    @Test("a listed run that ended is ended by the listing, not the journal; unwatched units are left alone")
    func listedRunEnded() throws {
        let tracker = try tracker()
        let history = history([
            ("web.service", Self.runB, ID.unitStarted, 5_000), ("other.service", Self.runC, ID.unitStarted, 5_000),
        ])
        let transitions = tracker.reconcile(
            [snap("failed", Self.runB, result: "exit-code")], endings: ["web.service": .endedCleanly(at: 4_000)], history: history
        )
        #expect(transitions.map(\.transition) == [.endedCleanly, .began, .failed(CrashDetails(result: "exit-code"))])
        #expect(!transitions.contains { $0.unit == "other.service" })
    }

    @Test("the journal, read after the listing, shows a stop and a new run: each recorded once, signals after give nothing more")
    func journalNewerThanListing() throws {
        var tracker = try tracker()
        let history = history([
            ("web.service", Self.runA, ID.unitSuccess, 4_000), ("web.service", Self.runB, ID.unitStarted, 5_000),
        ])
        let listing = [snap("active", Self.runA)]
        let transitions = tracker.reconcile(listing, endings: [:], history: history)
        #expect(transitions.map(\.transition) == [.endedCleanly, .began])
        #expect(transitions.map(\.invocationID) == [Self.runA, Self.runB])
        let names = { (effects: [UnitTracker.Effect]) in
            effects.compactMap { if case .dispatch(_, let dispatch, _, _, _, _) = $0 { dispatch.name } else { nil } }
        }
        #expect(names(transitions.flatMap { tracker.apply($0, version: nil, now: 0) }) == ["sleep", "wake"])
        #expect(tracker.resync(listing, isFirstListing: true).isEmpty)
        // The signals of what the journal already showed arrive after the listing.
        let late = [snap("inactive", Self.runA), snap("active", Self.runB)]
        #expect(late.flatMap { tracker.transitions(for: $0, whileReloading: false) }.isEmpty)
        let stop = tracker.transitions(for: snap("inactive", Self.runB), whileReloading: false)
        #expect(names(stop.flatMap { tracker.apply($0, version: nil, now: 0) }) == ["sleep"])
    }
}
