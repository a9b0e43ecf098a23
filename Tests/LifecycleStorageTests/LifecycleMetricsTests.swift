// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage
import Testing

/// The metrics file's content, from records and the daemon's health.
struct LifecycleMetricsTests {
    /// 2026-03-01T10:00:00Z, in ms.
    static let t0: Milliseconds = 1_772_359_200_000

    static func record(_ unit: String = "web.service") -> UnitRecord {
        var state = UnitState()
        state.totalLaunchCount = 3
        state.totalWakeCount = 5
        state.totalSleepCount = 2
        state.totalCrashCount = 1
        state.totalSecondsAwake = 3_600
        state.firstLaunch = t0
        state.lastLaunch = t0 + 60_000
        state.lastWake = t0 + 120_500
        state.lastSleep = t0 + 90_000
        state.update = t0 + 60_000
        state.version = "1.2.3"
        state.lastEvent = .wake
        return UnitRecord(unit: unit, state: state, updateCount: 2)
    }

    static func render(_ records: [UnitRecord], version: String = "v") -> String {
        LifecycleMetrics(records: records, now: t0, crashLoop: CrashLoopRule(), version: version).render()
    }

    static func lines(_ text: String, _ prefix: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.hasPrefix(prefix + "{") || $0.hasPrefix(prefix + " ") }
    }

    @Test("every per-unit family comes from the record, with the unit in label name")
    func unitFamilies() {
        let text = Self.render([Self.record()], version: "0.1.0")
        #expect(
            Self.lines(text, "lifecycled_unit_launches_total") == [
                #"lifecycled_unit_launches_total{name="web.service"} 3"#
            ]
        )
        #expect(
            Self.lines(text, "lifecycled_unit_wakes_total") == [
                #"lifecycled_unit_wakes_total{name="web.service"} 5"#
            ]
        )
        #expect(
            Self.lines(text, "lifecycled_unit_sleeps_total") == [
                #"lifecycled_unit_sleeps_total{name="web.service"} 2"#
            ]
        )
        #expect(
            Self.lines(text, "lifecycled_unit_updates_total") == [
                #"lifecycled_unit_updates_total{name="web.service"} 2"#
            ]
        )
        #expect(
            Self.lines(text, "lifecycled_unit_awake_seconds_total") == [
                #"lifecycled_unit_awake_seconds_total{name="web.service"} 3600"#
            ]
        )
        #expect(
            Self.lines(text, "lifecycled_unit_last_event_timestamp_seconds") == [
                #"lifecycled_unit_last_event_timestamp_seconds{event="launch",name="web.service"} 1772359260"#,
                #"lifecycled_unit_last_event_timestamp_seconds{event="sleep",name="web.service"} 1772359290"#,
                #"lifecycled_unit_last_event_timestamp_seconds{event="update",name="web.service"} 1772359260"#,
                #"lifecycled_unit_last_event_timestamp_seconds{event="wake",name="web.service"} 1772359320.5"#,
            ]
        )
        #expect(
            Self.lines(text, "lifecycled_unit_first_launch_timestamp_seconds") == [
                #"lifecycled_unit_first_launch_timestamp_seconds{name="web.service"} 1772359200"#
            ]
        )
        #expect(
            Self.lines(text, "lifecycled_unit_version_info") == [
                #"lifecycled_unit_version_info{name="web.service",version="1.2.3"} 1"#
            ]
        )
        #expect(
            Self.lines(text, "lifecycled_unit_crash_looping") == [
                #"lifecycled_unit_crash_looping{name="web.service"} 0"#
            ]
        )
        #expect(Self.lines(text, "lifecycled_build_info") == [#"lifecycled_build_info{version="0.1.0"} 1"#])
        #expect(!text.contains("lifecycled_dispatches_total"), "without the daemon's health, no health families")
    }

    @Test("crashes by Result: the noted ones, every common Result at 0, the rest unknown; the sum is the crash count")
    func crashesByResult() {
        var record = Self.record()
        record.noteFailure(RunFailure(result: "signal", exitCode: "killed", exitStatus: 9, time: Self.t0 + 200_000))
        record.runEnded = true  // the crash notice ended the run; the engine counts it at the next launch
        let counts = LifecycleMetrics.crashesByResult(record)
        #expect(counts["signal"] == 1)
        #expect(counts["unknown"] == 1, "the engine's one earlier crash had no notice")
        #expect(counts["exit-code"] == 0 && counts["oom-kill"] == 0 && counts["watchdog"] == 0)
        #expect(counts.values.reduce(0, +) == record.crashCount)
        #expect(
            Self.render([record]).contains(
                #"lifecycled_unit_last_event_timestamp_seconds{event="crash",name="web.service"} 1772359400"#
            ),
            "the last crash's time is the last failure's"
        )

        // The next launch counts the crash the notice showed: no count may go back.
        record.state.totalCrashCount += 1
        record.state.lastEvent = .launch
        record.runEnded = false
        #expect(LifecycleMetrics.crashesByResult(record) == counts)
    }

    @Test("crash looping follows the configured rule at the given time")
    func crashLooping() {
        var record = Self.record()
        for second in [10, 20, 30] {
            record.noteFailure(RunFailure(result: "exit-code", time: Self.t0 + Milliseconds(second) * 1_000))
        }
        let rule = CrashLoopRule(crashes: 3, minutes: 10)
        let looping = LifecycleMetrics(records: [record], now: Self.t0 + 60_000, crashLoop: rule, version: "v").render()
        #expect(looping.contains(#"lifecycled_unit_crash_looping{name="web.service"} 1"#))
        let later = LifecycleMetrics(records: [record], now: Self.t0 + 660_000, crashLoop: rule, version: "v").render()
        #expect(later.contains(#"lifecycled_unit_crash_looping{name="web.service"} 0"#))
    }

    @Test("unit names with systemd's escapes are escaped for the text format")
    func escapedUnitNames() {
        let text = Self.render([Self.record(#"dev-disk-by\x2duuid-1.device"#)])
        #expect(text.contains(#"lifecycled_unit_launches_total{name="dev-disk-by\\x2duuid-1.device"} 3"#))
        #expect(!text.contains(#"by\x2d"#))
    }

    @Test("the daemon's health: dispatches by kind from 0, journal, bus and watched units, its start time")
    func health() {
        var health = DaemonHealth(startTime: Self.t0, bus: "system")
        health.dispatches = ["launch": 4, "crash": 1]
        health.journalRefusals = 2
        health.journalRetries = 3
        health.journalDrops = 1
        health.pendingDispatches = 5
        health.busReconnects = 1
        health.watchedUnits = 7
        let text = LifecycleMetrics(records: [], now: Self.t0, crashLoop: CrashLoopRule(), version: "v", health: health)
            .render()
        #expect(
            Self.lines(text, "lifecycled_dispatches_total") == [
                #"lifecycled_dispatches_total{event="crash"} 1"#, #"lifecycled_dispatches_total{event="custom"} 0"#,
                #"lifecycled_dispatches_total{event="launch"} 4"#, #"lifecycled_dispatches_total{event="missed"} 0"#,
                #"lifecycled_dispatches_total{event="sleep"} 0"#, #"lifecycled_dispatches_total{event="wake"} 0"#,
            ]
        )
        #expect(
            Self.lines(text, "lifecycled_journal_write_failures_total") == [
                "lifecycled_journal_write_failures_total 2"
            ]
        )
        #expect(
            Self.lines(text, "lifecycled_journal_write_retries_total") == [
                "lifecycled_journal_write_retries_total 3"
            ]
        )
        #expect(
            Self.lines(text, "lifecycled_journal_dropped_dispatches_total") == [
                "lifecycled_journal_dropped_dispatches_total 1"
            ]
        )
        #expect(Self.lines(text, "lifecycled_pending_dispatches") == ["lifecycled_pending_dispatches 5"])
        #expect(
            Self.lines(text, "lifecycled_bus_reconnects_total") == [
                #"lifecycled_bus_reconnects_total{bus="system"} 1"#
            ]
        )
        #expect(Self.lines(text, "lifecycled_watched_units") == [#"lifecycled_watched_units{bus="system"} 7"#])
        #expect(Self.lines(text, "lifecycled_start_time_seconds") == ["lifecycled_start_time_seconds 1772359200"])
    }

    @Test("what is degraded: every cause from 0, 1 while it lasts, 0 again once it ends")
    func degraded() {
        var health = DaemonHealth(startTime: Self.t0, bus: "system")
        func lines() -> [String] {
            Self.lines(
                LifecycleMetrics(records: [], now: Self.t0, crashLoop: CrashLoopRule(), version: "v", health: health)
                    .render(),
                "lifecycled_degraded"
            )
        }
        let journal = #"lifecycled_degraded{what="journal"} 0"#
        #expect(lines() == [journal, #"lifecycled_degraded{what="state_directory"} 0"#])
        health.degradations.begin(.stateDirectory, reason: "cannot write the state directory /x: EROFS", now: Self.t0)
        #expect(lines() == [journal, #"lifecycled_degraded{what="state_directory"} 1"#])
        health.degradations.end(.stateDirectory)
        #expect(lines() == [journal, #"lifecycled_degraded{what="state_directory"} 0"#])
        health.degradations.begin(.journal, reason: "the journal does not show lifecycled's entries", now: Self.t0)
        #expect(lines() == [#"lifecycled_degraded{what="journal"} 1"#, #"lifecycled_degraded{what="state_directory"} 0"#])
    }

    @Test("the status shows what is degraded first, since when it began; a cause that goes on keeps its start")
    func degradedStatus() {
        var degradations = Degradations()
        #expect(degradations.shown("Watching 3 loaded units") == "Watching 3 loaded units")
        let began = degradations.begin(.stateDirectory, reason: "cannot write the state directory /x: EROFS", now: Self.t0)
        let beganAgain = degradations.begin(
            .stateDirectory, reason: "cannot write the state directory /x: ENOSPC", now: Self.t0 + 5_000
        )
        #expect(began && !beganAgain)
        #expect(degradations.shown("Watching 3 loaded units")
            == "Degraded: cannot write the state directory /x: ENOSPC since 2026-03-01T10:00:00Z; Watching 3 loaded units")
        let ended = degradations.end(.stateDirectory)
        #expect(ended?.since == Self.t0)
        #expect(degradations.isEmpty)
    }

    @Test("the whole file: each family's HELP and TYPE once, counters named _total, stable from render to render")
    func wholeFile() {
        let metrics = LifecycleMetrics(
            records: [Self.record("b.service"), Self.record("a.service")], now: Self.t0, crashLoop: CrashLoopRule(),
            version: "v", health: DaemonHealth(startTime: Self.t0, bus: "system")
        )
        let text = metrics.render()
        #expect(text == metrics.render())
        let lines = text.split(separator: "\n").map(String.init)
        let helps = lines.filter { $0.hasPrefix("# HELP ") }.map { $0.split(separator: " ")[2] }
        let types = lines.filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ") }
        #expect(Set(helps).count == helps.count && helps.count == types.count)
        #expect(helps == helps.sorted())
        for type in types {
            #expect((type[3] == "counter") == type[2].hasSuffix("_total"), "\(type[2])")
        }
        #expect(lines.filter { !$0.hasPrefix("#") }.allSatisfy { $0.split(separator: " ").count == 2 }, "no timestamps")
        let launches = Self.lines(text, "lifecycled_unit_launches_total")
        #expect(launches.first?.contains("a.service") == true, "series sorted by unit")
    }
}
