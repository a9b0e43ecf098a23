// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// Whole payloads, key for key, for the reference's canonical sequences (UTC calendar).
struct LifecycleSequenceTests {
    let launch = at("2026-03-03T10:00:00Z")  // a Tuesday

    @Test("the first launch carries first-launch data and no previous dates")
    func firstLaunch() {
        var unit = Subject()
        expectPayload(unit.track(.launch, launch), [
            "lifecycle_type": .string("launch"),
            "lifecycle_dayofweek_local": .int(3),
            "lifecycle_hourofday_local": .int(10),
            "lifecycle_dayssincelaunch": .int(0),
            "lifecycle_firstlaunchdate": .string("2026-03-03T10:00:00Z"),
            "lifecycle_firstlaunchdate_MMDDYYYY": .string("03/03/2026"),
            "lifecycle_launchcount": .int(1),
            "lifecycle_wakecount": .int(1),
            "lifecycle_sleepcount": .int(0),
            "lifecycle_totallaunchcount": .int(1),
            "lifecycle_totalwakecount": .int(1),
            "lifecycle_totalsleepcount": .int(0),
            "lifecycle_totalcrashcount": .int(0),
            "lifecycle_totalsecondsawake": .int(0),
            "lifecycle_priorsecondsawake": .int(0),
            "lifecycle_isfirstlaunch": .bool(true),
            "lifecycle_isfirstwaketoday": .bool(true),
            "lifecycle_isfirstwakemonth": .bool(true),
        ])
    }

    @Test("launch, sleep a day later, wake a day and an hour after that, then a custom event")
    func launchSleepWake() {
        var unit = Subject(makeEngine(dataTarget: .allEvents))
        let sleep = launch + day
        let wake = sleep + day + hour
        let custom = wake + day + hour
        unit.track(.launch, launch)
        expectPayload(unit.track(.sleep, sleep), [
            "lifecycle_type": .string("sleep"),
            "lifecycle_dayofweek_local": .int(4),
            "lifecycle_hourofday_local": .int(10),
            "lifecycle_dayssincelaunch": .int(1),
            "lifecycle_dayssincelastwake": .int(1),
            "lifecycle_firstlaunchdate": iso(launch),
            "lifecycle_firstlaunchdate_MMDDYYYY": .string("03/03/2026"),
            "lifecycle_lastlaunchdate": iso(launch),
            "lifecycle_lastwakedate": iso(launch),
            "lifecycle_launchcount": .int(1),
            "lifecycle_wakecount": .int(1),
            "lifecycle_sleepcount": .int(1),
            "lifecycle_totallaunchcount": .int(1),
            "lifecycle_totalwakecount": .int(1),
            "lifecycle_totalsleepcount": .int(1),
            "lifecycle_totalcrashcount": .int(0),
            "lifecycle_totalsecondsawake": .int(86_400),
            "lifecycle_secondsawake": .int(86_400),
        ])
        expectPayload(unit.track(.wake, wake), [
            "lifecycle_type": .string("wake"),
            "lifecycle_dayofweek_local": .int(5),
            "lifecycle_hourofday_local": .int(11),
            "lifecycle_dayssincelaunch": .int(2),
            "lifecycle_dayssincelastwake": .int(2),
            "lifecycle_firstlaunchdate": iso(launch),
            "lifecycle_firstlaunchdate_MMDDYYYY": .string("03/03/2026"),
            "lifecycle_lastlaunchdate": iso(launch),
            "lifecycle_lastwakedate": iso(launch),
            "lifecycle_lastsleepdate": iso(sleep),
            "lifecycle_launchcount": .int(1),
            "lifecycle_wakecount": .int(2),
            "lifecycle_sleepcount": .int(1),
            "lifecycle_totallaunchcount": .int(1),
            "lifecycle_totalwakecount": .int(2),
            "lifecycle_totalsleepcount": .int(1),
            "lifecycle_totalcrashcount": .int(0),
            "lifecycle_totalsecondsawake": .int(86_400),
            "lifecycle_secondsawake": .int(86_400),
            "lifecycle_isfirstwaketoday": .bool(true),
        ])
        expectPayload(unit.custom(custom), [
            "lifecycle_dayofweek_local": .int(6),
            "lifecycle_hourofday_local": .int(12),
            "lifecycle_dayssincelaunch": .int(3),
            "lifecycle_dayssincelastwake": .int(1),
            "lifecycle_firstlaunchdate": iso(launch),
            "lifecycle_firstlaunchdate_MMDDYYYY": .string("03/03/2026"),
            "lifecycle_lastlaunchdate": iso(launch),
            "lifecycle_lastwakedate": iso(wake),
            "lifecycle_lastsleepdate": iso(sleep),
            "lifecycle_launchcount": .int(1),
            "lifecycle_wakecount": .int(2),
            "lifecycle_sleepcount": .int(1),
            "lifecycle_totallaunchcount": .int(1),
            "lifecycle_totalwakecount": .int(2),
            "lifecycle_totalsleepcount": .int(1),
            "lifecycle_totalcrashcount": .int(0),
            // the running foreground period counts live: 86400 before + 25 h since the wake
            "lifecycle_totalsecondsawake": .int(176_400),
            "lifecycle_secondsawake": .int(176_400),
        ])
    }

