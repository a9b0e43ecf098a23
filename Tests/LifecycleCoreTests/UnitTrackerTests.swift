// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

struct UnitTrackerTests {
    static let runA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let runB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    let start: UInt64 = 1_772_359_200  // 2026-03-01T10:00:00Z

    func tracker(records: [UnitRecord] = []) throws -> UnitTracker {
        let configuration = LifecycleConfiguration(watch: [WatchRule(pattern: try UnitPattern("web*.service"))])
        return UnitTracker(configuration: configuration, timeZone: TimeZoneRules.utc, records: records)
    }

    func snap(_ state: String, _ sub: String, _ id: String, unit: String = "web.service", result: String = "success", second: UInt64 = 0) -> UnitSnapshot {
        UnitSnapshot(
            name: unit, activeState: ActiveState(state), subState: sub, invocationID: id, result: result,
            execMainCode: 2, execMainStatus: 9, stateChangeTimestamp: (start + second) * 1_000_000
        )
    }

    /// Maps and applies one snapshot; returns the effects in order.
    func feed(_ tracker: inout UnitTracker, _ snapshot: UnitSnapshot, version: String? = "1", reloading: Bool = false) -> [UnitTracker.Effect] {
        tracker.transitions(for: snapshot, whileReloading: reloading).flatMap {
            tracker.apply($0, version: version, now: 0)
        }
    }

    @Test("a start persists the record before dispatching its launch, with sequence 1 and the run's id")
    func launch() throws {
        var tracker = try tracker()
        let effects = feed(&tracker, snap("active", "running", Self.runA))
        guard effects.count == 2, case .persist(let record) = effects[0],
            case .dispatch(let unit, let dispatch, let kind, let invocationID, let sequence, let entry) = effects[1]
        else {
            Issue.record("expected persist then dispatch, got \(effects)")
            return
        }
        #expect(record.unit == "web.service")
        #expect(record.invocationID == Self.runA)
        #expect(record.sequence == 1)
        #expect(record.state.lastEvent == .launch)
        // the record carries its dispatch, so that one lost before reaching the journal can be sent again
        #expect(record.pendingDispatches == [JournalFields(entry.fields)])
        #expect(record.pendingDispatches.last?["LIFECYCLE_SEQUENCE"] == "1")
        #expect(record.pendingDispatches.last?["LIFECYCLE_VERSION"] == "1")
        #expect(record.pendingDispatches.last?["LIFECYCLE_EVENT"] == "launch")
        #expect(record.pendingDispatches.last?["MESSAGE_ID"] == DispatchKind.launch.messageID)
        #expect(unit == "web.service")
        #expect(invocationID == Self.runA)
        #expect(sequence == 1)
        #expect(dispatch.name == "launch")
        #expect(kind == .launch)
        #expect(dispatch.time == Milliseconds(start) * 1_000)
        #expect(dispatch.payload["autotracked"] == .bool(true))
    }

    @Test("dispatches stay pending in the record until the journal takes them, in order")
    func pendingUntilDelivered() throws {
        var tracker = try tracker()
        _ = feed(&tracker, snap("active", "running", Self.runA))
        _ = feed(&tracker, snap("inactive", "dead", Self.runA, second: 5))
        let pending = { tracker.records["web.service"]?.pendingDispatches.compactMap { $0["LIFECYCLE_SEQUENCE"] } }
        #expect(pending() == ["1", "2"])
        tracker.markDelivered(unit: "web.service", sequence: 1)
        #expect(pending() == ["2"])
        tracker.markDelivered(unit: "web.service", sequence: 2)
        // Not merely empty: without its buffer, which would stay allocated between freed dispatches.
        #expect(tracker.records["web.service"]?.pendingDispatches.capacity == 0)
        let effects = feed(&tracker, snap("active", "running", Self.runB, second: 9))
        guard case .persist(let saved) = effects.first else {
            Issue.record("expected a save first, got \(effects)")
            return
        }
        #expect(saved.pendingDispatches.compactMap { $0["LIFECYCLE_SEQUENCE"] } == ["3"])
    }

    @Test("stop, restart and a crash give sleep, wake, crash notice and a crash-detecting launch")
    func lifecycle() throws {
        var tracker = try tracker()
        var names: [String] = []
        var sequences: [UInt64] = []
        let snapshots = [
            snap("active", "running", Self.runA),
            snap("inactive", "dead", Self.runA, second: 60),
            snap("active", "running", Self.runB, second: 120),
            snap("failed", "failed", Self.runB, result: "signal", second: 180),
            snap("active", "running", "cccccccccccccccccccccccccccccccc", second: 240),
        ]
        for snapshot in snapshots {
            for case .dispatch(_, let dispatch, _, _, let sequence, _) in feed(&tracker, snapshot) {
                names.append(dispatch.name)
                sequences.append(sequence)
                if dispatch.name == "crash" {
                    #expect(dispatch.payload["unit_result"] == .string("signal"))
                    #expect(dispatch.payload["exit_code"] == .string("killed"))
                }
            }
        }
        #expect(names == ["launch", "sleep", "wake", "crash", "launch"])
        #expect(sequences == [1, 2, 3, 4, 5])
        #expect(tracker.records["web.service"]?.state.totalCrashCount == 1)
    }

