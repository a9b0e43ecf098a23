// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import Testing

/// Real zone files of the system's tz database, on both sides of their switches: through the transitions stored in
/// the file (up to 2037 in Debian's fat files) and, after the last one, through the footer's POSIX rule.
struct TimeZoneRulesTests {
    @Test(
        "Europe/Berlin switches at 01:00 UTC on the last Sundays of March and October",
        arguments: [
            ("2026-03-29T00:59:59Z", 3_600), ("2026-03-29T01:00:00Z", 7_200),
            ("2026-10-25T00:59:59Z", 7_200), ("2026-10-25T01:00:00Z", 3_600),
            // After the last transition of the file: the footer CET-1CEST,M3.5.0,M10.5.0/3.
            ("2040-07-01T00:00:00Z", 7_200), ("2090-01-15T12:00:00Z", 3_600),
            ("2090-03-26T00:59:59Z", 3_600), ("2090-03-26T01:00:00Z", 7_200),
            ("2090-10-29T00:59:59Z", 7_200), ("2090-10-29T01:00:00Z", 3_600),
            // Historical: Central European Time without DST in 1970, double summer time in 1945.
            ("1970-07-01T00:00:00Z", 3_600), ("1945-06-01T00:00:00Z", 10_800),
        ]
    )
    func berlin(instant: String, expected: Int) {
        #expect(offset(zone("Europe/Berlin"), instant) == expected)
    }

    @Test(
        "America/New_York switches at 2:00 local on the second Sunday of March and the first of November",
        arguments: [
            ("2026-03-08T06:59:59Z", -18_000), ("2026-03-08T07:00:00Z", -14_400),
            ("2026-11-01T05:59:59Z", -14_400), ("2026-11-01T06:00:00Z", -18_000),
            ("2090-03-12T06:59:59Z", -18_000), ("2090-03-12T07:00:00Z", -14_400),
            ("2090-11-05T05:59:59Z", -14_400), ("2090-11-05T06:00:00Z", -18_000),
        ]
    )
    func newYork(instant: String, expected: Int) {
        #expect(offset(zone("America/New_York"), instant) == expected)
    }

    @Test(
        "Asia/Kathmandu: local mean time, then +05:30, then +05:45 from 1986",
        arguments: [
            ("1919-12-31T18:00:00Z", 20_476),
            ("1985-12-31T18:29:59Z", 19_800), ("1985-12-31T18:30:00Z", 20_700),
            ("2026-03-01T23:30:00Z", 20_700),
            // The file's last transition is a no-op at 2038-01-19T03:14:07Z; then the footer <+0545>-5:45.
            ("2038-01-19T03:14:08Z", 20_700), ("2090-06-01T00:00:00Z", 20_700),
        ]
    )
    func kathmandu(instant: String, expected: Int) {
        #expect(offset(zone("Asia/Kathmandu"), instant) == expected)
    }

    @Test("a southern-hemisphere zone has daylight time over the new year")
    func sydney() {
        let sydney = zone("Australia/Sydney")
        #expect(offset(sydney, "2026-01-15T00:00:00Z") == 39_600)
        #expect(offset(sydney, "2026-07-15T00:00:00Z") == 36_000)
        #expect(offset(sydney, "2095-01-15T00:00:00Z") == 39_600)
        #expect(offset(sydney, "2095-07-15T00:00:00Z") == 36_000)
    }

    @Test("UTC is zero everywhere, from its file and as the built-in value")
    func utc() {
        for instant in ["1900-01-01T00:00:00Z", "2026-06-01T00:00:00Z", "2200-01-01T00:00:00Z"] {
            #expect(offset(zone("UTC"), instant) == 0)
            #expect(offset(.utc, instant) == 0)
        }
    }

    @Test("every TZif file of the system's database parses, also the right/ ones with leap-second records")
    func wholeDatabase() throws {
        let root = "/usr/share/zoneinfo"
        var parsed = 0
        for name in try FileManager.default.subpathsOfDirectory(atPath: root).sorted() {
            // Skips directories and the other files there: zone.tab, tzdata.zi, leap-seconds.list.
            guard let data = FileManager.default.contents(atPath: "\(root)/\(name)"),
                data.starts(with: Array("TZif".utf8))
            else { continue }
            do {
                _ = try TimeZoneRules(tzif: [UInt8](data), name: name)
                parsed += 1
            } catch {
                Issue.record("\(name): \(error)")
            }
        }
        #expect(parsed > 300)
    }

    @Test("the local calendar follows the zone: hour of day across Berlin's spring-forward")
    func localCalendar() {
        var unit = Subject(makeEngine("Europe/Berlin"))
        unit.track(.launch, at("2026-03-29T00:30:00Z"))
        #expect(unit.track(.sleep, at("2026-03-29T00:59:59Z"))["lifecycle_hourofday_local"] == .int(1))
        #expect(unit.track(.wake, at("2026-03-29T01:00:00Z"))["lifecycle_hourofday_local"] == .int(3))
    }
}
