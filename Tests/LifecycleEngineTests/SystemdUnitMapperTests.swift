// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// The mapper against the snapshot sequences systemd 252 was measured to send (docs/systemd.md, "Signal sequences
/// (systemd 252)").
struct SystemdUnitMapperTests {
    static let runA = "51b4568c2847494e979350bcda548111"
    static let runB = "ba95eddd8573457db7156b34225f2bd8"

    func snap(
        _ state: String,
        _ sub: String,
        _ id: String = runA,
        result: String? = "success",
        code: Int32? = nil,
        status: Int32? = nil,
        freezer: String? = "running",
        at seconds: UInt64 = 1_772_359_200
    ) -> UnitSnapshot {
        UnitSnapshot(
            name: "web.service", activeState: ActiveState(state), subState: sub, invocationID: id, result: result,
            nRestarts: 0, execMainCode: code, execMainStatus: status, freezerState: freezer,
            stateChangeTimestamp: seconds * 1_000_000, stateChangeTimestampMonotonic: 42
        )
    }

    /// Feeds the snapshots in order and returns every transition.
    func run(_ snapshots: [UnitSnapshot], baseline: UnitSnapshot? = nil) -> [RunTransition] {
        var mapper = SystemdUnitMapper()
        if let baseline { mapper.baseline(baseline) }
        return snapshots.flatMap { mapper.map($0).map(\.transition) }
    }

    @Test("a start of a simple service begins one run, whatever the duplicates")
    func start() {
        let transitions = run([
            snap("inactive", "dead"), snap("active", "running"), snap("active", "running"),
        ])
        #expect(transitions == [.began])
    }

    @Test("a reload keeps the run; a stop ends it cleanly although SIGTERM killed it")
    func reloadThenStop() {
        let transitions = run([
            snap("active", "running"), snap("reloading", "reload"), snap("active", "running"),
            snap("deactivating", "stop-sigterm"), snap("inactive", "dead", code: 2, status: 15),
        ])
        #expect(transitions == [.began, .endedCleanly])
    }

    @Test("a restart ends one run and begins the next")
    func restart() {
        let transitions = run([
            snap("active", "running"), snap("deactivating", "stop-sigterm"), snap("inactive", "dead"),
            snap("inactive", "dead", Self.runB), snap("active", "running", Self.runB),
        ])
        #expect(transitions == [.began, .endedCleanly, .began])
    }

