// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// A manual or custom event that somebody sends to lifecycled (over D-Bus, from `lifecyclectl`).
public struct EventRequest: Sendable, Equatable {
    public enum Event: Sendable, Equatable {
        /// A manual launch, wake or sleep: only for units whose autotracking is disabled.
        case lifecycle(LifecycleEvent)
        /// A custom event with this name.
        case custom(String)
    }

    public var unit: String
    public var event: Event
    public var data: [String: JSONValue]

    public init(unit: String, event: Event, data: [String: JSONValue] = [:]) {
        self.unit = unit
        self.event = event
        self.data = data
    }
}

extension LifecycleDaemon {
    /// Records and dispatches a manual or custom event at the current time.
    ///
    /// - Returns: the dispatch's sequence number, or 0 when the event was counted but is not in
    ///   `tracked_lifecycle_events`.
    public func send(_ request: EventRequest) -> Result<UInt64, EventRequestError> {
        let now = Self.now()
        let result = switch request.event {
        case .lifecycle(let event): tracker.manual(event, unit: request.unit, data: request.data, now: now)
        case .custom(let name): tracker.custom(name, unit: request.unit, data: request.data, now: now)
        }
        return result.map { effects in
            perform(effects)
            return effects.reduce(0) { sequence, effect in
                if case .dispatch(_, _, _, _, let dispatched, _) = effect { dispatched } else { sequence }
            }
        }
    }

    /// The stored record of `unit`, nil when it has none; without its pending dispatches, which are the delivery's
    /// bookkeeping rather than the unit's state.
    public func record(of unit: String) -> UnitRecord? { tracker.records[unit].map(Self.withoutPending) }

    /// Every stored record, sorted by unit name, as ``record(of:)`` gives it.
    public func records() -> [UnitRecord] { tracker.records.values.sorted { $0.unit < $1.unit }.map(Self.withoutPending) }

    private static func withoutPending(_ record: UnitRecord) -> UnitRecord {
        var record = record
        record.pendingDispatches = []
        return record
    }
}
