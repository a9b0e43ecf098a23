// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Where a unit's last run stands, as lifecycled recorded it (not systemd's live `ActiveState`): the one rule for a
/// state file (``init(lastEvent:runEnded:)``) and for the journal (``JournaledDispatch/runState``).
public enum RunState: String, Sendable, Equatable {
    /// The last run began (a launch or wake) and has not ended.
    case running
    /// The last run ended cleanly with a sleep (or the unit's cgroup was frozen).
    case stopped
    /// The last run ended without a sleep: lifecycled sent a crash notice.
    case failed

    /// The state after the last lifecycle event; nil before the first.
    ///
    /// - Parameters:
    ///   - lastEvent: the engine's last event.
    ///   - runEnded: whether a crash notice ended the run: it leaves the last event at launch or wake (the next
    ///     launch counts the crash) but ends the run.
    public init?(lastEvent: LifecycleEvent?, runEnded: Bool) {
        switch lastEvent {
        case nil: return nil
        case .sleep: self = .stopped
        case .launch, .wake: self = runEnded ? .failed : .running
        }
    }
}
