// SPDX-License-Identifier: Apache-2.0

extension Duration {
    /// The duration in whole microseconds, rounded up and clamped to `0...UInt64.max`, the unit of every sd-bus and
    /// sd-daemon timeout (`uint64_t usec`).
    ///
    /// Rounding up matters: a timeout that rounds down to 0 means "use the default" to `sd_bus_call_async`, and a
    /// poll timeout that rounds down makes a loop spin.
    public var microsecondsRoundedUp: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let attosecondsPerMicrosecond: Int64 = 1_000_000_000_000
        var micros = attoseconds / attosecondsPerMicrosecond
        if attoseconds % attosecondsPerMicrosecond != 0 { micros += 1 }
        let (wholeSeconds, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000)
        if overflow { return .max }
        let (total, overflow2) = wholeSeconds.addingReportingOverflow(UInt64(micros))
        return overflow2 ? .max : total
    }

    /// A duration from a microsecond count such as `WATCHDOG_USEC`.
    public static func microsecondsValue(_ usec: UInt64) -> Duration {
        .seconds(Int64(usec / 1_000_000)) + .microseconds(Int64(usec % 1_000_000))
    }
}
