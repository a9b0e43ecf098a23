// SPDX-License-Identifier: Apache-2.0

/// A moment on the machine's monotonic clock (`CLOCK_MONOTONIC`), in milliseconds: it never steps, so every deadline
/// and interval lifecycled keeps is taken on it (a retry, a look at the journal, a launch waiting for its start-up,
/// a unit gone long enough to archive). The wall clock (``Milliseconds`` since the epoch) only dates things: events,
/// dispatches, when a degradation began; `date -s`, NTP's first sync or a VM resumed move it, and with it nothing
/// that waits (docs/architecture.md, "Two clocks").
public struct Uptime: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// The first moment: before anything was scheduled.
    public static let zero = Uptime(milliseconds: 0)
    /// After every moment: a deadline that never comes.
    public static let distantFuture = Uptime(milliseconds: .max)

    public static func < (lhs: Uptime, rhs: Uptime) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// `interval` ms later (earlier when negative), saturating at the ends.
    public static func + (lhs: Uptime, interval: Milliseconds) -> Uptime {
        let (sum, overflow) = lhs.milliseconds.addingReportingOverflow(interval)
        return Uptime(milliseconds: overflow ? (interval > 0 ? .max : .min) : sum)
    }

    public static func - (lhs: Uptime, interval: Milliseconds) -> Uptime { lhs + (-interval) }

    /// The time from `rhs` to `lhs`, in ms.
    public static func - (lhs: Uptime, rhs: Uptime) -> Milliseconds { lhs.milliseconds &- rhs.milliseconds }

    public var description: String { "uptime \(milliseconds) ms" }
}
