// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import Testing

struct FormattingTests {
    @Test("ISO dates drop the milliseconds, flooring, with a literal Z", arguments: [
        (Milliseconds(1_798_761_599_999), "2026-12-31T23:59:59Z"),
        (1_677_628_800_000, "2023-03-01T00:00:00Z"),
        (0, "1970-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (951_782_400_000, "2000-02-29T00:00:00Z"),
        (4_107_542_400_000, "2100-03-01T00:00:00Z"),
    ])
    func iso8601(time: Milliseconds, expected: String) {
        #expect(LifecycleDateFormat.iso8601.string(time) == expected)
    }

    @Test("the civil-date arithmetic agrees with Foundation over four centuries of sampled instants")
    func agreesWithFoundation() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'|MM/dd/yyyy"
        var time: Milliseconds = -2_208_988_800_000  // 1900
        while time < 10_413_792_000_000 {  // 2300
            let ours = LifecycleDateFormat.iso8601.string(time) + "|" + LifecycleDateFormat.monthDayYear.string(time)
            let theirs = formatter.string(from: Date(timeIntervalSince1970: Double(time) / 1_000))
            #expect(ours == theirs)
            if ours != theirs { return }
            time += 86_399_999 * 7 + 12_345
        }
    }

    @Test("dispatch times keep milliseconds")
    func milliseconds() {
        #expect(LifecycleDateFormat.iso8601Milliseconds.string(1_798_761_599_999) == "2026-12-31T23:59:59.999Z")
        #expect(LifecycleDateFormat.iso8601Milliseconds.string(-1) == "1969-12-31T23:59:59.999Z")
    }

    @Test("RFC 3339 timestamps parse with any zone and fraction", arguments: [
        ("2026-03-01T10:00:00.000Z", Milliseconds(1_772_359_200_000)),
        ("2026-03-01T10:00:00Z", 1_772_359_200_000),
        ("2026-03-01T11:00:00+01:00", 1_772_359_200_000),
        ("2026-03-01T04:15:00-0545", 1_772_359_200_000),
        ("2026-03-01T10:00:00.1234567Z", 1_772_359_200_123),
        ("2026-03-01t10:00:00.5z", 1_772_359_200_500),
        ("1969-12-31T23:59:59.999Z", -1),
    ])
    func parses(text: String, expected: Milliseconds) {
        #expect(TimestampParser.milliseconds(from: text) == expected)
    }

    @Test("malformed timestamps are refused", arguments: [
        "", "2026-03-01", "2026-03-01T10:00:00", "2026-02-30T10:00:00Z", "2026-13-01T10:00:00Z",
        "2026-03-01T24:00:00Z", "2026-03-01T10:00:00.Z", "2026-03-01T10:00:00Zjunk", "2026-03-01T10:00:00+25:00",
    ])
    func refuses(text: String) {
        #expect(TimestampParser.milliseconds(from: text) == nil)
    }
}
