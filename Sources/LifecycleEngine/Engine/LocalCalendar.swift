// SPDX-License-Identifier: Apache-2.0

import Foundation

/// Local calendar fields of an instant in one time zone: the reference's `Calendar.current`, made explicit.
///
/// The zone is configuration, never read from the machine here, so every rule is deterministic under test.
public struct LocalCalendar: Sendable {
    public let timeZone: TimeZone

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
    }

    /// The local civil date and time of `time`.
    func civilDate(_ time: Milliseconds) -> CivilDate {
        let seconds = floorDivide(time, 1_000)
        // Foundation's offset lookup is ~40 ns here; DST and historical offset changes come from the tz database.
        let offset = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
        return CivilDate(secondsSince1970: seconds + offset)
    }
}
