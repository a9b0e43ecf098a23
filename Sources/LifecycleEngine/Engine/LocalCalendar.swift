// SPDX-License-Identifier: Apache-2.0

/// Local calendar fields of an instant in one time zone: the reference's `Calendar.current`, made explicit.
///
/// The zone is configuration, never read from the machine here, so every rule is deterministic under test.
public struct LocalCalendar: Sendable {
    public let timeZone: TimeZoneRules

    public init(timeZone: TimeZoneRules) {
        self.timeZone = timeZone
    }

    /// The local civil date and time of `time`.
    func civilDate(_ time: Milliseconds) -> CivilDate {
        let seconds = floorDivide(time, 1_000)
        // A binary search over the zone's transitions, or its yearly rule after the last one.
        let offset = Int64(timeZone.secondsFromGMT(at: seconds))
        return CivilDate(secondsSince1970: seconds + offset)
    }
}
