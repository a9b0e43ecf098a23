// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// Event order, the two refusals, the tracked-events filter, data targets and custom data (docs/engine-semantics.md §2,
/// §7 and §9).
struct EventRulesTests {
    let t = at("2026-03-03T10:00:00Z")

    func refusal(_ engine: LifecycleEngine, _ event: LifecycleEvent, _ state: inout UnitState) -> LifecycleError? {
        if case .failure(let error) = engine.track(event, at: t + hour, state: &state) { return error }
        return nil
    }

    @Test("manual events are refused while autotracking is on, before the order is checked")
    func manualTrackNotAllowed() {
        let engine = makeEngine(autotracking: true)
        var state = UnitState()
        for event in LifecycleEvent.allCases {
            #expect(refusal(engine, event, &state) == .manualTrackNotAllowed)
        }
        #expect(state == UnitState())
    }

    @Test("a fresh unit refuses wake and sleep")
    func freshUnit() {
        var state = UnitState()
        #expect(refusal(makeEngine(), .wake, &state) == .invalidEventOrder)
        #expect(refusal(makeEngine(), .sleep, &state) == .invalidEventOrder)
        #expect(state == UnitState())
    }

    @Test("within one run a launch must follow a sleep; a refused event changes nothing")
    func orderWithinRun() {
        var unit = Subject()
        unit.track(.launch, t)
        let before = unit.state
        #expect(refusal(unit.engine, .launch, &unit.state) == .invalidEventOrder)
        #expect(refusal(unit.engine, .wake, &unit.state) == .invalidEventOrder)
        #expect(unit.state == before)
        unit.track(.sleep, t + minute)
        #expect(refusal(unit.engine, .sleep, &unit.state) == .invalidEventOrder)
        let relaunch = unit.track(.launch, t + hour)  // same run, after a sleep: accepted, no crash
        #expect(relaunch["lifecycle_diddetectcrash"] == nil)
        #expect(relaunch["lifecycle_launchcount"] == .int(2))
    }

    @Test("a new run may start with a wake after a sleep, or a sleep after a launch")
    func newRunWithoutLaunch() {
        var unit = Subject()
        unit.track(.launch, t)
        unit.track(.sleep, t + minute)
        unit.newProcess()
        #expect(unit.track(.wake, t + hour)["lifecycle_type"] == .string("wake"))
        unit.newProcess()
        #expect(unit.track(.sleep, t + 2 * hour)["lifecycle_type"] == .string("sleep"))
    }

    @Test("events left out of tracked_lifecycle_events are counted but not dispatched")
    func trackedFilter() {
        let engine = makeEngine(tracked: [.launch])
        var state = UnitState()
        #expect(engine.track(.launch, at: t, state: &state) .map { $0 != nil } == .success(true))
        #expect(engine.track(.sleep, at: t + minute, state: &state) == .success(nil))
        #expect(engine.track(.wake, at: t + hour, state: &state) == .success(nil))
        #expect(state.sleepCount == 1)
        #expect(state.wakeCount == 2)
        #expect(state.lastEvent == .wake)

        let nothing = makeEngine(tracked: [])
        var other = UnitState()
        #expect(nothing.track(.launch, at: t, state: &other) == .success(nil))
        #expect(other.launchCount == 1)
    }

    @Test("custom events carry only their own data under lifecycleEventsOnly")
    func lifecycleEventsOnly() {
        var unit = Subject()
        unit.track(.launch, t)
        let dispatch = unit.engine.trackCustom("deploy", at: t + hour, state: unit.state, data: ["k": .string("v")])
        #expect(dispatch.lifecycle == nil)
        #expect(dispatch.payload == ["k": .string("v")])
        #expect(dispatch.name == "deploy")
    }

    @Test("under allEvents a custom event before any launch has counters but no first-launch date")
    func allEventsBeforeLaunch() {
        let unit = Subject(makeEngine(dataTarget: .allEvents))
        expectPayload(unit.custom(t), [
            "lifecycle_dayofweek_local": .int(3),
            "lifecycle_hourofday_local": .int(10),
            "lifecycle_launchcount": .int(0),
            "lifecycle_wakecount": .int(0),
            "lifecycle_sleepcount": .int(0),
            "lifecycle_totallaunchcount": .int(0),
            "lifecycle_totalwakecount": .int(0),
            "lifecycle_totalsleepcount": .int(0),
            "lifecycle_totalcrashcount": .int(0),
            "lifecycle_secondsawake": .int(0),
            "lifecycle_totalsecondsawake": .int(0),
        ])
    }

    @Test("under allEvents a custom event never carries type, flags, prior seconds or autotracked")
    func allEventsOmissions() {
        var unit = Subject(makeEngine(dataTarget: .allEvents))
        unit.track(.launch, t, version: "1")
        let custom = unit.custom(t + minute)
        for key in ["lifecycle_type", "lifecycle_priorsecondsawake", "lifecycle_isfirstlaunch",
                    "lifecycle_isfirstwaketoday", "lifecycle_isfirstwakemonth", "lifecycle_diddetectcrash", "autotracked"] {
            #expect(custom[key] == nil, "\(key)")
        }
        #expect(custom["lifecycle_secondsawake"] == .int(60))
        #expect(custom["lifecycle_firstlaunchdate"] == iso(t))
    }

    @Test("the caller's data is merged over the lifecycle data")
    func customDataWins() {
        let engine = makeEngine()
        var state = UnitState()
        let result = engine.track(.launch, at: t, state: &state, data: ["lifecycle_launchcount": .string("mine"), "x": .int(1)])
        guard case .success(let dispatch?) = result else {
            Issue.record("launch not dispatched")
            return
        }
        #expect(dispatch.payload["lifecycle_launchcount"] == .string("mine"))
        #expect(dispatch.payload["x"] == .int(1))
        #expect(dispatch.payload["lifecycle_isfirstlaunch"] == .bool(true))
        #expect(state.launchCount == 1)
    }
}
