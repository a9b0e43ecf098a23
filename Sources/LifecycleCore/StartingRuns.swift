// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

/// Launches and wakes that wait for their run's start-up before they go to the journal.
///
/// A run seen to begin while its unit is still activating (`ExecStartPre=`, a `Type=notify` service before READY=1,
/// a oneshot) has no start-up yet. Its launch is made at once (counters, sequence number, state file: nothing waits
/// but the entry), and the entry waits until the unit is active, or the run is over (a oneshot's start-up is its
/// activation; a start that failed has none), then goes out with `LIFECYCLE_RUN_STARTUP_SECONDS`. The unit's later
/// dispatches wait behind it here, and go to the outbox with it, so its journal keeps the unit's order. A start that takes longer than
/// ``patience`` is written without its start-up, which its end carries; so is one waiting when lifecycled stops.
struct StartingRuns: Sendable {
    /// A launch or wake waiting for its run's start-up, with what its entry is made again from.
    struct Launch: Sendable, Equatable {
        var invocationID: String
        var sequence: UInt64
        var dispatch: Dispatch
        var kind: DispatchKind
        var version: String?
        /// When it is written without its start-up.
        var deadline: Uptime
        /// The unit's dispatches held back, in the order made: the launch's own first, then those made since.
        var held: [PendingDispatch] = []
    }

    /// How long a launch waits for its run to become active: systemd's default start timeout
    /// (`DefaultTimeoutStartSec=`), within which most starts are done or failed.
    static let patience: Milliseconds = 90_000

    private(set) var launches: [String: Launch] = [:]
    /// When the timer is armed for; nil when it is not.
    var armedAt: Uptime?

    var isEmpty: Bool { launches.isEmpty }

    subscript(unit: String) -> Launch? { launches[unit] }

    mutating func hold(_ launch: Launch, of unit: String) {
        launches[unit] = launch
    }

    /// Holds `dispatch` back when a launch of its unit waits.
    ///
    /// - Returns: whether it was held.
    mutating func hold(_ dispatch: PendingDispatch) -> Bool {
        guard launches[dispatch.unit] != nil else { return false }
        launches[dispatch.unit]?.held.append(dispatch)
        return true
    }

    mutating func remove(_ unit: String) -> Launch? {
        launches.removeValue(forKey: unit)
    }

    /// The units whose launch waited past its deadline at `now`, in name order.
    func overdue(at now: Uptime) -> [String] {
        launches.filter { $0.value.deadline <= now }.keys.sorted()
    }

    /// The earliest deadline, nil when nothing waits.
    var nextDeadline: Uptime? { launches.values.map(\.deadline).min() }
}
