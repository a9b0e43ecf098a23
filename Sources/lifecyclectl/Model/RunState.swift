// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// Where a unit's last run stands, as lifecycled recorded it (not systemd's live `ActiveState`).
enum RunState: String, Sendable, Equatable {
    /// The last run began (a launch or wake) and has not ended.
    case running
    /// The last run ended cleanly with a sleep (or the unit's cgroup was frozen).
    case stopped
    /// The last run ended without a sleep: lifecycled sent a crash notice.
    case failed

    /// The state of `record`; nil before its first event.
    init?(record: UnitRecord) {
        switch record.state.lastEvent {
        case nil: return nil
        case .sleep: self = .stopped
        // A crash notice leaves the last event at launch or wake (the next launch counts the crash) but ends the run.
        case .launch, .wake: self = record.runEnded ? .failed : .running
        }
    }
}
