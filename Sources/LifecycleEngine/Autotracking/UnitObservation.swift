// SPDX-License-Identifier: Apache-2.0

/// What happened to a watched unit, as the mapper reports it (docs/engine-semantics.md §10, "Runs of a systemd unit").
public enum UnitObservation: Sendable, Hashable {
    /// A new run (a new InvocationID) began: a new process lifetime. `version` is the unit's version at that moment,
    /// or nil when it is not known.
    case runBegan(version: String?)
    /// The current run ended cleanly (Result=success).
    case runEnded
    /// The current run failed; `details` (systemd's Result, exit code and status, NRestarts, …) go into the crash
    /// notice.
    case runFailed(details: [String: JSONValue])
    /// The unit's cgroup was frozen: it sleeps without ending its run.
    case frozen
    /// A frozen unit runs again, in the same run.
    case thawed
}

/// What the autotracker did with one observation.
public enum AutotrackResult: Sendable, Equatable {
    /// A lifecycle event was registered; the dispatch is nil when the event is not in `tracked_lifecycle_events`.
    case tracked(LifecycleEvent, Dispatch?)
    /// The engine refused the event (the reference swallows these); nothing changed.
    case refused(LifecycleEvent, LifecycleError)
    /// The run died without a sleep: a `crash` notice to dispatch now. Counters change only at the next launch.
    case crashNotice(Dispatch)
    /// Autotracking is disabled for this unit.
    case ignored
}