    @Test("units that are not watched are left alone")
    func unwatched() throws {
        var tracker = try tracker()
        #expect(feed(&tracker, snap("active", "running", Self.runA, unit: "db.service")).isEmpty)
        #expect(tracker.records.isEmpty)
    }

    @Test("while systemd reloads, a unit seen for the first time is a re-announcement, not a launch")
    func reloadAnnouncement() throws {
        var tracker = try tracker()
        #expect(feed(&tracker, snap("active", "running", Self.runA), reloading: true).isEmpty)
        // a known unit that really changes during a reload is still tracked
        #expect(!feed(&tracker, snap("inactive", "dead", Self.runA), reloading: true).isEmpty)
    }

    @Test("the initial listing is a baseline: a running unit's first event is its stop")
    func baseline() throws {
        var tracker = try tracker(records: [UnitRecord(unit: "web.service", state: launched(), invocationID: Self.runA, sequence: 7)])
        #expect(tracker.resync([snap("active", "running", Self.runA)], isFirstListing: true).isEmpty)
        #expect(feed(&tracker, snap("active", "running", Self.runA)).isEmpty)
        let effects = feed(&tracker, snap("inactive", "dead", Self.runA, second: 30))
        #expect(effects.contains { if case .dispatch(_, let d, _, _, 8, _) = $0 { d.name == "sleep" } else { false } })
    }

    @Test("a record back from the archive: its run, seen only over by a mapper that knew nothing of the unit, is not begun again")
    func recordedRunNotBegunAgain() throws {
        var over = snap("inactive", "dead", Self.runA, second: 30)
        over.stateChangeTimestampMonotonic = 30_000_000
        over.inactiveExitMonotonic = 10_000_000
        var ended = try tracker(records: [UnitRecord(unit: "web.service", state: launched(), invocationID: Self.runA, runEnded: true, sequence: 2)])
        #expect(feed(&ended, over).isEmpty)
        var going = try tracker(records: [UnitRecord(unit: "web.service", state: launched(), invocationID: Self.runA, sequence: 1)])
        let effects = feed(&going, over)
        #expect(effects.contains { if case .dispatch(_, let d, _, _, 2, _) = $0 { d.name == "sleep" } else { false } },
            "its end, which the record lacks, is recorded: \(effects)")
        #expect(!effects.contains { if case .dispatch(_, let d, _, _, _, _) = $0 { d.name == "wake" || d.name == "launch" } else { false } })
    }

    @Test("a changed version at a start is an update launch")
    func versionUpdate() throws {
        var tracker = try tracker()
        _ = feed(&tracker, snap("active", "running", Self.runA), version: "1")
        _ = feed(&tracker, snap("inactive", "dead", Self.runA, second: 10))
        let effects = feed(&tracker, snap("active", "running", Self.runB, second: 20), version: "2")
        let launch = effects.compactMap { if case .dispatch(_, let d, _, _, _, _) = $0 { d } else { nil } }.first
        #expect(launch?.name == "launch")
        #expect(launch?.payload["lifecycle_isfirstlaunchupdate"] == .bool(true))
    }

    @Test("a refused autotracked event is reported, not persisted")
    func refused() throws {
        var tracker = try tracker()
        _ = tracker.resync([snap("active", "running", Self.runA)], isFirstListing: true)  // running, never launched
        let effects = feed(&tracker, snap("inactive", "dead", Self.runA))
        #expect(effects == [.refused(unit: "web.service", event: .sleep, error: .invalidEventOrder)])
    }

    @Test("a resync after a reload maps known units: a restart it shows is a stop and a start, not a forgotten run")
    func resyncOfKnownUnit() throws {
        var tracker = try tracker()
        _ = feed(&tracker, snap("active", "running", Self.runA))
        let transitions = tracker.resync([snap("active", "running", Self.runB, second: 5)], isFirstListing: false)
        #expect(transitions.map(\.transition) == [.began])
        #expect(transitions.first?.invocationID == Self.runB)
    }

    @Test("a listing older than what was already seen does not take a unit back in time")
    func staleListing() throws {
        var tracker = try tracker()
        var old = snap("active", "running", Self.runA)
        old.stateChangeTimestampMonotonic = 100
        var stopped = snap("inactive", "dead", Self.runA, second: 5)
        stopped.stateChangeTimestampMonotonic = 200
        _ = feed(&tracker, old)
        #expect(feed(&tracker, stopped).count == 2)  // persist, sleep
        #expect(tracker.resync([old], isFirstListing: false).isEmpty)
        var next = snap("active", "running", Self.runB, second: 9)
        next.stateChangeTimestampMonotonic = 300
        #expect(tracker.resync([next], isFirstListing: false).map(\.transition) == [.began])
    }

    @Test("in a later listing a unit never seen before that is running began while lifecycled was not looking")
    func newUnitInLaterListing() throws {
        var tracker = try tracker()
        #expect(tracker.resync([snap("active", "running", Self.runA)], isFirstListing: false).map(\.transition) == [.began])
        var first = try self.tracker()
        #expect(first.resync([snap("active", "running", Self.runA)], isFirstListing: true).isEmpty)
    }

    func launched() -> UnitState {
        var state = UnitState()
        let engine = LifecycleEngine(settings: LifecycleSettings(autotrackingEnabled: false), calendar: LocalCalendar(timeZone: TimeZoneRules.utc))
        _ = engine.track(.launch, at: 0, state: &state)
        return state
    }
}
