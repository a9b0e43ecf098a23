// SPDX-License-Identifier: Apache-2.0

/// Turns observations of a unit into launch, wake and sleep (docs/engine-semantics.md §10, "Runs of a systemd unit"),
/// replacing the reference's app-status rules: a unit's run is not an app process.
///
/// A run that begins is a **launch** when the unit has no history, when its last event is launch or wake (the previous
/// run died without a sleep, so the engine detects a crash), when its version changed, or when it slept longer than
/// `session_timeout`; otherwise it is a **wake**. A clean end is a sleep; a failure is a crash notice and no sleep.
public struct Autotracker: Sendable {
    /// The name of the dispatch sent when a run fails.
    public static let crashEventName = "crash"

    public var engine: LifecycleEngine

    public init(engine: LifecycleEngine) {
        self.engine = engine
    }

    /// Applies one observation made at `time` to the unit's state.
    public func observe(_ observation: UnitObservation, at time: Milliseconds, state: inout UnitState) -> AutotrackResult {
        guard engine.settings.autotrackingEnabled else { return .ignored }
        switch observation {
        case .runBegan(let version):
            state.hasLaunchedInRun = false
            let event: LifecycleEvent = beginsSession(at: time, version: version, state: state) ? .launch : .wake
            return track(event, at: time, version: version, state: &state)
        case .thawed:
            let event: LifecycleEvent = beginsSession(at: time, version: nil, state: state) ? .launch : .wake
            return track(event, at: time, version: nil, state: &state)
        case .runEnded, .frozen:
            return track(.sleep, at: time, version: nil, state: &state)
        case .runFailed(let details):
            var data = details
            data["autotracked"] = .bool(true)
            return .crashNotice(Dispatch(name: Self.crashEventName, time: time, lifecycle: nil, customData: data))
        }
    }

    /// True when a start at `time` is a launch rather than a wake.
    public func beginsSession(at time: Milliseconds, version: String?, state: UnitState) -> Bool {
        guard state.lastEvent == .sleep, let lastSleep = state.lastSleep else {
            return true  // first run ever, or the previous run never slept (a crash)
        }
        if let version, let stored = state.version, version != stored {
            return true  // an update is always a new process
        }
        let settings = engine.settings
        if settings.isInfiniteSession { return false }
        // docs/engine-semantics.md §8, "Autotracking and session timeout": strictly greater, for every timeout; with 0,
        // a start 0 ms after the stop is a wake.
        return time - lastSleep > Milliseconds(settings.sessionTimeoutMinutes) * 60_000
    }

    private func track(
        _ event: LifecycleEvent,
        at time: Milliseconds,
        version: String?,
        state: inout UnitState
    ) -> AutotrackResult {
        switch engine.track(event, at: time, state: &state, version: version, origin: .autotracked) {
        case .success(let dispatch): .tracked(event, dispatch)
        case .failure(let error): .refused(event, error)
        }
    }
}
