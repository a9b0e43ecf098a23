// SPDX-License-Identifier: Apache-2.0

extension Milliseconds {
    static let millisecondsPerDay: Milliseconds = 86_400_000

    /// Complete 24-hour periods from `start` to `self` (docs/engine-semantics.md §4.1, "Time and calendar
    /// conventions"): calendar days, midnight and DST play no part. Nil when `start` is unknown, before 1970, or later
    /// than `self` (a clock that moved back).
    public func daysSince(_ start: Milliseconds?) -> Int64? {
        guard let start, start >= 0, self >= start else { return nil }
        return (self - start) / Self.millisecondsPerDay
    }

    /// Whole seconds from `start` to `self`, truncated; never negative, even when the clock moved back.
    public func secondsSince(_ start: Milliseconds?) -> Int64 {
        guard let start else { return 0 }
        return Swift.max(0, (self - start) / 1_000)
    }
}
