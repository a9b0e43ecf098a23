// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleDaemon
import LifecycleEngine
import LifecycleStorage
import Testing

/// What lifecycled recovers at start about runs that began or ended while it was not running.
struct ReconciliationTests {
    static let runA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let runB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

    /// A tracker whose web.service record says run A launched and is running.
    func tracker() throws -> UnitTracker {
        var state = UnitState()
        let engine = LifecycleEngine(settings: LifecycleSettings(autotrackingEnabled: false), calendar: LocalCalendar(timeZone: TimeZone(identifier: "UTC")!))
        _ = engine.track(.launch, at: 1_000, state: &state)
        let configuration = LifecycleConfiguration(watch: [WatchRule(pattern: try UnitPattern("web.service"))])
        return UnitTracker(
            configuration: configuration, timeZone: TimeZone(identifier: "UTC")!,
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
        let dispatch = effects.compactMap { if case .dispatch(_, let d, _, _, _) = $0 { d } else { nil } }.first
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

    @Test("a run whose crash notice was already sent is not reported again at the next start")
    func crashAlreadyRecorded() throws {
        var tracker = try tracker()
        let failed = snap("failed", Self.runA, result: "exit-code")
        _ = tracker.transitions(for: snap("active", Self.runA), whileReloading: false)
        let effects = tracker.transitions(for: failed, whileReloading: false).flatMap { tracker.apply($0, version: nil, now: 0) }
        #expect(effects.contains { if case .dispatch(_, _, .crash, _, _) = $0 { true } else { false } })
        let restarted = UnitTracker(configuration: tracker.configuration, timeZone: TimeZone(identifier: "UTC")!, records: Array(tracker.records.values))
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
}
