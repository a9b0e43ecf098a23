// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage
import Testing

/// What the runs cost, in the metrics file: a start-up histogram, CPU seconds, OOM kills and core dumps per unit.
struct RunTotalsMetricsTests {
    typealias M = LifecycleMetricsTests

    private static func record(_ runs: [RunRecord]) -> UnitRecord {
        var record = M.record()
        for run in runs { record.runTotals.add(run, of: nil) }
        return record
    }

    @Test("the start-up histogram: cumulative buckets by bound, +Inf, the sum and the count, in that order")
    func histogram() {
        let text = M.render([Self.record([
            RunRecord(startupSeconds: 0.05), RunRecord(startupSeconds: 1), RunRecord(startupSeconds: 1.000_25),
            RunRecord(startupSeconds: 400), RunRecord(cpuSeconds: 2),
        ])])
        let lines = text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("lifecycled_unit_startup_seconds") }
        #expect(lines == [
            #"lifecycled_unit_startup_seconds_bucket{le="0.1",name="web.service"} 1"#,
            #"lifecycled_unit_startup_seconds_bucket{le="0.25",name="web.service"} 1"#,
            #"lifecycled_unit_startup_seconds_bucket{le="0.5",name="web.service"} 1"#,
            #"lifecycled_unit_startup_seconds_bucket{le="1",name="web.service"} 2"#,
            #"lifecycled_unit_startup_seconds_bucket{le="2.5",name="web.service"} 3"#,
            #"lifecycled_unit_startup_seconds_bucket{le="5",name="web.service"} 3"#,
            #"lifecycled_unit_startup_seconds_bucket{le="10",name="web.service"} 3"#,
            #"lifecycled_unit_startup_seconds_bucket{le="30",name="web.service"} 3"#,
            #"lifecycled_unit_startup_seconds_bucket{le="60",name="web.service"} 3"#,
            #"lifecycled_unit_startup_seconds_bucket{le="120",name="web.service"} 3"#,
            #"lifecycled_unit_startup_seconds_bucket{le="300",name="web.service"} 3"#,
            #"lifecycled_unit_startup_seconds_bucket{le="+Inf",name="web.service"} 4"#,
            #"lifecycled_unit_startup_seconds_sum{name="web.service"} 402.05025"#,
            #"lifecycled_unit_startup_seconds_count{name="web.service"} 4"#,
        ])
        #expect(text.contains("# TYPE lifecycled_unit_startup_seconds histogram\n"))
        #expect(M.lines(text, "lifecycled_unit_cpu_seconds_total") == [#"lifecycled_unit_cpu_seconds_total{name="web.service"} 2"#])
    }

    @Test("OOM kills by source and core dumps are written at 0 too; no histogram without a known start-up")
    func countsAtZero() {
        let text = M.render([Self.record([RunRecord(oom: .oomd, coredump: CoreDump(signal: 6))]), M.record("db.service")])
        #expect(M.lines(text, "lifecycled_unit_oom_kills_total") == [
            #"lifecycled_unit_oom_kills_total{name="db.service",source="kernel"} 0"#,
            #"lifecycled_unit_oom_kills_total{name="db.service",source="oomd"} 0"#,
            #"lifecycled_unit_oom_kills_total{name="web.service",source="kernel"} 0"#,
            #"lifecycled_unit_oom_kills_total{name="web.service",source="oomd"} 1"#,
        ])
        #expect(M.lines(text, "lifecycled_unit_coredumps_total") == [
            #"lifecycled_unit_coredumps_total{name="db.service"} 0"#, #"lifecycled_unit_coredumps_total{name="web.service"} 1"#,
        ])
        #expect(!text.contains("lifecycled_unit_startup_seconds"))
    }

    /// `isEmpty` reads the fields one by one: it must say what `== RunTotals()` says, for each field changed alone.
    @Test("empty totals are exactly the initial ones, whichever field changed")
    func isEmpty() {
        #expect(RunTotals().isEmpty)
        let changes: [(String, (inout RunTotals) -> Void)] = [
            ("a bucket", { $0.startupBuckets[3] = 1 }),
            ("a bucket more", { $0.startupBuckets.append(0) }),
            ("startups", { $0.startups = 1 }),
            ("start-up time", { $0.startupMicroseconds = 1 }),
            ("counted for", { $0.startupCountedFor = "" }),
            ("CPU", { $0.cpuMicroseconds = 1 }),
            ("an OOM kill", { $0.oomKills["oomd"] = 1 }),
            ("another OOM source", { $0.oomKills["other"] = 0 }),
            ("an OOM source less", { $0.oomKills["kernel"] = nil }),
            ("core dumps", { $0.coredumps = 1 }),
        ]
        for (name, change) in changes {
            var totals = RunTotals()
            change(&totals)
            #expect(!totals.isEmpty, "\(name)")
            #expect(totals.isEmpty == (totals == RunTotals()), "\(name)")
        }
    }
}
