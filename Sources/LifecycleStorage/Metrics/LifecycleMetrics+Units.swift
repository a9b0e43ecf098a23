// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The per-unit families, straight from each unit's record; the unit is in label `name`, as with node_exporter's
/// systemd collector, so that `on(name)` joins work.
extension LifecycleMetrics {
    /// systemd's service `Result` values for a failure (`service_result_table` in src/core/service.c), written even
    /// at 0 so that `increase()` sees a unit's first crash; `unknown` holds the crashes without a notice.
    public static let crashResults = [
        "core-dump", "exit-code", "oom-kill", "protocol", "resources", "signal", "start-limit-hit", "timeout",
        "unknown", "watchdog",
    ]

    func unitFamilies() -> [MetricFamily] {
        var launches: [MetricFamily.Sample] = []
        var wakes: [MetricFamily.Sample] = []
        var sleeps: [MetricFamily.Sample] = []
        var crashes: [MetricFamily.Sample] = []
        var updates: [MetricFamily.Sample] = []
        var awake: [MetricFamily.Sample] = []
        var lastEvents: [MetricFamily.Sample] = []
        var firstLaunches: [MetricFamily.Sample] = []
        var versions: [MetricFamily.Sample] = []
        var looping: [MetricFamily.Sample] = []
        var startups: [MetricFamily.Sample] = []
        var cpu: [MetricFamily.Sample] = []
        var oomKills: [MetricFamily.Sample] = []
        var coredumps: [MetricFamily.Sample] = []
        for record in records.sorted(by: { $0.unit < $1.unit }) {
            let name = ["name": record.unit]
            let state = record.state
            launches.append(.init(name, .count(state.totalLaunchCount)))
            wakes.append(.init(name, .count(state.totalWakeCount)))
            sleeps.append(.init(name, .count(state.totalSleepCount)))
            for (result, count) in Self.crashesByResult(record) {
                crashes.append(.init(name.merging(["result": result]) { a, _ in a }, .count(count)))
            }
            updates.append(.init(name, .count(record.updateCount)))
            awake.append(.init(name, .seconds(state.totalSecondsAwake)))
            let times: [(String, Milliseconds?)] = [
                ("launch", state.lastLaunch), ("wake", state.lastWake), ("sleep", state.lastSleep),
                ("crash", record.lastFailure?.time), ("update", state.update),
            ]
            for case (let event, let time?) in times {
                lastEvents.append(.init(name.merging(["event": event]) { a, _ in a }, .milliseconds(time)))
            }
            if let first = state.firstLaunch { firstLaunches.append(.init(name, .milliseconds(first))) }
            if let version = state.version {
                versions.append(.init(name.merging(["version": version]) { a, _ in a }, .count(1)))
            }
            looping.append(.init(name, .count(crashLoop.isLooping(record.recentCrashes, now: now) ? 1 : 0)))
            let totals = record.runTotals
            if totals.startups > 0 { startups += Self.startupHistogram(totals, name: name) }
            cpu.append(.init(name, .microseconds(totals.cpuMicroseconds)))
            for source in RunTotals.oomSources {
                oomKills.append(.init(name.merging(["source": source]) { a, _ in a }, .count(totals.oomKills[source] ?? 0)))
            }
            coredumps.append(.init(name, .count(totals.coredumps)))
        }
        return [
            MetricFamily(
                "lifecycled_unit_launches_total", .counter, help: "Launches of the unit (count_total_launch).",
                samples: launches
            ),
            MetricFamily(
                "lifecycled_unit_wakes_total", .counter,
                help: "Starts of the unit, launches included, as the reference module counts wakes (count_total_wake).",
                samples: wakes
            ),
            MetricFamily(
                "lifecycled_unit_sleeps_total", .counter, help: "Clean stops of the unit (count_total_sleep).",
                samples: sleeps
            ),
            MetricFamily(
                "lifecycled_unit_crashes_total", .counter,
                help: "Failed runs of the unit by systemd's Result; unknown: crashes seen without a crash notice.",
                samples: crashes
            ),
            MetricFamily(
                "lifecycled_unit_updates_total", .counter, help: "Version changes of the unit seen at a launch.",
                samples: updates
            ),
            MetricFamily(
                "lifecycled_unit_awake_seconds_total", .counter,
                help: "Seconds the unit was awake in runs that ended with a sleep (total_seconds_awake).",
                samples: awake
            ),
            MetricFamily(
                "lifecycled_unit_last_event_timestamp_seconds", .gauge,
                help: "When the unit's last event of each kind happened (wake: the last launch or wake).",
                samples: lastEvents
            ),
            MetricFamily(
                "lifecycled_unit_first_launch_timestamp_seconds", .gauge, help: "When the unit first launched.",
                samples: firstLaunches
            ),
            MetricFamily(
                "lifecycled_unit_version_info", .gauge, help: "The unit's current version; the value is always 1.",
                samples: versions
            ),
            MetricFamily(
                "lifecycled_unit_crash_looping", .gauge,
                help: "1 while the unit has failed crash_loop_crashes times within crash_loop_minutes, else 0.",
                samples: looping
            ),
            MetricFamily(
                "lifecycled_unit_startup_seconds", .histogram,
                help: "Seconds from leaving inactive to becoming active, per run whose start-up is known.",
                samples: startups
            ),
            MetricFamily(
                "lifecycled_unit_cpu_seconds_total", .counter,
                help: "CPU time of the unit's ended runs, of those whose CPU time systemd could tell.",
                samples: cpu
            ),
            MetricFamily(
                "lifecycled_unit_oom_kills_total", .counter,
                help: "Runs of the unit a process of which was OOM-killed, by the kernel or by systemd-oomd (source).",
                samples: oomKills
            ),
            MetricFamily(
                "lifecycled_unit_coredumps_total", .counter, help: "Runs of the unit that left a core dump.",
                samples: coredumps
            ),
        ]
    }

