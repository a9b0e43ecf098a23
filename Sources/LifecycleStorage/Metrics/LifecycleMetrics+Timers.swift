// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The timers' families, from the records of the units they start (``TimerTotals``), labelled `timer` and `unit`
/// (docs/metrics.md, "Timers").
extension LifecycleMetrics {
    /// systemd's job results for a start that never ran, and the unit Result a refused start takes, written even at
    /// 0 so that `increase()` sees a timer's first miss.
    public static let missedCauses = ["canceled", "dependency", "failed", "start-limit-hit", "timeout"]

    func timerFamilies() -> [MetricFamily] {
        var runs: [MetricFamily.Sample] = []
        var missed: [MetricFamily.Sample] = []
        var skipped: [MetricFamily.Sample] = []
        var lastTriggers: [MetricFamily.Sample] = []
        var nextElapses: [MetricFamily.Sample] = []
        var lateness: [MetricFamily.Sample] = []
        for record in records.sorted(by: { $0.unit < $1.unit }) {
            for (timer, totals) in record.timers.sorted(by: { $0.key < $1.key }) {
                let labels = ["timer": timer, "unit": record.unit]
                runs.append(.init(labels, .count(totals.runs)))
                var causes = Dictionary(uniqueKeysWithValues: Self.missedCauses.map { ($0, 0) })
                causes.merge(totals.missed) { _, new in new }
                for (cause, count) in causes.sorted(by: { $0.key < $1.key }) {
                    missed.append(.init(labels.merging(["cause": cause]) { a, _ in a }, .count(count)))
                }
                skipped.append(.init(labels.merging(["reason": "condition"]) { a, _ in a }, .count(totals.skipped)))
                skipped.append(.init(labels.merging(["reason": "coalesced"]) { a, _ in a }, .count(totals.coalesced)))
                if let time = totals.lastTrigger { lastTriggers.append(.init(labels, .milliseconds(time))) }
                if let time = totals.nextElapse { nextElapses.append(.init(labels, .milliseconds(time))) }
                lateness += Self.latenessHistogram(totals, labels: labels)
            }
        }
        return [
            MetricFamily(
                "lifecycled_timer_runs_total", .counter, help: "Runs the timer started of the unit it activates.",
                samples: runs
            ),
            MetricFamily(
                "lifecycled_timer_missed_total", .counter,
                help: "Elapses of the timer whose run never began, by systemd's job result (cause).",
                samples: missed
            ),
            MetricFamily(
                "lifecycled_timer_skipped_total", .counter,
                help: "Elapses that began no run and missed none: a condition skipped the start, or the previous run "
                    + "still went on (coalesced).",
                samples: skipped
            ),
            MetricFamily(
                "lifecycled_timer_last_trigger_timestamp_seconds", .gauge,
                help: "When the timer last elapsed (LastTriggerUSec).", samples: lastTriggers
            ),
            MetricFamily(
                "lifecycled_timer_next_elapse_timestamp_seconds", .gauge,
                help: "When the timer elapses next; absent while nothing is planned (the timer stopped).",
                samples: nextElapses
            ),
            MetricFamily(
                "lifecycled_timer_lateness_seconds", .histogram,
                help: "Seconds from the timer's elapse to the begin of the run it started.", samples: lateness
            ),
        ]
    }

    /// One timer's lateness histogram.
    static func latenessHistogram(_ totals: TimerTotals, labels: [String: String]) -> [MetricFamily.Sample] {
        histogram(
            bounds: TimerTotals.latenessBounds, cumulative: totals.cumulativeLatenessBuckets, count: totals.runs,
            sumMicroseconds: totals.latenessMicroseconds, labels: labels
        )
    }
}
