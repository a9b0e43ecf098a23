// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// The mapping of runs to launch, wake, sleep and crash notices (docs/engine-semantics.md §10, "Runs of a systemd
/// unit"), including the session-timeout edges.
struct AutotrackerTests {
    let t = at("2026-03-03T10:00:00Z")

    struct Unit {
        var tracker: Autotracker
        var state = UnitState()

        init(sessionTimeout: Int = LifecycleSettings.defaultSessionTimeoutMinutes, autotracking: Bool = true) {
            tracker = Autotracker(engine: makeEngine(autotracking: autotracking, sessionTimeout: sessionTimeout))
        }

        mutating func observe(_ observation: UnitObservation, _ time: Milliseconds) -> AutotrackResult {
            tracker.observe(observation, at: time, state: &state)
        }

        /// The event a start at `time` becomes, with its payload.
        mutating func start(_ time: Milliseconds, version: String? = nil) -> (LifecycleEvent?, [String: JSONValue]) {
            switch observe(.runBegan(version: version), time) {
            case .tracked(let event, let dispatch): return (event, dispatch?.payload ?? [:])
            default: return (nil, [:])
            }
        }
    }

    @Test("the first run is a launch, marked autotracked")
    func firstRun() {
        var unit = Unit()
        let (event, payload) = unit.start(t, version: "1")
        #expect(event == .launch)
        #expect(payload["autotracked"] == .bool(true))
        #expect(payload["lifecycle_isfirstlaunch"] == .bool(true))
    }

    @Test("a restart within the session is a wake")
    func restartIsWake() {
        var unit = Unit()
        _ = unit.start(t)
        #expect(unit.observe(.runEnded, t + minute) != .ignored)
        let (event, payload) = unit.start(t + 2 * minute)
        #expect(event == .wake)
        #expect(payload["lifecycle_secondsawake"] == .int(60))
        #expect(payload["autotracked"] == .bool(true))
    }

    @Test("sleeping exactly the session timeout is still a wake; a millisecond more is a launch")
    func timeoutEdges() {
        for (gap, expected) in [(10 * minute, LifecycleEvent.wake), (10 * minute + 1, .launch)] {
            var unit = Unit(sessionTimeout: 10)
            _ = unit.start(t)
            _ = unit.observe(.runEnded, t + minute)
            let (event, payload) = unit.start(t + minute + gap)
            #expect(event == expected, "gap \(gap) ms")
            #expect(payload["lifecycle_diddetectcrash"] == nil)
        }
    }

    @Test("a session timeout of -1 or below never expires")
    func infiniteTimeout() {
        for timeout in [-1, -5] {
            var unit = Unit(sessionTimeout: timeout)
            _ = unit.start(t)
            _ = unit.observe(.runEnded, t + minute)
            #expect(unit.start(t + 400 * day).0 == .wake, "timeout \(timeout)")
        }
    }

    @Test("a session timeout of 0: a start 0 ms after the stop is a wake, 1 ms after it a launch (strictly greater)")
    func zeroTimeout() {
        var sameInstant = Unit(sessionTimeout: 0)
        _ = sameInstant.start(t)
        _ = sameInstant.observe(.runEnded, t + minute)
        #expect(sameInstant.start(t + minute).0 == .wake)

        var unit = Unit(sessionTimeout: 0)
        _ = unit.start(t)
        _ = unit.observe(.runEnded, t + minute)
        let (event, payload) = unit.start(t + minute + 1)
        #expect(event == .launch)
        #expect(payload["lifecycle_priorsecondsawake"] == .int(60))
    }

    @Test("a changed version makes a start a launch, flagged as the update")
    func versionChange() {
        var unit = Unit()
        _ = unit.start(t, version: "1")
        _ = unit.observe(.runEnded, t + minute)
        let (event, payload) = unit.start(t + 2 * minute, version: "2")
        #expect(event == .launch)
        #expect(payload["lifecycle_isfirstlaunchupdate"] == .bool(true))
        #expect(payload["lifecycle_launchcount"] == .int(1))
        #expect(payload["lifecycle_wakecount"] == .int(1))
        #expect(payload["lifecycle_sleepcount"] == .int(0))
    }

    @Test("a failed run gives a crash notice at once and a crash-detecting launch next")
    func crash() {
        var unit = Unit()
        _ = unit.start(t)
        let failure = unit.observe(.runFailed(details: ["result": .string("signal")]), t + minute)
        guard case .crashNotice(let notice) = failure else {
            Issue.record("expected a crash notice, got \(failure)")
            return
        }
        #expect(notice.name == "crash")
        #expect(notice.time == t + minute)
        #expect(notice.payload == ["result": .string("signal"), "autotracked": .bool(true)])
        #expect(unit.state.lastEvent == .launch)
        #expect(unit.state.totalCrashCount == 0)

        let (event, payload) = unit.start(t + 2 * minute)
        #expect(event == .launch)
        #expect(payload["lifecycle_diddetectcrash"] == .bool(true))
        #expect(payload["lifecycle_totalcrashcount"] == .int(1))
        #expect(payload["lifecycle_sleepcount"] == .int(0))
    }

    @Test("a stop with no running run is refused and changes nothing")
    func doubleStop() {
        var unit = Unit()
        _ = unit.start(t)
        _ = unit.observe(.runEnded, t + minute)
        let before = unit.state
        #expect(unit.observe(.runEnded, t + 2 * minute) == .refused(.sleep, .invalidEventOrder))
        #expect(unit.state == before)
    }

    @Test("freezing sleeps and thawing wakes within the same run")
    func freezeThaw() {
        var unit = Unit()
        _ = unit.start(t)
        guard case .tracked(.sleep, _) = unit.observe(.frozen, t + minute) else {
            Issue.record("frozen did not sleep")
            return
        }
        guard case .tracked(.wake, _) = unit.observe(.thawed, t + 2 * minute) else {
            Issue.record("thawed did not wake")
            return
        }
        #expect(unit.state.hasLaunchedInRun)
    }

    @Test("with autotracking off, observations are ignored")
    func disabled() {
        var unit = Unit(autotracking: false)
        #expect(unit.observe(.runBegan(version: "1"), t) == .ignored)
        #expect(unit.state == UnitState())
    }
}