    /// One unit's start-up histogram (``histogram(bounds:cumulative:count:sumMicroseconds:labels:)``).
    static func startupHistogram(_ totals: RunTotals, name: [String: String]) -> [MetricFamily.Sample] {
        histogram(
            bounds: RunTotals.startupBounds, cumulative: totals.cumulativeStartupBuckets, count: totals.startups,
            sumMicroseconds: totals.startupMicroseconds, labels: name
        )
    }

    /// A histogram's samples: a cumulative bucket per bound and `+Inf`, then the sum and the count.
    static func histogram(
        bounds: [Double], cumulative: [Int], count: Int, sumMicroseconds: Int64, labels: [String: String]
    ) -> [MetricFamily.Sample] {
        var samples = zip(bounds, cumulative).map { bound, count in
            MetricFamily.Sample(labels.merging(["le": Self.boundText(bound)]) { a, _ in a }, .count(count), suffix: "_bucket")
        }
        samples.append(.init(labels.merging(["le": "+Inf"]) { a, _ in a }, .count(count), suffix: "_bucket"))
        samples.append(.init(labels, .microseconds(sumMicroseconds), suffix: "_sum"))
        samples.append(.init(labels, .count(count), suffix: "_count"))
        return samples
    }

    /// A bound as Prometheus's clients write `le`: `1` for a whole number, `0.25` otherwise.
    private static func boundText(_ bound: Double) -> String {
        bound == bound.rounded() ? String(Int(bound)) : String(bound)
    }

    /// The unit's failed runs by Result: the record's counts, every common Result at least at 0, and `unknown` for
    /// the crashes the engine counted beyond the crash notices. Each only grows: a notice adds 1 to its Result and
    /// to the crash count together, and the next launch's crash detection replaces the notice's "last run failed".
    public static func crashesByResult(_ record: UnitRecord) -> [String: Int] {
        var counts = Dictionary(uniqueKeysWithValues: crashResults.map { ($0, 0) })
        counts.merge(record.crashResults) { _, new in new }
        let noted = record.crashResults.values.reduce(0, +)
        counts["unknown", default: 0] += max(0, record.crashCount - noted)
        return counts
    }
}
