// SPDX-License-Identifier: Apache-2.0

/// Parses RFC 3339 timestamps such as `2026-03-01T10:00:00.000Z` or `2026-03-01T11:00:00+01:00`.
///
/// Fractional seconds beyond milliseconds are truncated; a zone (`Z` or an offset) is required, so a timestamp never
/// depends on the machine it is read on.
public enum TimestampParser {
    /// The instant `text` names, or nil when it is not an RFC 3339 date-time with a zone.
    public static func milliseconds(from text: String) -> Milliseconds? {
        var text = text
        return text.withUTF8 { parse(Array($0)) }
    }

    private static func parse(_ b: [UInt8]) -> Milliseconds? {
        var i = 0
        func number(_ width: Int) -> Int64? {
            guard i + width <= b.count else { return nil }
            var value: Int64 = 0
            for _ in 0..<width {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int64(b[i] - 0x30)
                i += 1
            }
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard i < b.count, characters.utf8.contains(b[i]) else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("Tt "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...daysInMonth(year, month)).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }

        var millisecond: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                if digits < 3 { millisecond = millisecond * 10 + Int64(b[i] - 0x30) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(3, digits) { millisecond *= 10 }
        }

        var offsetSeconds: Int64 = 0
        guard i < b.count else { return nil }
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else {
            let sign: Int64 = b[i] == UInt8(ascii: "-") ? -1 : 1
            guard expect("+-"), let offsetHours = number(2) else { return nil }
            _ = expect(":")
            guard let offsetMinutes = number(2), offsetHours < 24, offsetMinutes < 60 else { return nil }
            offsetSeconds = sign * (offsetHours * 3_600 + offsetMinutes * 60)
        }
        guard i == b.count else { return nil }

        let days = daysFromCivil(year, month, day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + min(second, 59) - offsetSeconds
        return seconds * 1_000 + millisecond
    }

    private static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the inverse of ``CivilDate``).
    static func daysFromCivil(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
