// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Short, human-readable forms of times, durations, sizes and versions for the tables.
///
/// Every function is pure and exact: values are floored, never rounded up, so "59 s ago" never reads as a minute.
enum Humanize {
    /// How long ago `time` was at `now`, in its largest whole unit: `just now`, `45 s ago`, `3 min ago`, `5 h ago`,
    /// `1 day ago`, `12 days ago`, `2 years ago` (years of 365 days).
    ///
    /// A time ahead of `now` by a second or more (the clock was set back after the event) reads `in 3 min`, so a
    /// clock problem shows instead of being hidden.
    static func relativeTime(_ time: Milliseconds, now: Milliseconds) -> String {
        let delta = now - time
        if delta > -1_000, delta < 1_000 { return "just now" }
        if delta < 0 { return "in " + span(seconds: -delta / 1_000) }
        return span(seconds: delta / 1_000) + " ago"
    }

    /// `seconds` in its largest whole unit, e.g. `3 min` or `2 days`.
    private static func span(seconds: Int64) -> String {
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3_600: return "\(seconds / 60) min"
        case ..<86_400: return "\(seconds / 3_600) h"
        case ..<(365 * 86_400): return plural(seconds / 86_400, "day")
        default: return plural(seconds / (365 * 86_400), "year")
        }
    }

    private static func plural(_ count: Int64, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }

    /// A duration in its two largest units, the second zero-padded so columns line up: `0s`, `45s`, `3m 05s`,
    /// `1h 02m`, `3d 04h`. Negative durations read `0s`.
    static func duration(seconds: Int64) -> String {
        let seconds = max(0, seconds)
        switch seconds {
        case ..<60: return "\(seconds)s"
        case ..<3_600: return "\(seconds / 60)m \(twoDigits(seconds % 60))s"
        case ..<86_400: return "\(seconds / 3_600)h \(twoDigits(seconds % 3_600 / 60))m"
        default: return "\(seconds / 86_400)d \(twoDigits(seconds % 86_400 / 3_600))h"
        }
    }

    private static func twoDigits(_ value: Int64) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// A start-up or CPU time as systemd prints short spans, floored: `0s`, `850us`, `230ms`, `1.00s`, `59.99s`, and
    /// from a minute on as ``duration(seconds:)`` does (`3m 05s`, `1h 02m`).
    ///
    /// The value is first taken to whole microseconds (systemd's resolution, and what lifecycled records), so that
    /// `1.13` reads `1.13s` and not `1.12s` by a binary fraction. Negative values read `0s`.
    static func seconds(_ seconds: Double) -> String {
        // Clamped below Int64.max microseconds (about 292,000 years), so that no conversion can trap.
        let clamped = seconds.isNaN ? 0 : min(max(seconds, 0), 9_000_000_000_000)
        let microseconds = Int64((clamped * 1_000_000).rounded())
        switch microseconds {
        case 0: return "0s"
        case ..<1_000: return "\(microseconds)us"
        case ..<1_000_000: return "\(microseconds / 1_000)ms"
        case ..<60_000_000: return "\(microseconds / 1_000_000).\(twoDigits(microseconds % 1_000_000 / 10_000))s"
        default: return duration(seconds: microseconds / 1_000_000)
        }
    }

    /// Binary multiples as systemd prints them (`format_bytes()`), the fraction floored to one digit: `0B`, `512B`,
    /// `1.0K`, `12.3M`, `2.0G`, up to `E` (1024 based, as `MemoryPeak=` and the cgroup files count).
    static func bytes(_ bytes: UInt64) -> String {
        let units: [(suffix: String, factor: UInt64)] = [
            ("E", 1 << 60), ("P", 1 << 50), ("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10),
        ]
        guard let unit = units.first(where: { bytes >= $0.factor }) else { return "\(bytes)B" }
        // The remainder is below the factor (at most 2^60), so ten times it cannot overflow.
        return "\(bytes / unit.factor).\(bytes % unit.factor * 10 / unit.factor)\(unit.suffix)"
    }

    /// The digests lifecycled stores as versions are at least this long (SHA-256: 64 hex digits).
    static let digestMinimumLength = 32
    /// How many hex digits of a digest the table shows, like an abbreviated git commit.
    static let shortDigestLength = 12

    /// `version` as the table shows it: a hex digest of 32 or more digits is cut to its first 12 (the executable's
    /// SHA-256 is the default version); anything else, such as `1.25.3` or a 14-digit build number, is kept whole.
    static func version(_ version: String) -> String {
        let isDigest =
            version.utf8.count >= digestMinimumLength
            && version.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }
        return isDigest ? String(version.prefix(shortDigestLength)) : version
    }
}