    @Test("a crash with Restart= fails once, through failed and auto-restart, then a new run begins")
    func crashWithRestart() {
        let transitions = run([
            snap("active", "running"),
            snap("deactivating", "stop-sigterm", result: "signal", code: 2, status: 9),
            snap("failed", "failed", result: "signal", code: 2, status: 9),
            snap("activating", "auto-restart", result: "signal", code: 2, status: 9),
            snap("activating", "auto-restart", result: "signal", code: 2, status: 9),
            snap("inactive", "dead", Self.runB), snap("active", "running", Self.runB),
        ])
        #expect(transitions == [
            .began, .failed(CrashDetails(result: "signal", execMainCode: 2, execMainStatus: 9, nRestarts: 0)), .began,
        ])
    }

    @Test("systemd 254's failed-before-auto-restart is one failure too")
    func newerSubStates() {
        let transitions = run([
            snap("active", "running"),
            snap("failed", "failed-before-auto-restart", result: "exit-code", code: 1, status: 3),
            snap("activating", "auto-restart-queued", result: "exit-code", code: 1, status: 3),
            snap("active", "running", Self.runB),
        ])
        #expect(transitions.count == 3)
        #expect(transitions.last == .began)
    }

    @Test("a unit that fails to start begins and fails")
    func startFailure() {
        let transitions = run([
            snap("inactive", "dead"), snap("activating", "start"),
            snap("failed", "failed", result: "exit-code", code: 1, status: 203),
        ])
        #expect(transitions == [.began, .failed(CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 203, nRestarts: 0))])
    }

    @Test("a oneshot begins while activating and ends cleanly without ever being active")
    func oneshot() {
        let transitions = run([snap("inactive", "dead"), snap("activating", "start"), snap("inactive", "dead", code: 1, status: 0)])
        #expect(transitions == [.began, .endedCleanly])
    }

    @Test("reset-failed and re-announcements of an ended run are not events")
    func resetFailed() {
        let failed = snap("failed", "failed", result: "signal")
        let transitions = run([snap("active", "running"), failed, failed, snap("inactive", "dead", result: "success")])
        #expect(transitions.count == 2)
    }

    @Test("the first sighting is a baseline: a running unit's stop is the first event")
    func baselineRunning() {
        #expect(run([snap("active", "running"), snap("inactive", "dead")], baseline: snap("active", "running")) == [.endedCleanly])
    }

    @Test("a unit first seen failed produces nothing until a new run")
    func baselineFailed() {
        let failed = snap("failed", "failed", result: "exit-code")
        #expect(run([failed, snap("active", "running", Self.runB)], baseline: failed) == [.began])
    }

    @Test("freezing sleeps and thawing wakes within the run")
    func freezer() {
        let transitions = run([
            snap("active", "running"), snap("active", "running", freezer: "freezing"),
            snap("active", "running", freezer: "frozen"), snap("active", "running", freezer: "thawing"),
            snap("active", "running", freezer: "running"),
        ])
        #expect(transitions == [.began, .frozen, .thawed])
    }

    @Test("transitions carry systemd's timestamp and the run's id")
    func timestamps() {
        var mapper = SystemdUnitMapper()
        let mapped = mapper.map(snap("active", "running", at: 1_772_359_201))
        #expect(mapped == [MappedTransition(unit: "web.service", transition: .began, invocationID: Self.runA, time: 1_772_359_201_000, monotonicMicroseconds: 42)])
    }

    @Test("a snapshot older than the last one seen is ignored; one without a time is taken as it comes")
    func staleSnapshot() {
        var mapper = SystemdUnitMapper()
        var running = snap("active", "running")
        running.stateChangeTimestampMonotonic = 10
        var stopped = snap("inactive", "dead")
        stopped.stateChangeTimestampMonotonic = 20
        #expect(mapper.map(running).map(\.transition) == [.began])
        #expect(mapper.map(stopped).map(\.transition) == [.endedCleanly])
        var restarted = snap("active", "running", Self.runB)
        restarted.stateChangeTimestampMonotonic = 15
        #expect(mapper.map(restarted).isEmpty)
        restarted.stateChangeTimestampMonotonic = 0
        #expect(mapper.map(restarted).map(\.transition) == [.began])
    }

    @Test("a fresh unit's first signal (the run's id, no state change yet) that comes after the run was seen ends nothing")
    func firstSignalAfterTheRun() {
        var first = snap("inactive", "dead")
        first.stateChangeTimestamp = 0
        first.stateChangeTimestampMonotonic = 0
        // Seen through a listing, through a signal, and as the baseline of the first listing.
        var listed = SystemdUnitMapper()
        #expect(listed.map(snap("active", "running"), listed: true).map(\.transition) == [.began])
        #expect(listed.map(first).isEmpty)
        #expect(run([snap("active", "running"), first]) == [.began])
        #expect(run([first], baseline: snap("active", "running")).isEmpty)
        // Its real end still ends it.
        #expect(run([snap("active", "running"), first, snap("inactive", "dead")]) == [.began, .endedCleanly])
    }

    @Test("crash details are named like PID 1's journal fields")
    func crashData() {
        let details = CrashDetails(result: "signal", execMainCode: 2, execMainStatus: 9, nRestarts: 1)
        #expect(details.data == ["unit_result": .string("signal"), "exit_code": .string("killed"), "exit_status": .int(9), "n_restarts": .int(1)])
    }

    @Test("runs the journal showed superseded are ignored in later snapshots; only the newest few are remembered")
    func supersededRunsBounded() {
        var mapper = SystemdUnitMapper()
        let ids = (0..<1_000).map { String(repeating: "0", count: 32 - String($0, radix: 16).count) + String($0, radix: 16) }
        for id in ids {
            let began = MappedTransition(unit: "web.service", transition: .began, invocationID: id, time: nil, monotonicMicroseconds: 0, isReconciled: true)
            mapper.note(began)
        }
        // A late snapshot of the run before the newest (a listing taken before the journal was read) begins nothing.
        let late = snap("active", "running", ids[998])
        #expect(mapper.map(late).isEmpty)
        #expect(mapper.rememberedSupersededRuns(of: "web.service") == SystemdUnitMapper.supersededKept)
    }
}


/// `ExecCondition=` (measured on systemd 252: activating/condition, then inactive/dead with Result=exec-condition and
/// the same InvocationID; a check that passes goes on to start).
struct SystemdUnitMapperConditionTests {
    let mapperTests = SystemdUnitMapperTests()

    @Test("a start that ExecCondition= skips is no run: three skipped starts give nothing")
    func skipped() {
        let ids = [SystemdUnitMapperTests.runA, SystemdUnitMapperTests.runB, "0f1e2d3c4b5a69788796a5b4c3d2e1f0"]
        let transitions = mapperTests.run(ids.flatMap { id in
            [
                mapperTests.snap("activating", "condition", id),
                mapperTests.snap("inactive", "dead", id, result: "exec-condition"),
            ]
        })
        #expect(transitions == [])
    }

    @Test("a condition that passes: the run begins once the check is over, and ends as it ends")
    func passed() {
        let transitions = mapperTests.run([
            mapperTests.snap("activating", "condition"), mapperTests.snap("activating", "start"),
            mapperTests.snap("active", "running"), mapperTests.snap("inactive", "dead"),
        ])
        #expect(transitions == [.began, .endedCleanly])
    }

    @Test("a check that itself fails (exit status 255) is a failed start, not a skip")
    func checkFailed() {
        let transitions = mapperTests.run([
            mapperTests.snap("activating", "condition"),
            mapperTests.snap("failed", "failed", result: "exit-code", code: 1, status: 255),
        ])
        #expect(transitions == [.began, .failed(CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 255, nRestarts: 0))])
    }

    @Test("a skipped run seen only at its end (the check's snapshot coalesced away) gives nothing either")
    func skippedSeenLate() {
        let transitions = mapperTests.run([mapperTests.snap("inactive", "dead", result: "exec-condition")])
        #expect(transitions == [])
    }
}