    @Test("a launch in a new process after a launch without sleep detects a crash")
    func crashThenLaunch() {
        var unit = Subject()
        unit.track(.launch, launch)
        unit.newProcess()
        let relaunch = launch + 2 * hour
        expectPayload(unit.track(.launch, relaunch), [
            "lifecycle_type": .string("launch"),
            "lifecycle_dayofweek_local": .int(3),
            "lifecycle_hourofday_local": .int(12),
            "lifecycle_dayssincelaunch": .int(0),
            "lifecycle_dayssincelastwake": .int(0),
            "lifecycle_firstlaunchdate": iso(launch),
            "lifecycle_firstlaunchdate_MMDDYYYY": .string("03/03/2026"),
            "lifecycle_lastlaunchdate": iso(launch),
            "lifecycle_lastwakedate": iso(launch),
            "lifecycle_launchcount": .int(2),
            "lifecycle_wakecount": .int(2),
            "lifecycle_sleepcount": .int(0),
            "lifecycle_totallaunchcount": .int(2),
            "lifecycle_totalwakecount": .int(2),
            "lifecycle_totalsleepcount": .int(0),
            "lifecycle_totalcrashcount": .int(1),
            "lifecycle_totalsecondsawake": .int(0),
            "lifecycle_priorsecondsawake": .int(0),
            "lifecycle_diddetectcrash": .bool(true),
        ])
    }

    @Test("a crash after a wake is detected too, and the crash count is lifetime")
    func crashAfterWake() {
        var unit = Subject()
        unit.track(.launch, launch, version: "1")
        unit.track(.sleep, launch + hour)
        unit.newProcess()
        unit.track(.wake, launch + 2 * hour)
        unit.newProcess()
        let first = unit.track(.launch, launch + 3 * hour, version: "1")
        #expect(first["lifecycle_diddetectcrash"] == .bool(true))
        #expect(first["lifecycle_priorsecondsawake"] == .int(3_600))
        unit.newProcess()
        let second = unit.track(.launch, launch + 4 * hour, version: "2")
        #expect(second["lifecycle_totalcrashcount"] == .int(2))
        #expect(second["lifecycle_isfirstlaunchupdate"] == .bool(true))
        #expect(second["lifecycle_priorsecondsawake"] == .int(0))
    }

