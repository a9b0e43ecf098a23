// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import Testing

/// The zone files parsed here against Foundation's `TimeZone`, which is right in this (dynamically linked) test build
/// although it has no zone data in the static release binaries.
///
/// Foundation reads ICU's own copy of the tz database, which may be older than the system's: the zones and the years
/// compared are those whose rules have not changed in recent tz releases.
struct TimeZoneFoundationComparisonTests {
    static let zones = [
        "Europe/Berlin", "Europe/London", "Europe/Dublin", "America/New_York", "America/Los_Angeles",
        "America/St_Johns", "Asia/Kathmandu", "Asia/Kolkata", "Asia/Tokyo", "Australia/Sydney", "Australia/Lord_Howe",
        "Pacific/Auckland", "Pacific/Chatham", "Asia/Tehran",
    ]
    static let start = at("1980-01-01T00:00:00Z") / 1_000
    static let end = at("2100-01-01T00:00:00Z") / 1_000

    @Test("the offset agrees with Foundation at every switch and at sampled instants", arguments: zones)
    func agrees(name: String) throws {
        let foundation = try #require(TimeZone(identifier: name))
        let rules = zone(name)
        var mismatches: [String] = []
        func compare(_ seconds: Int64) {
            let expected = foundation.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
            let actual = rules.secondsFromGMT(at: seconds)
            if actual != expected, mismatches.count < 5 {
                let date = Date(timeIntervalSince1970: Double(seconds))
                mismatches.append("at \(seconds) (\(date)): \(actual), Foundation \(expected)")
            }
        }
        // Every daylight-saving switch, the second before and the second of it.
        var switches = 0
        var date = Date(timeIntervalSince1970: Double(Self.start))
        while let next = foundation.nextDaylightSavingTimeTransition(after: date),
            next.timeIntervalSince1970 < Double(Self.end)
        {
            let seconds = Int64(next.timeIntervalSince1970.rounded())
            compare(seconds - 1)
            compare(seconds)
            switches += 1
            date = next
        }
        // Sampled instants at every hour of the day and every day of the week over the years.
        for seconds in stride(from: Self.start, to: Self.end, by: 3 * 86_400 + 3_601) {
            compare(seconds)
        }
        #expect(mismatches.isEmpty, "\(name): \(mismatches.joined(separator: "; "))")
        if name != "Asia/Kathmandu", name != "Asia/Kolkata", name != "Asia/Tokyo", name != "Asia/Tehran" {
            #expect(switches > 100, "\(name): too few daylight-saving switches to compare: \(switches)")
        }
    }
}
