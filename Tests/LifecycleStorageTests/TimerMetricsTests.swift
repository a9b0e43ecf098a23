// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage
import Testing

/// The timer families of the metrics file, from the timers' totals in the records of the units they start.
struct TimerMetricsTests {
    typealias M = LifecycleMetricsTests

    static func record() -> UnitRecord {
        var record = UnitRecord(unit: "backup.service")
        var totals = TimerTotals()
        totals.countRun(latenessSeconds: 0.05)
        totals.countRun(latenessSeconds: 3.25)
        totals.countMissed(cause: "dependency")
        totals.count(.skipped)
        totals.lastTrigger = M.t0
        totals.nextElapse = M.t0 + 86_400_000
        record.timers["backup.timer"] = totals
        var stopped = TimerTotals()
        stopped.lastTrigger = M.t0 - 1_000
        record.timers["old.timer"] = stopped
        return record
    }

    @Test("runs, misses by cause (the common ones from 0), skips, the schedule and the lateness histogram")
    func families() {
        let text = M.render([Self.record()])
        let labels = #"timer="backup.timer",unit="backup.service""#
        #expect(M.lines(text, "lifecycled_timer_runs_total").contains("lifecycled_timer_runs_total{\(labels)} 2"))
        #expect(M.lines(text, "lifecycled_timer_missed_total").filter { $0.contains("backup.timer") } == [
            "lifecycled_timer_missed_total{cause=\"canceled\",\(labels)} 0",
            "lifecycled_timer_missed_total{cause=\"dependency\",\(labels)} 1",
            "lifecycled_timer_missed_total{cause=\"failed\",\(labels)} 0",
            "lifecycled_timer_missed_total{cause=\"start-limit-hit\",\(labels)} 0",
            "lifecycled_timer_missed_total{cause=\"timeout\",\(labels)} 0",
        ])
        #expect(M.lines(text, "lifecycled_timer_skipped_total").filter { $0.contains("backup.timer") } == [
            "lifecycled_timer_skipped_total{reason=\"coalesced\",\(labels)} 0",
            "lifecycled_timer_skipped_total{reason=\"condition\",\(labels)} 1",
        ])
        #expect(M.lines(text, "lifecycled_timer_last_trigger_timestamp_seconds").contains(
            "lifecycled_timer_last_trigger_timestamp_seconds{\(labels)} 1772359200"
        ))
        #expect(M.lines(text, "lifecycled_timer_next_elapse_timestamp_seconds") == [
            "lifecycled_timer_next_elapse_timestamp_seconds{\(labels)} 1772445600"
        ], "a stopped timer has no next elapse")
        let histogram = text.split(separator: "\n").filter { $0.hasPrefix("lifecycled_timer_lateness_seconds_") && $0.contains("backup.timer") }
        #expect(histogram.contains("lifecycled_timer_lateness_seconds_bucket{le=\"0.1\",\(labels)} 1"))
        #expect(histogram.contains("lifecycled_timer_lateness_seconds_bucket{le=\"1\",\(labels)} 1"))
        #expect(histogram.contains("lifecycled_timer_lateness_seconds_bucket{le=\"5\",\(labels)} 2"))
        #expect(histogram.contains("lifecycled_timer_lateness_seconds_bucket{le=\"+Inf\",\(labels)} 2"))
        #expect(histogram.contains("lifecycled_timer_lateness_seconds_sum{\(labels)} 3.3"))
        #expect(histogram.contains("lifecycled_timer_lateness_seconds_count{\(labels)} 2"))
    }

    @Test("the median of the recent latenesses and the longest")
    func lateness() {
        var totals = TimerTotals()
        #expect(totals.medianLatenessSeconds == nil)
        for seconds in [3.0, 1.0, 2.0, 10.0] { totals.countRun(latenessSeconds: seconds) }
        #expect(totals.medianLatenessSeconds == 2.5)
        #expect(totals.maxLatenessMicroseconds == 10_000_000)
        for _ in 0..<TimerTotals.recentLimit { totals.countRun(latenessSeconds: 0.5) }
        #expect(totals.medianLatenessSeconds == 0.5, "only the last \(TimerTotals.recentLimit)")
        #expect(totals.maxLatenessMicroseconds == 10_000_000, "the longest of all")
    }
}
