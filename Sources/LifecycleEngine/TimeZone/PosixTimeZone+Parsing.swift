// SPDX-License-Identifier: Apache-2.0

extension PosixTimeZone {
    /// Parses a POSIX TZ rule: `std offset [dst [offset] [,start[/time],end[/time]]]`.
    ///
    /// Names are three or more letters, or anything of letters, digits, `+` and `-` in angle brackets (`<+0545>`).
    /// Offsets are `[+-]hh[:mm[:ss]]` **west** of UTC; the daylight offset defaults to one hour ahead of standard
    /// time. Switch times default to 02:00 and may be negative or up to 167 hours (TZif version 3). A rule with a
    /// daylight name but no switch dates uses the United States' rules, `M3.2.0,M11.1.0`, as glibc does.
    ///
    /// - Parameter text: the rule, without a leading `:`.
    /// - Throws: ``TimeZoneDataError`` naming what is wrong.
    public init(parsing text: String) throws(TimeZoneDataError) {
        var parser = Parser(Array(text.utf8), text: text)
        self = try parser.zone()
    }
}

/// A cursor over the bytes of a TZ string; each method consumes one element of the grammar or throws.
private struct Parser {
    let bytes: [UInt8]
    let text: String
    var index = 0

    init(_ bytes: [UInt8], text: String) {
        self.bytes = bytes
        self.text = text
    }

    /// The United States' rules since 2007: glibc's fallback when a rule names no dates.
    static let defaultStart = PosixTimeZone.Transition(date: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7_200)
    static let defaultEnd = PosixTimeZone.Transition(date: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7_200)

    mutating func zone() throws(TimeZoneDataError) -> PosixTimeZone {
        try name()
        let standard = try -offset(maximumHours: 24)
        if atEnd { return PosixTimeZone(standardOffset: standard) }
        try name()
        var daylightOffset = standard + 3_600
        if let next = peek, next != UInt8(ascii: ",") {
            daylightOffset = try -offset(maximumHours: 24)
        }
        var start = Self.defaultStart
        var end = Self.defaultEnd
        if !atEnd {
            try expect(",")
            start = try transition()
            try expect(",")
            end = try transition()
        }
        guard atEnd else { throw invalid("unexpected characters after the rule") }
        return PosixTimeZone(
            standardOffset: standard,
            daylight: PosixTimeZone.Daylight(offset: daylightOffset, start: start, end: end)
        )
    }

    private var atEnd: Bool { index == bytes.count }
    private var peek: UInt8? { atEnd ? nil : bytes[index] }

    private mutating func name() throws(TimeZoneDataError) {
        var length = 0
        if peek == UInt8(ascii: "<") {
            index += 1
            while let byte = peek, byte != UInt8(ascii: ">") {
                guard byte.isLetter || byte.isDigit || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") else {
                    throw invalid("a quoted zone name holds only letters, digits, '+' and '-'")
                }
                index += 1
                length += 1
            }
            guard peek != nil else { throw invalid("a '<' without its '>'") }
            index += 1
        } else {
            while let byte = peek, byte.isLetter {
                index += 1
                length += 1
            }
        }
        guard length >= 3 else { throw invalid("expected a zone name of at least three letters") }
    }

    /// `[+-]hh[:mm[:ss]]` in seconds, with the sign as written.
    private mutating func offset(maximumHours: Int64) throws(TimeZoneDataError) -> Int32 {
        var sign: Int64 = 1
        if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") {
            if peek == UInt8(ascii: "-") { sign = -1 }
            index += 1
        }
        let hours = try number(maximumDigits: 3, maximum: maximumHours, what: "hours")
        var seconds = hours * 3_600
        if peek == UInt8(ascii: ":") {
            index += 1
            seconds += try number(maximumDigits: 2, maximum: 59, what: "minutes") * 60
            if peek == UInt8(ascii: ":") {
                index += 1
                seconds += try number(maximumDigits: 2, maximum: 59, what: "seconds")
            }
        }
        return Int32(sign * seconds)
    }

    /// `date[/time]`.
    private mutating func transition() throws(TimeZoneDataError) -> PosixTimeZone.Transition {
        let date: PosixTimeZone.RuleDate
        switch peek {
        case UInt8(ascii: "J"):
            index += 1
            let day = try number(maximumDigits: 3, maximum: 365, what: "day")
            guard day >= 1 else { throw invalid("a Jn day counts from 1") }
            date = .julian(day)
        case UInt8(ascii: "M"):
            index += 1
            let month = try number(maximumDigits: 2, maximum: 12, what: "month")
            try expect(".")
            let week = try number(maximumDigits: 1, maximum: 5, what: "week")
            try expect(".")
            let weekday = try number(maximumDigits: 1, maximum: 6, what: "weekday")
            guard month >= 1, week >= 1 else { throw invalid("months and weeks count from 1") }
            date = .monthWeekDay(month: month, week: week, weekday: weekday)
        default:
            date = .zeroBased(try number(maximumDigits: 3, maximum: 365, what: "day"))
        }
        var time: Int32 = 7_200
        if peek == UInt8(ascii: "/") {
            index += 1
            time = try offset(maximumHours: 167)
        }
        return PosixTimeZone.Transition(date: date, time: time)
    }

    private mutating func number(maximumDigits: Int, maximum: Int64, what: String) throws(TimeZoneDataError) -> Int64 {
        var value: Int64 = 0
        var digits = 0
        while let byte = peek, byte.isDigit, digits < maximumDigits {
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            index += 1
            digits += 1
        }
        guard digits > 0 else { throw invalid("expected a number of \(what)") }
        guard value <= maximum, peek?.isDigit != true else { throw invalid("\(what) out of range") }
        return value
    }

    private mutating func expect(_ character: Unicode.Scalar) throws(TimeZoneDataError) {
        guard peek == UInt8(ascii: character) else { throw invalid("expected '\(character)'") }
        index += 1
    }

    private func invalid(_ reason: String) -> TimeZoneDataError {
        TimeZoneDataError("invalid POSIX TZ string \"\(text)\" at offset \(index): \(reason)")
    }
}

extension UInt8 {
    fileprivate var isLetter: Bool { (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self) }
    fileprivate var isDigit: Bool { (0x30...0x39).contains(self) }
}
