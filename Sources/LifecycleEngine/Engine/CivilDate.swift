// SPDX-License-Identifier: Apache-2.0

/// A proleptic Gregorian date and time of day, computed with integer arithmetic from a count of seconds.
///
/// Formatting dates is the hot path of every dispatch; this avoids `DateFormatter` entirely and is exact for every
/// representable instant (days-from-civil, after H. Hinnant's public-domain algorithms).
struct CivilDate: Equatable {
    var year: Int64
    var month: Int64   // 1...12
    var day: Int64     // 1...31
    var hour: Int64
    var minute: Int64
    var second: Int64
    /// 1 = Sunday ... 7 = Saturday, like `Calendar.component(.weekday)`.
    var weekday: Int64

    /// The civil date of `seconds` since 1970-01-01T00:00:00 (in whatever zone the seconds are already shifted to).
    init(secondsSince1970 seconds: Int64) {
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        hour = secondOfDay / 3_600
        minute = secondOfDay % 3_600 / 60
        second = secondOfDay % 60
        weekday = (days + 4).modulo(7) + 1  // 1970-01-01 was a Thursday (5)

        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }
}

func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

extension Int64 {
    fileprivate func modulo(_ n: Int64) -> Int64 {
        let r = self % n
        return r < 0 ? r + n : r
    }
}

extension CivilDate {
    /// Days from 1970-01-01 to a proleptic Gregorian date: the inverse of the conversion in ``init(secondsSince1970:)``.
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchBasedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(marchBasedYear, 400)
        let yearOfEra = marchBasedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// 0 = Sunday ... 6 = Saturday, the numbering of POSIX TZ rules.
    static func weekdayFromSunday(daysSince1970 days: Int64) -> Int64 {
        (days + 4).modulo(7)  // 1970-01-01 was a Thursday
    }

    static func isLeapYear(_ year: Int64) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
