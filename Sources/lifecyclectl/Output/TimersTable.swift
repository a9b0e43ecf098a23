// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// `lifecyclectl timers`: the timers of the tracked units in the manner of `systemctl list-timers`, with what
/// lifecycled recorded of their elapses.
enum TimersTable {
    static let columns: [TextTable.Column] = [
        .init(title: "NEXT", alignment: .left),
        .init(title: "LEFT", alignment: .left),
        .init(title: "LAST", alignment: .left),
        .init(title: "UNIT", alignment: .left),
        .init(title: "ACTIVATES", alignment: .left),
        .init(title: "RUNS", alignment: .right),
        .init(title: "MISSED", alignment: .right),
        .init(title: "LATE", alignment: .right),
        .init(title: "LAST RESULT", alignment: .left),
    ]

    static func render(_ rows: [TimerRow], now: Milliseconds, colour: Bool, legend: Bool = true) -> String {
        if rows.isEmpty { return legend ? "No timer of a tracked unit has elapsed yet.\n" : "" }
        var table = TextTable(columns: columns)
        for row in rows { table.append(cells(row, now: now)) }
        var lines = table.lines(header: legend, colour: colour)
        if legend {
            lines.append("")
            lines.append("Times in UTC. LATE: median/max of the runs' begin less their due time (the median of the "
                + "last \(TimerTotals.recentLimit)). MISSED: due runs that never began.")
            lines.append(rows.count == 1 ? "1 timer listed." : "\(rows.count) timers listed.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func cells(_ row: TimerRow, now: Milliseconds) -> [TextTable.Cell] {
        let totals = row.totals
        func time(_ value: Milliseconds?) -> String {
            value.map { LifecycleDateFormat.iso8601Milliseconds.string($0) } ?? "-"
        }
        let left = totals.nextElapse.map { Humanize.relativeTime($0, now: now) } ?? "-"
        let late = totals.medianLatenessSeconds.map { median in
            Humanize.seconds(median) + "/" + Humanize.seconds(Double(totals.maxLatenessMicroseconds) / 1_000_000)
        } ?? "-"
        let missed = totals.missedCount
        return [
            .init(time(totals.nextElapse)), .init(left), .init(time(totals.lastTrigger)), .init(row.timer),
            .init(row.unit), .init(String(totals.runs)), .init(String(missed), style: missed > 0 ? .red : nil),
            .init(late), .init(row.lastResult, style: totals.lastOutcome == .missed ? .red : nil),
        ]
    }
}

/// `lifecyclectl timers --json`: one compact JSON object with sorted keys and a newline:
/// `{"timers": [{"coalesced": 0, "last_cause": null, "last_result": "ran", "last_trigger": "2026-03-02T03:00:00.012Z",
/// "lateness_max_seconds": 3.2, "lateness_median_seconds": 0.01, "missed": 1, "missed_by_cause": {"dependency": 1},
/// "next_elapse": "2026-03-03T03:00:00.000Z", "runs": 12, "skipped": 0, "timer": "backup.timer",
/// "unit": "backup.service"}, …]}`; `null` where unknown.
enum TimersJSON {
    static func render(_ rows: [TimerRow]) -> String {
        var writer = JSONWriter()
        writer.value(.object(["timers": .array(rows.map(object))]))
        writer.byte(UInt8(ascii: "\n"))
        return writer.string
    }

    private static func object(_ row: TimerRow) -> JSONValue {
        let totals = row.totals
        func time(_ value: Milliseconds?) -> JSONValue {
            value.map { .string(LifecycleDateFormat.iso8601Milliseconds.string($0)) } ?? .null
        }
        return .object([
            "timer": .string(row.timer),
            "unit": .string(row.unit),
            "runs": .int(Int64(totals.runs)),
            "missed": .int(Int64(totals.missedCount)),
            "missed_by_cause": .object(totals.missed.mapValues { .int(Int64($0)) }),
            "skipped": .int(Int64(totals.skipped)),
            "coalesced": .int(Int64(totals.coalesced)),
            "last_trigger": time(totals.lastTrigger),
            "next_elapse": time(totals.nextElapse),
            "lateness_median_seconds": totals.medianLatenessSeconds.map(JSONValue.double) ?? .null,
            "lateness_max_seconds": totals.runs > 0 ? .double(Double(totals.maxLatenessMicroseconds) / 1_000_000) : .null,
            "last_result": totals.lastOutcome.map { .string($0.rawValue) } ?? .null,
            "last_cause": totals.lastCause.map(JSONValue.string) ?? .null,
        ])
    }
}
