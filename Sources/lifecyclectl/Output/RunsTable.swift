// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// `lifecyclectl runs UNIT` as a table, newest run first, one row per run: INVOCATION, BEGAN and AS (the time and
/// launch or wake), ENDED and AS (the time, or `running`, and sleep or crash), RESULT (`success`, or systemd's Result
/// with the exit status or signal, as in `signal, status=9/KILL`), DURATION, VERSION and RECOVERED.
enum RunsTable {
    static let columns: [TextTable.Column] = [
        .init(title: "INVOCATION", alignment: .left),
        .init(title: "BEGAN", alignment: .left),
        .init(title: "AS", alignment: .left),
        .init(title: "ENDED", alignment: .left),
        .init(title: "AS", alignment: .left),
        .init(title: "RESULT", alignment: .left),
        .init(title: "DURATION", alignment: .right),
        .init(title: "VERSION", alignment: .left),
        .init(title: "RECOVERED", alignment: .left),
    ]

    /// The table, ending in a newline; a line saying so when there is no run.
    static func render(unit: String, runs: [UnitRun], colour: Bool, legend: Bool = true) -> String {
        if runs.isEmpty { return legend ? "No run of \(unit) in the journal.\n" : "" }
        var table = TextTable(columns: columns)
        for run in runs { table.append(row(run)) }
        var lines = table.lines(header: legend, colour: colour)
        if legend {
            lines.append("")
            lines.append(
                "Times in UTC. RECOVERED: lifecycled was not listening and recorded the run afterwards, at its real "
                    + "time."
            )
            if runs.contains(where: { $0.result == UnitRun.unknownResult }) {
                lines.append(
                    "unknown: no source showed how the run ended (LIFECYCLE_RUN_END=unknown); ENDED is the last "
                        + "time it was known to be going."
                )
            }
            lines.append(runs.count == 1 ? "1 run listed." : "\(runs.count) runs listed.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func row(_ run: UnitRun) -> [TextTable.Cell] {
        func time(_ value: Milliseconds?) -> String {
            value.map { LifecycleDateFormat.iso8601Milliseconds.string($0) } ?? "-"
        }
        let result = run.result.map { result in run.exitStatus.map { "\(result), status=\($0)" } ?? result }
        return [
            .init(run.invocationID ?? "-"),
            .init(time(run.beganAt)),
            .init(run.begin?.rawValue ?? "-"),
            .init(run.end == nil && run.beganAt != nil ? "running" : time(run.endedAt)),
            .init(run.end ?? "-", style: run.end == "crash" ? .red : nil),
            .init(result ?? "-", style: run.end == "crash" ? .red : nil),
            .init(run.durationSeconds.map { Humanize.duration(seconds: $0) } ?? "-"),
            .init(run.version.map(Humanize.version) ?? "-"),
            .init(run.reconciled ? "yes" : "no"),
        ]
    }
}
