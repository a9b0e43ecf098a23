// SPDX-License-Identifier: Apache-2.0

/// The UTC offsets of one time zone over time, read from the tz database: what ``LocalCalendar`` needs to turn an
/// instant into local wall-clock time.
///
/// Foundation's `TimeZone` cannot be used: in the static release binaries (`--static-swift-stdlib`) it has no tz data
/// and knows only GMT. This value is built from bytes (a TZif file, see ``init(tzif:name:)``) or from a POSIX TZ
/// string, so the engine stays pure: the caller reads the file.
///
/// Instants up to the last transition of the file are looked up by binary search; instants after it follow the
/// file's footer rule (slim TZif files stop early, fat ones in 2037), as RFC 8536 §3.3 says.
public struct TimeZoneRules: Sendable, Equatable {
    /// The zone's name: an IANA name such as `Europe/Berlin`, or where the rules came from (a path, a TZ string).
    public let name: String
    /// Transition instants, in seconds since the epoch, strictly ascending.
    private let transitions: [Int64]
    /// `offsets[i]` is the offset east of UTC, in seconds, from `transitions[i]` on.
    private let offsets: [Int32]
    /// The offset before the first transition (the file's time type 0).
    private let initialOffset: Int32
    /// The rule after the last transition; nil when the file has none (the last offset then stays).
    private let rule: PosixTimeZone?

    init(name: String, transitions: [Int64], offsets: [Int32], initialOffset: Int32, rule: PosixTimeZone?) {
        self.name = name
        self.transitions = transitions
        self.offsets = offsets
        self.initialOffset = initialOffset
        self.rule = rule
    }

    /// Rules that follow one POSIX TZ rule at every instant, e.g. `EST5EDT,M3.2.0,M11.1.0` or `<+0545>-5:45`.
    ///
    /// - Parameters:
    ///   - name: what to call the zone, usually the TZ string itself.
    ///   - rule: the parsed rule.
    public init(name: String, rule: PosixTimeZone) {
        self.init(name: name, transitions: [], offsets: [], initialOffset: rule.standardOffset, rule: rule)
    }

    /// Coordinated Universal Time: what glibc uses when nothing else is known.
    public static let utc = TimeZoneRules(name: "UTC", rule: PosixTimeZone(standardOffset: 0))

    /// The offset east of UTC, in seconds, at an instant.
    ///
    /// - Parameter seconds: seconds since 1970-01-01T00:00:00Z.
    /// - Returns: for example 3600 for Europe/Berlin in winter, 20700 for Asia/Kathmandu.
    public func secondsFromGMT(at seconds: Int64) -> Int {
        Int(offset(at: seconds))
    }

    private func offset(at seconds: Int64) -> Int32 {
        guard let last = transitions.last, seconds <= last else {
            if let rule { return rule.secondsFromGMT(at: seconds) }
            return offsets.last ?? initialOffset
        }
        // The number of transitions at or before `seconds`: the last of them is the one in force.
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = (low + high) / 2
            if transitions[middle] <= seconds {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low == 0 ? initialOffset : offsets[low - 1]
    }
}
