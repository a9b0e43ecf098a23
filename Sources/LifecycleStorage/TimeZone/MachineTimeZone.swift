// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The machine's zone, found the way glibc's `tzset()` finds it, and how it was found.
public struct MachineTimeZone: Sendable, Equatable {
    /// The zone's rules.
    public var rules: TimeZoneRules
    /// Where they came from, for messages: `TZ`, the path of `/etc/localtime`, or `default`.
    public var origin: String
    /// Why the rules are UTC although something else was asked for (a `TZ` that names nothing usable, an unreadable
    /// `/etc/localtime`). glibc says nothing then; lifecycled reports it.
    public var problem: String?

    /// A zone and how it was found.
    public init(rules: TimeZoneRules, origin: String, problem: String? = nil) {
        self.rules = rules
        self.origin = origin
        self.problem = problem
    }
}
