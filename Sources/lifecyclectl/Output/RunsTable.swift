// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// `lifecyclectl runs UNIT` as a table, newest run first, one row per run: INVOCATION, BEGAN and AS (the time and
/// launch or wake), ENDED and AS (the time, or `running`, and sleep or crash), RESULT (`success`, or systemd's Result
/// with the exit status or signal, as in `signal, status=9/KILL`; an OOM kill or a core dump the run's record knows is
/// said there too, see ``result(_:)``), DURATION, STARTUP, CPU, MEM PEAK (with `wide`, IO READ and IO WRITE as well),
/// VERSION and RECOVERED.
///
/// The run's record is lifecycled's at the run's end; a value it does not know is `-`, never `0`.
enum RunsTable {
    /// The columns; with `wide`, IO READ and IO WRITE too.
    static func columns(wide: Bool) -> [TextTable.Column] {
        let io: [TextTable.Column] = [
            .init(title: "IO READ", alignment: .right),
            .init(title: "IO WRITE", alignment: .right),
        ]
        return [
            .init(title: "INVOCATION", alignment: .left),
            .init(title: "BEGAN", alignment: .left),
            .init(title: "AS", alignment: .left),
            .init(title: "ENDED", alignment: .left),
            .init(title: "AS", alignment: .left),
            .init(title: "RESULT", alignment: .left),
            .init(title: "DURATION", alignment: .right),
            .init(title: "STARTUP", alignment: .right),
            .init(title: "CPU", alignment: .right),
            .init(title: "MEM PEAK", alignment: .right),
        ] + (wide ? io : []) + [
            .init(title: "VERSION", alignment: .left),
            .init(title: "RECOVERED", alignment: .left),
        ]
    }

    /// The table, ending in a newline; a line saying so when there is no run.
    static func render(unit: String, runs: [UnitRun], colour: Bool, legend: Bool = true, wide: Bool = false) -> String {
        if runs.isEmpty { return legend ? "No run of \(unit) in the journal.\n" : "" }
        var table = TextTable(columns: columns(wide: wide))
        for run in runs { table.append(row(run, wide: wide)) }
        var lines = table.lines(header: legend, colour: colour)
        if legend {
            lines.append("")
            lines.append(
                "Times in UTC. RECOVERED: lifecycled was not listening and recorded the run afterwards, at its real "
                    + "time."
            )
            lines.append(
                (wide ? "STARTUP, CPU, MEM PEAK, IO READ, IO WRITE" : "STARTUP, CPU, MEM PEAK")
                    + ": recorded at the run's end; -: the host could not say (e.g. no CPU or memory accounting)."
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

    /// The RESULT of `run`: systemd's Result with the exit status or signal (`signal, status=9/KILL`), and what the
    /// run's record adds:
    /// - an OOM kill names its killer, after the Result `oom-kill` (`oom-kill (kernel), status=9/KILL`) or, when the
    ///   run ended otherwise (`OOMPolicy=continue`), after the Result (`success, oom-kill (oomd)`);
    /// - a core dump is the Result `core-dump` itself (`core-dump, status=11/SEGV`, the dump's signal when the notice
    ///   has no status), or follows another Result with its signal (`signal, status=6/ABRT, core-dump (11/SEGV)`:
    ///   a process other than the main one dumped core).
    ///
    /// Nil while the run goes on.
    static func result(_ run: UnitRun) -> String? {
        guard var text = run.result else { return nil }
        let oom = run.record.oom.map { "oom-kill (\($0.rawValue))" }
        let dumpSignal = run.record.coredump?.signal.flatMap { signal in
            SignalName.name(Int64(signal)).map { "\(signal)/\($0)" } ?? String(signal)
        }
        if let oom, text == OOMKiller.oomKillResult { text = oom }
        let status = run.exitStatus ?? (text == "core-dump" ? dumpSignal : nil)
        if let status { text += ", status=\(status)" }
        if let oom, run.result != OOMKiller.oomKillResult { text += ", " + oom }
        if run.record.coredump != nil, run.result != "core-dump" {
            text += ", core-dump" + (dumpSignal.map { " (\($0))" } ?? "")
        }
        return text
    }

    private static func row(_ run: UnitRun, wide: Bool) -> [TextTable.Cell] {
        func time(_ value: Milliseconds?) -> String {
            value.map { LifecycleDateFormat.iso8601Milliseconds.string($0) } ?? "-"
        }
        func bytes(_ value: UInt64?) -> TextTable.Cell { .init(value.map(Humanize.bytes) ?? "-") }
        let record = run.record
        let hasTrouble = run.end == "crash" || record.oom != nil || record.coredump != nil
        let io: [TextTable.Cell] = wide ? [bytes(record.ioReadBytes), bytes(record.ioWriteBytes)] : []
        return [
            .init(run.invocationID ?? "-"),
            .init(time(run.beganAt)),
            .init(run.begin?.rawValue ?? "-"),
            .init(run.end == nil && run.beganAt != nil ? "running" : time(run.endedAt)),
            .init(run.end ?? "-", style: run.end == "crash" ? .red : nil),
            .init(result(run) ?? "-", style: hasTrouble ? .red : nil),
            .init(run.durationSeconds.map { Humanize.duration(seconds: $0) } ?? "-"),
            .init(record.startupSeconds.map(Humanize.seconds) ?? "-"),
            .init(record.cpuSeconds.map(Humanize.seconds) ?? "-"),
            bytes(record.memoryPeakBytes),
        ] + io + [
            .init(run.version.map(Humanize.version) ?? "-"),
            .init(run.reconciled ? "yes" : "no"),
        ]
    }
}
