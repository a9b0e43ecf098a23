// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

@testable import lifecyclectl

/// `lifecyclectl runs`: the table's columns of a run's record (STARTUP, CPU, MEM PEAK, with --wide IO READ and
/// IO WRITE), and RESULT with an OOM kill or a core dump.
struct RunsTableTests {
    static let id = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

    /// A run launched at 10:00:00 and ended at 10:01:00 by `event` (`sleep` or `crash`) with `end`'s fields.
    static func run(_ event: String, _ end: [String: String] = [:]) -> UnitRun {
        let dispatches = Fixtures.journaled([
            ["LIFECYCLE_SEQUENCE": "1", "LIFECYCLE_EVENT": "launch", "LIFECYCLE_INVOCATION_ID": id],
            [
                "LIFECYCLE_SEQUENCE": "2", "LIFECYCLE_EVENT": event, "LIFECYCLE_INVOCATION_ID": id,
                "LIFECYCLE_TIME": "2026-03-02T10:01:00.000Z",
            ].merging(end) { _, new in new },
        ])
        return UnitRun.runs(from: dispatches)[0]
    }

    static let measured = run(
        "sleep",
        [
            "LIFECYCLE_RUN_STARTUP_SECONDS": "1.02", "LIFECYCLE_RUN_CPU_SECONDS": "0.23",
            "LIFECYCLE_RUN_MEMORY_PEAK_BYTES": "12950000", "LIFECYCLE_RUN_IO_READ_BYTES": "1536",
            "LIFECYCLE_RUN_IO_WRITE_BYTES": "0",
        ]
    )

    @Test("a run's start-up, CPU and memory peak in human units, - where unknown")
    func recordColumns() {
        let unknown = Self.run("sleep")
        let text = RunsTable.render(unit: "app.service", runs: [Self.measured, unknown], colour: false)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0].hasSuffix("RESULT  DURATION STARTUP   CPU MEM PEAK VERSION RECOVERED"))
        #expect(lines[1].hasSuffix("sleep success   1m 00s   1.02s 230ms    12.3M -       no"))
        #expect(lines[2].hasSuffix("sleep success   1m 00s       -     -        - -       no"))
        #expect(!text.contains("IO READ"))
    }

    @Test("--wide adds IO READ and IO WRITE (a known 0 is 0B), and the legend names them")
    func wide() {
        let text = RunsTable.render(unit: "app.service", runs: [Self.measured], colour: false, wide: true)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0].hasSuffix("CPU MEM PEAK IO READ IO WRITE VERSION RECOVERED"))
        #expect(lines[1].hasSuffix("230ms    12.3M    1.5K       0B -       no"))
        #expect(
            lines.contains(
                "STARTUP, CPU, MEM PEAK, IO READ, IO WRITE: recorded at the run's end; -: the host could not say "
                    + "(e.g. no CPU or memory accounting)."
            )
        )
    }

    @Test("the legend explains the record's columns in one line; without the legend there is no such line")
    func legend() {
        let text = RunsTable.render(unit: "app.service", runs: [Self.measured], colour: false)
        #expect(
            text.contains(
                "\nSTARTUP, CPU, MEM PEAK: recorded at the run's end; -: the host could not say (e.g. no CPU or "
                    + "memory accounting).\n"
            )
        )
        let bare = RunsTable.render(unit: "app.service", runs: [Self.measured], colour: false, legend: false)
        #expect(bare.split(separator: "\n").count == 1)
    }

    /// (event, the end's fields, RESULT)
    static let results: [(String, [String: String], String)] = {
        func crash(_ result: String, _ code: String? = nil, _ status: String? = nil) -> [String: String] {
            var fields = ["LIFECYCLE_UNIT_RESULT": result]
            fields["LIFECYCLE_EXIT_CODE"] = code
            fields["LIFECYCLE_EXIT_STATUS"] = status
            return fields
        }
        let kernel = ["LIFECYCLE_RUN_OOM": "kernel"]
        let dump = ["LIFECYCLE_RUN_COREDUMP": "true"]
        let segv = ["LIFECYCLE_RUN_COREDUMP": "true", "LIFECYCLE_RUN_COREDUMP_SIGNAL": "11"]
        return [
            ("sleep", [:], "success"),
            ("crash", crash("exit-code", "exited", "7"), "exit-code, status=7"),
            ("crash", crash("oom-kill", "killed", "9").merging(kernel) { $1 }, "oom-kill (kernel), status=9/KILL"),
            ("crash", crash("oom-kill").merging(["LIFECYCLE_RUN_OOM": "oomd"]) { $1 }, "oom-kill (oomd)"),
            ("crash", crash("oom-kill"), "oom-kill"),
            ("sleep", kernel, "success, oom-kill (kernel)"),
            ("crash", crash("core-dump", "dumped", "11").merging(segv) { $1 }, "core-dump, status=11/SEGV"),
            ("crash", crash("core-dump").merging(segv) { $1 }, "core-dump, status=11/SEGV"),
            (
                "crash", crash("signal", "killed", "6").merging(segv) { $1 },
                "signal, status=6/ABRT, core-dump (11/SEGV)"
            ),
            ("crash", crash("exit-code", "exited", "1").merging(dump) { $1 }, "exit-code, status=1, core-dump"),
        ]
    }()

    @Test(
        "RESULT names an OOM kill's killer and a core dump's signal, and keeps its look otherwise",
        arguments: results
    )
    func result(event: String, end: [String: String], expected: String) {
        let run = Self.run(event, end)
        #expect(RunsTable.result(run) == expected)
        let row = RunsTable.render(unit: "app.service", runs: [run], colour: false, legend: false)
        #expect(row.contains(" \(event) \(expected) "))
    }

    @Test("a running run has no RESULT yet")
    func running() {
        let run = UnitRun.runs(from: Fixtures.journaled([["LIFECYCLE_SEQUENCE": "1", "LIFECYCLE_EVENT": "launch"]]))[0]
        #expect(RunsTable.result(run) == nil)
    }

    @Test("with colour, RESULT is red for a crash and for an OOM kill in a run that ended with a sleep")
    func colour() {
        let red = TextStyle.red.escape
        let oom = RunsTable.render(
            unit: "app.service", runs: [Self.run("sleep", ["LIFECYCLE_RUN_OOM": "oomd"])], colour: true, legend: false
        )
        #expect(oom.contains(red + "success, oom-kill (oomd)" + TextStyle.reset))
        let clean = RunsTable.render(unit: "app.service", runs: [Self.run("sleep")], colour: true, legend: false)
        #expect(!clean.contains(red))
    }
}
