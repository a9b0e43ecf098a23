// SPDX-License-Identifier: Apache-2.0

/// A POSIX TZ rule (POSIX.1 XBD 8.3): a standard offset and, optionally, a daylight-saving offset with the yearly
/// rules for when it starts and ends. It is the footer of a TZif file and may also be the value of `TZ` itself.
///
/// Offsets here are seconds **east** of UTC, the opposite sign of the string (`CET-1` is +3600).
public struct PosixTimeZone: Sendable, Equatable {
    /// The offset of standard time.
    public let standardOffset: Int32
    /// Daylight-saving time, nil for a zone with one offset all year (`UTC0`, `<+0545>-5:45`).
    public let daylight: Daylight?

    /// The daylight-saving part of a rule.
    public struct Daylight: Sendable, Equatable {
        /// The offset of daylight-saving time.
        public let offset: Int32
        /// When it starts each year, in local standard time.
        public let start: Transition
        /// When it ends each year, in local daylight-saving time.
        public let end: Transition
    }

    /// A yearly switch: a day of the year and a local wall-clock time on it.
    public struct Transition: Sendable, Equatable {
        /// The day.
        public let date: RuleDate
        /// Seconds after local midnight of that day; POSIX.1-2024 and TZif version 3 allow -167 to 167 hours.
        public let time: Int32
    }

    /// The day of a switch, in the three forms a rule may use.
    public enum RuleDate: Sendable, Equatable {
        /// `Jn`: day 1 to 365, February 29 never counted (`J60` is always March 1).
        case julian(Int64)
        /// `n`: day 0 to 365, February 29 counted in leap years.
        case zeroBased(Int64)
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (1 to 5, 5 = the last) of month `m`.
        case monthWeekDay(month: Int64, week: Int64, weekday: Int64)
    }

    /// A rule with one offset all year, or with daylight-saving time.
    public init(standardOffset: Int32, daylight: Daylight? = nil) {
        self.standardOffset = standardOffset
        self.daylight = daylight
    }

    /// The offset east of UTC, in seconds, at an instant.
    ///
    /// The switches of the year before, of the instant's year and of the year after are compared, so rules whose
    /// switch times spill over a new year (allowed since TZif version 3) and southern-hemisphere rules (start after
    /// end) need no special case. When a year's end and the next year's start fall on the same instant, daylight
    /// time wins: that is how zic writes "daylight time all year" (`EST5EDT,0/0,J365/25`).
    func secondsFromGMT(at seconds: Int64) -> Int32 {
        guard let daylight else { return standardOffset }
        let year = CivilDate(secondsSince1970: seconds + Int64(standardOffset)).year
        var latest = Int64.min
        var isDaylight = false
        for candidate in (year - 1)...(year + 1) {
            let end = daylight.end.instant(in: candidate, offsetBefore: daylight.offset)
            if end <= seconds, end > latest {
                latest = end
                isDaylight = false
            }
            let start = daylight.start.instant(in: candidate, offsetBefore: standardOffset)
            if start <= seconds, start >= latest {
                latest = start
                isDaylight = true
            }
        }
        return isDaylight ? daylight.offset : standardOffset
    }
}

extension PosixTimeZone.Transition {
    /// The instant of this switch in `year`, given the offset in force just before it (its time is wall-clock time).
    func instant(in year: Int64, offsetBefore: Int32) -> Int64 {
        date.daysSince1970(in: year) * 86_400 + Int64(time) - Int64(offsetBefore)
    }
}

extension PosixTimeZone.RuleDate {
    /// The day, counted from 1970-01-01, that this rule names in `year`.
    func daysSince1970(in year: Int64) -> Int64 {
        switch self {
        case .julian(let day):
            let skipsFebruary29 = CivilDate.isLeapYear(year) && day >= 60
            return CivilDate.daysSince1970(year: year, month: 1, day: 1) + day - 1 + (skipsFebruary29 ? 1 : 0)
        case .zeroBased(let day):
            return CivilDate.daysSince1970(year: year, month: 1, day: 1) + day
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDate.daysSince1970(year: year, month: month, day: 1)
            let firstWeekday = CivilDate.weekdayFromSunday(daysSince1970: first)
            var day = (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
            // Week 5 means the last such weekday, which may be the fourth.
            let length = CivilDate.daysInMonth(year: year, month: month)
            while day >= length { day -= 7 }
            return first + day
        }
    }
}
