// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

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
