// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// The offset of `zone` at an RFC 3339 instant.
func offset(_ zone: TimeZoneRules, _ instant: String) -> Int {
    zone.secondsFromGMT(at: at(instant) / 1_000)
}

/// POSIX TZ rules, as TZif footers and as values of `TZ`.
struct PosixTimeZoneTests {
    func rule(_ text: String) throws -> TimeZoneRules {
        TimeZoneRules(name: text, rule: try PosixTimeZone(parsing: text))
    }

    @Test(
        "rules with daylight time, before and after each switch",
        arguments: [
            ("CET-1CEST,M3.5.0,M10.5.0/3", "2026-03-29T00:59:59Z", 3_600),
            ("CET-1CEST,M3.5.0,M10.5.0/3", "2026-03-29T01:00:00Z", 7_200),
            ("CET-1CEST,M3.5.0,M10.5.0/3", "2026-10-25T00:59:59Z", 7_200),
            ("CET-1CEST,M3.5.0,M10.5.0/3", "2026-10-25T01:00:00Z", 3_600),
            ("EST5EDT,M3.2.0,M11.1.0", "2026-03-08T06:59:59Z", -18_000),
            ("EST5EDT,M3.2.0,M11.1.0", "2026-03-08T07:00:00Z", -14_400),
            ("EST5EDT,M3.2.0,M11.1.0", "2026-11-01T05:59:59Z", -14_400),
            ("EST5EDT,M3.2.0,M11.1.0", "2026-11-01T06:00:00Z", -18_000),
            // No dates: glibc's default, the United States' rules.
            ("EST5EDT", "2026-03-08T06:59:59Z", -18_000),
            ("EST5EDT", "2026-03-08T07:00:00Z", -14_400),
            // Southern hemisphere: the start comes after the end within a year.
            ("AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-01-15T00:00:00Z", 39_600),
            ("AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-07-15T00:00:00Z", 36_000),
            ("AEST-10AEDT,M10.1.0,M4.1.0/3", "2026-12-31T23:00:00Z", 39_600),
            // Negative switch times (TZif version 3): America/Nuuk switches at 01:00 UTC like the EU.
            ("<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2026-03-29T00:59:59Z", -7_200),
            ("<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2026-03-29T01:00:00Z", -3_600),
            ("<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2026-10-25T00:59:59Z", -3_600),
            ("<-02>2<-01>,M3.5.0/-1,M10.5.0/0", "2026-10-25T01:00:00Z", -7_200),
            // An explicit daylight offset that is not one hour (Lord Howe Island: +10:30 / +11).
            ("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "2026-01-15T00:00:00Z", 39_600),
            ("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "2026-07-15T00:00:00Z", 37_800),
        ]
    )
    func daylight(text: String, instant: String, expected: Int) throws {
        #expect(offset(try rule(text), instant) == expected)
    }

    @Test(
        "rules with one offset all year",
        arguments: [
            ("UTC0", 0), ("<+0545>-5:45", 20_700), ("<-0330>3:30", -12_600), ("XXX-1:02:03", 3_723),
            ("EST+5", -18_000), ("<+14>-14", 50_400),
        ]
    )
    func standardOnly(text: String, expected: Int) throws {
        for instant in ["1901-01-01T00:00:00Z", "2026-07-01T12:00:00Z", "2300-12-31T23:59:59Z"] {
            #expect(offset(try rule(text), instant) == expected)
        }
    }

    @Test("the fifth week is the last one, even in a month with four such weekdays")
    func lastWeek() throws {
        // February 2026 has four Sundays; the last is the 22nd.
        let february = try rule("AAA0BBB,M2.5.0/0,M12.1.0/0")
        #expect(offset(february, "2026-02-21T23:59:59Z") == 0)
        #expect(offset(february, "2026-02-22T00:00:00Z") == 3_600)
    }

    @Test("Jn never counts February 29; a plain day number does")
    func julianDays() throws {
        let julian = try rule("AAA0BBB,J60/0,J61/0")  // March 1, every year
        #expect(offset(julian, "2028-02-29T12:00:00Z") == 0)
        #expect(offset(julian, "2028-03-01T12:00:00Z") == 3_600)
        let zeroBased = try rule("AAA0BBB,59/0,60/0")  // February 29 in leap years, else March 1
        #expect(offset(zeroBased, "2028-02-29T12:00:00Z") == 3_600)
        #expect(offset(zeroBased, "2028-03-01T12:00:00Z") == 0)
        #expect(offset(zeroBased, "2027-03-01T12:00:00Z") == 3_600)
    }

    @Test("daylight time all year, as zic writes it (version 3)")
    func daylightAllYear() throws {
        let always = try rule("EST5EDT,0/0,J365/25")
        for instant in [
            "2026-01-01T00:00:00Z", "2026-01-01T05:00:00Z", "2026-06-01T00:00:00Z", "2026-12-31T23:59:59Z",
            "2027-01-01T04:59:59Z", "2027-01-01T05:00:00Z", "2028-12-31T12:00:00Z",
        ] {
            #expect(offset(always, instant) == -14_400, "\(instant)")
        }
    }

    @Test(
        "malformed rules are refused",
        arguments: [
            "", "EST", "E5", "ES5", "5", "<+05", "<+0 5>-5", "EST25", "EST5EDT,", "EST5EDT,M3.2.0",
            "EST5EDT,M13.2.0,M11.1.0", "EST5EDT,M3.6.0,M11.1.0", "EST5EDT,M3.2.7,M11.1.0", "EST5EDT,M0.2.0,M11.1.0",
            "EST5EDT,J0,J10", "EST5EDT,366,10", "EST5EDT,M3.2.0/168,M11.1.0", "EST5EDT,M3.2.0,M11.1.0x",
            "EST5:60", "EST5EDT4x", "CET-1CEST;M3.5.0,M10.5.0",
        ]
    )
    func malformed(text: String) {
        #expect(throws: TimeZoneDataError.self) { try PosixTimeZone(parsing: text) }
    }
}
