// SPDX-License-Identifier: Apache-2.0

/// When `lifecyclectl status` calls a unit crash-looping: at least ``crashes`` failed runs within the last
/// ``minutes`` (configuration keys `crash_loop_crashes` and `crash_loop_minutes`).
public struct CrashLoopRule: Sendable, Equatable {
    public static let defaultCrashes = 3
    public static let defaultMinutes = 10

    /// How many failures make a loop.
    public var crashes: Int
    /// How far back failures count, in minutes.
    public var minutes: Int

    public init(crashes: Int = CrashLoopRule.defaultCrashes, minutes: Int = CrashLoopRule.defaultMinutes) {
        self.crashes = crashes
        self.minutes = minutes
    }

    /// True when at least ``crashes`` of `crashTimes` lie within the last ``minutes`` before `now`. A time after
    /// `now` (the clock was set back) counts as recent.
    public func isLooping(_ crashTimes: [Milliseconds], now: Milliseconds) -> Bool {
        let since = now - Milliseconds(minutes) * 60_000
        return crashTimes.count { $0 >= since } >= crashes
    }
}
