// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// What a start asks of PID 1's journal about the timers that elapsed while lifecycled was away: the failed start
/// jobs (``FailedStartJob``) of their units after the last elapse lifecycled resolved of each, up to when the timers
/// were read (docs/journal.md, "Timers").
public struct MissedStartQuery: Sendable, Hashable {
    /// A timer that elapsed meanwhile: the unit it starts, and the time after which its failures were not seen.
    public struct Timer: Sendable, Hashable {
        public var unit: String
        public var since: Milliseconds

        public init(unit: String, since: Milliseconds) {
            self.unit = unit
            self.since = since
        }
    }

    /// By timer name.
    public var timers: [String: Timer]
    /// Failures logged after this (ms since the epoch) are the live ones'.
    public var until: Milliseconds

    public init(timers: [String: Timer], until: Milliseconds) {
        self.timers = timers
        self.until = until
    }

    /// The units to read, each from the earliest time any of its timers asks.
    public var units: [String: Milliseconds] {
        var units: [String: Milliseconds] = [:]
        for timer in timers.values { units[timer.unit] = min(units[timer.unit] ?? timer.since, timer.since) }
        return units
    }
}
