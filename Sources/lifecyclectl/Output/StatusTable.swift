// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// `lifecyclectl status` as a table: pure, so that every byte of it is pinned by tests.
///
/// ```
/// lifecycled: running (pid 412)
///
/// UNIT          STATE   RESULT LAUNCHES STARTS SLEEPS CRASHES LAST EVENT WHEN    DAYS  AWAKE VERSION
/// nginx.service stopped -             2      3      2       1 sleep      1 h ago    1 2h 00m 1.25.3
///
/// STATE = the last run as lifecycled recorded it, not systemd's live state: running; stopped (it slept); failed
/// … (the legend, see ``legendLines(crashLoop:)``)
/// 1 unit listed.
/// ```
enum StatusTable {
    /// The column titles and alignments, in order.
    static let columns: [TextTable.Column] = [
        .init(title: "UNIT", alignment: .left),
        .init(title: "STATE", alignment: .left),
        .init(title: "RESULT", alignment: .left),
        .init(title: "LAUNCHES", alignment: .right),
        .init(title: "STARTS", alignment: .right),
        .init(title: "SLEEPS", alignment: .right),
        .init(title: "CRASHES", alignment: .right),
        .init(title: "LAST EVENT", alignment: .left),
        .init(title: "WHEN", alignment: .left),
        .init(title: "DAYS", alignment: .right),
        .init(title: "AWAKE", alignment: .right),
        .init(title: "VERSION", alignment: .left),
    ]

    /// The explanation under the table, like systemctl's legend: what each state means and what each number counts.
    static func legendLines(crashLoop: CrashLoopRule) -> [String] {
        [
            "STATE = the last run as lifecycled recorded it, not systemd's live state: running; stopped (it slept); "
                + "failed",
            "  (RESULT: systemd's Result and exit status or signal); crash-looping (\(crashLoop.crashes) failures "
                + "within \(crashLoop.minutes) min).",
            "LAUNCHES = cold starts. STARTS = launches and wakes together (the reference's wake count). "
                + "SLEEPS = clean stops.",
            "CRASHES = runs that failed, the last one included. DAYS = complete days since the first launch.",
            "AWAKE = time awake in runs that ended with a sleep, plus the running one; a failed run adds nothing.",
        ]
    }

    /// The table of `records` at `now`, ending in a newline (empty when there is nothing to print).
    ///
    /// - Parameters:
    ///   - records: the state files' records, in any order; rows are sorted by unit name.
    ///   - now: the instant relative times, days and time awake are computed for.
    ///   - timeZone: the zone of the engine's local calendar (no column depends on it today).
    ///   - daemon: whether lifecycled runs, for the first line.
    ///   - colour: true to use ANSI colours (the daemon, the states, crashes).
    ///   - legend: false for the rows alone, without the daemon line, header and footer (`--no-legend`).
    ///   - crashLoop: when failures make a crash loop.
    ///   - emptyMessage: what to say when there is no row.
    static func render(
        _ records: [UnitRecord],
        now: Milliseconds,
        timeZone: TimeZoneRules,
        daemon: DaemonStatus,
        colour: Bool,
        legend: Bool = true,
        crashLoop: CrashLoopRule = CrashLoopRule(),
        emptyMessage: String = "No unit has been tracked yet."
    ) -> String {
        let summaries = UnitSummary.summaries(records, now: now, timeZone: timeZone, crashLoop: crashLoop)
        var table = TextTable(columns: columns)
        for summary in summaries { table.append(cells(summary, now: now)) }

        var lines: [String] = []
        if legend {
            lines.append(daemonLine(daemon, colour: colour))
            lines.append("")
            if summaries.isEmpty {
                lines.append(emptyMessage)
                return lines.joined(separator: "\n") + "\n"
            }
        }
        lines += table.lines(header: legend, colour: colour)
        if legend {
            lines.append("")
            lines += legendLines(crashLoop: crashLoop)
            lines.append(summaries.count == 1 ? "1 unit listed." : "\(summaries.count) units listed.")
        }
        return lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n"
    }

    /// `lifecycled: running (pid 412)`, `lifecycled: not running` or `lifecycled: unknown (reason)`.
    static func daemonLine(_ daemon: DaemonStatus, colour: Bool) -> String {
        switch daemon {
        case .running(let pid):
            return "lifecycled: \(TextStyle.green.apply("running", colour: colour)) (pid \(pid))"
        case .notRunning:
            return "lifecycled: \(TextStyle.red.apply("not running", colour: colour))"
        case .unknown(let reason):
            return "lifecycled: \(TextStyle.yellow.apply("unknown", colour: colour)) (\(reason))"
        }
    }

    /// One unit's cells, the same for a state file and for a collected journal (``FleetTable`` adds the machine).
    static func cells(_ unit: UnitSummary, now: Milliseconds) -> [TextTable.Cell] {
        [
            .init(unit.unit),
            .init(unit.stateText ?? "-", style: style(unit)),
            .init(unit.failure?.summary ?? "-"),
            .init(String(unit.launches)),
            .init(String(unit.wakes)),
            .init(String(unit.sleeps)),
            .init(String(unit.crashes), style: unit.crashes > 0 ? .red : nil),
            .init(unit.lastEvent?.rawValue ?? "-"),
            .init(unit.lastEventTime.map { Humanize.relativeTime($0, now: now) } ?? "-"),
            .init(unit.daysSinceLaunch.map { String($0) } ?? "-"),
            .init(Humanize.duration(seconds: unit.totalSecondsAwake)),
            .init(unit.version.map(Humanize.version) ?? "-"),
        ]
    }

    /// Green while running, red when failed or crash-looping.
    private static func style(_ unit: UnitSummary) -> TextStyle? {
        if unit.isCrashLooping || unit.runState == .failed { return .red }
        return unit.runState == .running ? .green : nil
    }
}
