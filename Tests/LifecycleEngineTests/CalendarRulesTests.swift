// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// Days since, local day and hour, and first wake today/month, in several time zones (docs/engine-semantics.md §4.1 and
/// §4.5).
struct CalendarRulesTests {
    /// Launches at `first`, sleeps a minute later, wakes at `second`; returns the wake's payload.
    func wake(_ zoneIdentifier: String, first: String, second: String) -> [String: JSONValue] {
        var unit = Subject(makeEngine(zoneIdentifier))
        unit.track(.launch, at(first))
        unit.track(.sleep, at(first) + minute)
        return unit.track(.wake, at(second))
    }

    @Test("days since counts complete 24-hour periods, not midnights")
    func completePeriods() {
        let payload = wake("UTC", first: "2026-03-03T00:00:00.000Z", second: "2026-03-03T23:59:59.999Z")
        #expect(payload["lifecycle_dayssincelaunch"] == .int(0))
        let nextDay = wake("UTC", first: "2026-03-03T23:00:00Z", second: "2026-03-04T22:59:59.999Z")
        #expect(nextDay["lifecycle_dayssincelaunch"] == .int(0))
        #expect(nextDay["lifecycle_isfirstwaketoday"] == .bool(true))
    }

    @Test("a 23-hour spring-forward day in New York is not a complete day")
    func newYorkSpringForward() {
        // 2026-03-08: clocks go from 02:00 to 03:00; noon to noon is 23 hours
        let payload = wake("America/New_York", first: "2026-03-07T12:00:00-05:00", second: "2026-03-08T12:00:00-04:00")
        #expect(payload["lifecycle_dayssincelaunch"] == .int(0))
        #expect(payload["lifecycle_dayssincelastwake"] == .int(0))
        #expect(payload["lifecycle_isfirstwaketoday"] == .bool(true))
        #expect(payload["lifecycle_hourofday_local"] == .int(12))
        #expect(payload["lifecycle_dayofweek_local"] == .int(1))  // Sunday
    }

    @Test("a 25-hour fall-back day in Berlin holds a complete day within one local date")
    func berlinFallBack() {
        // 2026-10-25: clocks go from 03:00 back to 02:00
        let payload = wake("Europe/Berlin", first: "2026-10-25T00:10:00+02:00", second: "2026-10-25T23:50:00+01:00")
        #expect(payload["lifecycle_dayssincelaunch"] == .int(1))
        #expect(payload["lifecycle_isfirstwaketoday"] == nil)
        #expect(payload["lifecycle_hourofday_local"] == .int(23))
    }

    @Test("the repeated hour of a fall-back appears twice")
    func berlinRepeatedHour() {
        let first = wake("Europe/Berlin", first: "2026-10-25T02:30:00+02:00", second: "2026-10-25T02:30:00+01:00")
        #expect(first["lifecycle_hourofday_local"] == .int(2))
        #expect(first["lifecycle_isfirstwaketoday"] == nil)
        #expect(first["lifecycle_dayssincelastwake"] == .int(0))
    }

    @Test("a 23-hour spring-forward day in Berlin is not a complete day")
    func berlinSpringForward() {
        let payload = wake("Europe/Berlin", first: "2026-03-29T00:00:00+01:00", second: "2026-03-29T23:30:00+02:00")
        #expect(payload["lifecycle_dayssincelaunch"] == .int(0))
        #expect(payload["lifecycle_isfirstwaketoday"] == nil)
        #expect(payload["lifecycle_hourofday_local"] == .int(23))
    }

    @Test("Kathmandu's +05:45 offset moves the local day boundary")
    func kathmandu() {
        // 18:00Z is 23:45 local; 18:30Z is 00:15 the next local day
        let local = wake("Asia/Kathmandu", first: "2026-03-03T18:00:00Z", second: "2026-03-03T18:30:00Z")
        #expect(local["lifecycle_isfirstwaketoday"] == .bool(true))
        #expect(local["lifecycle_isfirstwakemonth"] == nil)
        #expect(local["lifecycle_hourofday_local"] == .int(0))
        #expect(local["lifecycle_dayofweek_local"] == .int(4))
        let utc = wake("UTC", first: "2026-03-03T18:00:00Z", second: "2026-03-03T18:30:00Z")
        #expect(utc["lifecycle_isfirstwaketoday"] == nil)
    }

    @Test("a UTC date change that is not a local date change gives no first-wake flag")
    func newYorkSameLocalDay() {
        let payload = wake("America/New_York", first: "2026-03-03T20:00:00Z", second: "2026-03-04T02:00:00Z")
        #expect(payload["lifecycle_isfirstwaketoday"] == nil)
        #expect(payload["lifecycle_hourofday_local"] == .int(21))
    }

    @Test("a new month sets both flags")
    func newMonth() {
        let payload = wake("UTC", first: "2026-01-31T23:00:00Z", second: "2026-02-01T00:30:00Z")
        #expect(payload["lifecycle_isfirstwaketoday"] == .bool(true))
        #expect(payload["lifecycle_isfirstwakemonth"] == .bool(true))
        let nextYear = wake("UTC", first: "2026-12-31T23:00:00Z", second: "2027-12-31T23:30:00Z")
        #expect(nextYear["lifecycle_isfirstwakemonth"] == .bool(true))
    }

    @Test("first wake today compares with the previous launch or wake, not with the last sleep")
    func comparedWithPreviousWake() {
        var unit = Subject()
        unit.track(.launch, at("2026-03-03T09:00:00Z"))
        unit.track(.sleep, at("2026-03-04T00:30:00Z"))  // the sleep falls on the new day
        let wake = unit.track(.wake, at("2026-03-04T08:00:00Z"))
        #expect(wake["lifecycle_isfirstwaketoday"] == .bool(true))
        unit.track(.sleep, at("2026-03-04T09:00:00Z"))
        let again = unit.track(.wake, at("2026-03-04T10:00:00Z"))
        #expect(again["lifecycle_isfirstwaketoday"] == nil)
    }

    @Test("the MM/dd/yyyy first launch date is in UTC, not local time")
    func monthDayYearInUTC() {
        var unit = Subject(makeEngine("America/New_York"))
        let payload = unit.track(.launch, at("2026-02-28T02:00:00Z"))  // 21:00 on 27 Feb in New York
        #expect(payload["lifecycle_firstlaunchdate_MMDDYYYY"] == .string("02/28/2026"))
        #expect(payload["lifecycle_firstlaunchdate"] == .string("2026-02-28T02:00:00Z"))
        #expect(payload["lifecycle_hourofday_local"] == .int(21))
        #expect(payload["lifecycle_dayofweek_local"] == .int(6))  // Friday
    }
}