    @Test("a version update resets the session counters and is flagged once")
    func versionUpdate() {
        var unit = Subject()
        unit.track(.launch, launch, version: "1.0")
        unit.track(.sleep, launch + hour)
        unit.newProcess()
        let update = launch + day + hour
        expectPayload(unit.track(.launch, update, version: "2.0"), [
            "lifecycle_type": .string("launch"),
            "lifecycle_dayofweek_local": .int(4),
            "lifecycle_hourofday_local": .int(11),
            "lifecycle_dayssincelaunch": .int(1),
            "lifecycle_dayssincelastwake": .int(1),
            "lifecycle_dayssinceupdate": .int(0),
            "lifecycle_firstlaunchdate": iso(launch),
            "lifecycle_firstlaunchdate_MMDDYYYY": .string("03/03/2026"),
            "lifecycle_lastlaunchdate": iso(launch),
            "lifecycle_lastwakedate": iso(launch),
            "lifecycle_lastsleepdate": iso(launch + hour),
            "lifecycle_updatelaunchdate": iso(update),
            "lifecycle_launchcount": .int(1),
            "lifecycle_wakecount": .int(1),
            "lifecycle_sleepcount": .int(0),
            "lifecycle_totallaunchcount": .int(2),
            "lifecycle_totalwakecount": .int(2),
            "lifecycle_totalsleepcount": .int(1),
            "lifecycle_totalcrashcount": .int(0),
            "lifecycle_totalsecondsawake": .int(3_600),
            "lifecycle_priorsecondsawake": .int(3_600),
            "lifecycle_isfirstlaunchupdate": .bool(true),
            "lifecycle_isfirstwaketoday": .bool(true),
        ])
        unit.track(.sleep, update + hour)
        unit.track(.wake, update + 2 * hour)
        let sleep = unit.track(.sleep, update + 3 * hour)
        // seconds awake are cumulative since the launch: two one-hour foregrounds
        #expect(sleep["lifecycle_secondsawake"] == .int(7_200))
        #expect(sleep["lifecycle_totalsecondsawake"] == .int(10_800))
        #expect(sleep["lifecycle_sleepcount"] == .int(2))
        #expect(sleep["lifecycle_updatelaunchdate"] == iso(update))
        #expect(sleep["lifecycle_dayssinceupdate"] == .int(0))

        unit.newProcess()
        let laterLaunch = unit.track(.launch, update + 3 * day, version: "2.0")
        #expect(laterLaunch["lifecycle_isfirstlaunchupdate"] == nil)
        #expect(laterLaunch["lifecycle_dayssinceupdate"] == .int(3))
        #expect(laterLaunch["lifecycle_launchcount"] == .int(2))
    }

    @Test("a wake never checks the version; the next launch does")
    func wakeIgnoresVersion() {
        var unit = Subject()
        unit.track(.launch, launch, version: "1")
        unit.track(.sleep, launch + hour)
        unit.newProcess()
        let wake = unit.track(.wake, launch + 2 * hour, version: "2")
        #expect(wake["lifecycle_isfirstlaunchupdate"] == nil)
        #expect(unit.state.version == "1")
        unit.track(.sleep, launch + 3 * hour)
        unit.newProcess()
        #expect(unit.track(.launch, launch + 4 * hour, version: "2")["lifecycle_isfirstlaunchupdate"] == .bool(true))
    }

    @Test("a launch without a known version never counts as an update")
    func unknownVersion() {
        var unit = Subject()
        unit.track(.launch, launch, version: "1")
        unit.track(.sleep, launch + hour)
        unit.newProcess()
        #expect(unit.track(.launch, launch + 2 * hour)["lifecycle_isfirstlaunchupdate"] == nil)
        #expect(unit.state.version == "1")
    }

    @Test("a stored version without a first launch makes one launch both first and update")
    func firstLaunchAndUpdate() {
        var unit = Subject()
        unit.state.version = "0.9"
        let payload = unit.track(.launch, launch, version: "1.0")
        #expect(payload["lifecycle_isfirstlaunch"] == .bool(true))
        #expect(payload["lifecycle_isfirstlaunchupdate"] == .bool(true))
    }
}
