// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

@testable import lifecyclectl

private let second = Fixtures.second
private let minute = Fixtures.minute
private let hour = Fixtures.hour
private let day = Fixtures.day

/// Relative times, durations, sizes and versions as the tables show them.
struct HumanizeTests {
    /// (version, as shown)
    static let versions: [(String, String)] = {
        let digest = Fixtures.digest
        let notHex = String(digest.dropLast()) + "g"
        return [
            (digest, "3f2a9c1b7d4e"),
            (digest.uppercased(), "3F2A9C1B7D4E"),
            (String(digest.prefix(32)), "3f2a9c1b7d4e"),
            (String(digest.prefix(31)), String(digest.prefix(31))),
            ("1.25.3", "1.25.3"),
            ("20260301120000", "20260301120000"),
            (notHex, notHex),
            ("", ""),
        ]
    }()

    @Test(
        "relative times are floored to their largest unit",
        arguments: [
            (0, "just now"),
            (999, "just now"),
            (-999, "just now"),
            (second, "1 s ago"),
            (minute - 1, "59 s ago"),
            (minute, "1 min ago"),
            (3 * minute + 59 * second, "3 min ago"),
            (hour - 1, "59 min ago"),
            (hour, "1 h ago"),
            (day - 1, "23 h ago"),
            (day, "1 day ago"),
            (2 * day, "2 days ago"),
            (365 * day - 1, "364 days ago"),
            (365 * day, "1 year ago"),
            (3 * 365 * day + 200 * day, "3 years ago"),
        ] as [(Milliseconds, String)]
    )
    func relativeTime(ago: Milliseconds, expected: String) {
        #expect(Humanize.relativeTime(Fixtures.now - ago, now: Fixtures.now) == expected)
    }

    @Test("a time ahead of now (the clock moved back) says how far ahead")
    func future() {
        #expect(Humanize.relativeTime(Fixtures.now + second, now: Fixtures.now) == "in 1 s")
        #expect(Humanize.relativeTime(Fixtures.now + 5 * minute + 30 * second, now: Fixtures.now) == "in 5 min")
        #expect(Humanize.relativeTime(Fixtures.now + 2 * day, now: Fixtures.now) == "in 2 days")
    }

    @Test(
        "durations show two units, the second zero-padded",
        arguments: [
            (0, "0s"),
            (-5, "0s"),
            (59, "59s"),
            (60, "1m 00s"),
            (185, "3m 05s"),
            (3_599, "59m 59s"),
            (3_600, "1h 00m"),
            (3_720, "1h 02m"),
            (86_399, "23h 59m"),
            (86_400, "1d 00h"),
            (90_180, "1d 01h"),
            (400 * 86_400 + 23 * 3_600, "400d 23h"),
        ] as [(Int64, String)]
    )
    func duration(seconds: Int64, expected: String) {
        #expect(Humanize.duration(seconds: seconds) == expected)
    }

    @Test(
        "start-up and CPU times: microseconds, milliseconds, seconds with two digits, then two units, all floored",
        arguments: [
            (0, "0s"),
            (-1, "0s"),
            (.nan, "0s"),
            (0.000_001, "1us"),
            (0.000_999, "999us"),
            (0.001, "1ms"),
            (0.229_999, "229ms"),
            (0.23, "230ms"),
            (0.999_999, "999ms"),
            (1, "1.00s"),
            (1.13, "1.13s"),
            (1.029_999, "1.02s"),
            (12.345_678, "12.34s"),
            (59.999_999, "59.99s"),
            (60, "1m 00s"),
            (185.9, "3m 05s"),
            (3_720, "1h 02m"),
            (.infinity, "104166666d 16h"),
        ] as [(Double, String)]
    )
    func seconds(value: Double, expected: String) {
        #expect(Humanize.seconds(value) == expected)
    }

    @Test(
        "byte counts in binary multiples with one floored digit, as systemd prints them",
        arguments: [
            (0, "0B"),
            (1_023, "1023B"),
            (1_024, "1.0K"),
            (1_535, "1.4K"),
            (1_536, "1.5K"),
            (1_048_575, "1023.9K"),
            (1_048_576, "1.0M"),
            (12_897_484, "12.2M"),
            (12_950_000, "12.3M"),
            (2_147_483_648, "2.0G"),
            (1 << 40, "1.0T"),
            (UInt64.max, "15.9E"),
        ] as [(UInt64, String)]
    )
    func bytes(value: UInt64, expected: String) {
        #expect(Humanize.bytes(value) == expected)
    }

    @Test(
        "hex digests of 32 or more digits are cut to 12, other versions are kept",
        arguments: versions
    )
    func version(version: String, expected: String) {
        #expect(Humanize.version(version) == expected)
    }
}
