// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// A run seen only over: PID 1 held back its signals and sent the unit's state as it was by then (docs/systemd.md,
/// "Coalesced changes").
struct SystemdUnitMapperCoalescedTests {
    static let runA = "51b4568c2847494e979350bcda548111"
    static let runB = "ba95eddd8573457db7156b34225f2bd8"
    static let runC = "c0000000000000000000000000000003"
    static let epoch: UInt64 = 1_772_359_200

    /// A snapshot of run `id`, which left the inactive state at monotonic second `began` (0: never) and whose state
    /// changed last at second `changed`.
    func snapshot(
        _ state: String, _ id: String, result: String = "success", began: UInt64, changed: UInt64, sub: String? = nil
    ) -> UnitSnapshot {
        var snapshot = UnitSnapshot(
            name: "web.service", activeState: ActiveState(state),
            subState: sub ?? (state == "failed" ? "failed" : state == "active" ? "running" : "dead"),
            invocationID: id, result: result, nRestarts: 0, execMainCode: 1, execMainStatus: result == "success" ? 0 : 3,
            freezerState: "running", stateChangeTimestamp: (Self.epoch + changed) * 1_000_000,
            stateChangeTimestampMonotonic: changed * 1_000_000
        )
        snapshot.inactiveExitMonotonic = began * 1_000_000
        return snapshot
    }

    @Test("a run begun and ended between two snapshots is one run, begun when it left the inactive state")
    func coalescedRun() {
        var mapper = SystemdUnitMapper()
        mapper.baseline(snapshot("inactive", Self.runA, began: 10, changed: 11))
        let clean = mapper.map(snapshot("inactive", Self.runB, began: 20, changed: 22))
        #expect(clean.map(\.transition) == [.began, .endedCleanly])
        #expect(clean.first?.time == Milliseconds(Self.epoch + 20) * 1_000, "the begin at InactiveExitTimestamp")
        #expect(clean.first?.monotonicMicroseconds == 20_000_000)
        #expect(clean.map(\.wasSeenOnlyOver) == [true, false])
        #expect(clean.last?.time == Milliseconds(Self.epoch + 22) * 1_000)
        #expect(mapper.map(snapshot("inactive", Self.runB, began: 20, changed: 22)).isEmpty, "seen once")

        let failed = mapper.map(snapshot("failed", Self.runC, result: "exit-code", began: 30, changed: 31))
        #expect(failed.map(\.transition.endsRun) == [false, true])
        #expect(failed.first?.transition == .began)
        #expect(mapper.map(snapshot("inactive", Self.runB, began: 20, changed: 40)).isEmpty, "a superseded run")
    }

    @Test("a listing shows no run seen only over: what ended unseen before it is the journal's to tell")
    func listingShowsNoUnseenRun() {
        var mapper = SystemdUnitMapper()
        mapper.baseline(snapshot("inactive", Self.runA, began: 10, changed: 11))
        #expect(mapper.map(snapshot("inactive", Self.runB, began: 20, changed: 22), listed: true).isEmpty)
        var fresh = SystemdUnitMapper()
        #expect(fresh.map(snapshot("inactive", Self.runB, began: 20, changed: 22), listed: true).isEmpty,
            "a unit a listing shows first, its last run over: a baseline")
        #expect(fresh.map(snapshot("active", Self.runC, began: 30, changed: 30), listed: true).map(\.transition) == [.began])
    }

    @Test("a crash loop's run seen only waiting for its restart is one run that failed")
    func coalescedRestart() {
        var mapper = SystemdUnitMapper()
        mapper.baseline(snapshot("inactive", Self.runA, began: 10, changed: 11))
        let transitions = mapper.map(
            snapshot("activating", Self.runB, result: "exit-code", began: 20, changed: 21, sub: "auto-restart")
        )
        #expect(transitions.count == 2)
        #expect(transitions.first?.transition == .began)
        if case .failed = transitions.last?.transition {} else { Issue.record("not a failure: \(transitions)") }
    }

    @Test(
        "no run: a start ExecCondition= skipped, one the start limit refused, a run older than what was seen, a unit loaded with its new id before it left inactive"
    )
    func notARun() {
        var mapper = SystemdUnitMapper()
        mapper.baseline(snapshot("inactive", Self.runA, began: 10, changed: 30))
        #expect(mapper.map(snapshot("inactive", Self.runB, result: "exec-condition", began: 40, changed: 41)).isEmpty)
        #expect(mapper.map(snapshot("failed", Self.runC, result: "start-limit-hit", began: 42, changed: 43)).isEmpty)
        #expect(mapper.map(snapshot("inactive", "d" + String(repeating: "0", count: 31), began: 20, changed: 44)).isEmpty,
            "left inactive before the state change already seen: not a run between the two")

        // Measured on systemd 252: a unit loaded by its start job sends its new InvocationID first with ActiveState
        // inactive and no state change yet (every timestamp 0), then activating, then inactive.
        var fresh = SystemdUnitMapper()
        #expect(fresh.map(snapshot("inactive", Self.runB, began: 0, changed: 0)).isEmpty)
        let begun = fresh.map(snapshot("activating", Self.runB, began: 50, changed: 50, sub: "start"))
        #expect(begun.map(\.transition) == [.began])
        #expect(begun.first?.wasSeenOnlyOver == false)
        #expect(fresh.map(snapshot("inactive", Self.runB, began: 50, changed: 51)).map(\.transition) == [.endedCleanly])
    }

    @Test("a snapshot held while runs were recovered from the journal is older than those runs: no run")
    func olderThanNotedRuns() {
        var mapper = SystemdUnitMapper()
        mapper.baseline(snapshot("inactive", Self.runA, began: 10, changed: 11))
        // The journal told of run C, begun at second 60 and over at 61; the listing seen last changed at second 11.
        for transition in [RunTransition.began, .endedCleanly] {
            mapper.note(MappedTransition(
                unit: "web.service", transition: transition, invocationID: Self.runC,
                time: Milliseconds(Self.epoch + 60) * 1_000,
                monotonicMicroseconds: transition == .began ? 60_000_000 : 61_000_000
            ))
        }
        // A snapshot of run B (began at 40), held meanwhile: the runs noted since are newer.
        #expect(mapper.map(snapshot("inactive", Self.runB, began: 40, changed: 41)).isEmpty)
        #expect(mapper.map(snapshot("inactive", "e" + String(repeating: "0", count: 31), began: 70, changed: 71))
            .map(\.transition) == [.began, .endedCleanly], "a run after them is one")
    }

    @Test("a snapshot held while a run's end alone was recovered from the journal is older than that end: no run")
    func olderThanNotedEnd() {
        var mapper = SystemdUnitMapper()
        mapper.baseline(snapshot("active", Self.runA, began: 10, changed: 11))
        mapper.note(MappedTransition(
            unit: "web.service", transition: .endedCleanly, invocationID: Self.runC,
            time: Milliseconds(Self.epoch + 61) * 1_000, monotonicMicroseconds: 61_000_000
        ))
        #expect(mapper.map(snapshot("inactive", Self.runB, began: 40, changed: 41)).isEmpty)
    }

    @Test("a run followed by another that began live is superseded: a late snapshot of it begins nothing")
    func liveRunSuperseded() {
        var mapper = SystemdUnitMapper()
        mapper.baseline(snapshot("inactive", "f" + String(repeating: "0", count: 31), began: 1, changed: 2))
        #expect(mapper.map(snapshot("active", Self.runA, began: 10, changed: 10)).map(\.transition) == [.began])
        #expect(mapper.map(snapshot("active", Self.runB, began: 20, changed: 20)).map(\.transition) == [.began])
        #expect(mapper.map(snapshot("active", Self.runA, began: 10, changed: 25)).isEmpty)
    }
}
