// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

@testable import lifecyclectl

/// `lifecyclectl runs`: runs made of lifecycled's dispatches as the journal holds them.
struct UnitRunTests {
    static let runA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let runB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    static let runC = "cccccccccccccccccccccccccccccccc"
    static let runD = "dddddddddddddddddddddddddddddddd"

    private func dispatch(
        _ sequence: Int, _ event: String, _ time: String, _ id: String?, _ extra: [String: String] = [:]
    ) -> [String: String] {
        var fields = [
            "LIFECYCLE_SEQUENCE": String(sequence), "LIFECYCLE_EVENT": event, "LIFECYCLE_TIME": "2026-03-02T\(time)Z",
        ]
        if let id { fields["LIFECYCLE_INVOCATION_ID"] = id }
        return fields.merging(extra) { _, new in new }
    }

    private var history: [[String: String]] {
        [
            dispatch(1, "launch", "10:00:00.000", Self.runA, ["LIFECYCLE_VERSION": "1.0"]),
            dispatch(2, "sleep", "10:01:00.000", Self.runA, ["LIFECYCLE_VERSION": "1.0"]),
            dispatch(3, "wake", "10:02:00.000", Self.runB, ["LIFECYCLE_VERSION": "1.0"]),
            dispatch(
                4, "crash", "10:02:05.500", Self.runB,
                ["LIFECYCLE_UNIT_RESULT": "signal", "LIFECYCLE_EXIT_CODE": "killed", "LIFECYCLE_EXIT_STATUS": "9"]
            ),
            dispatch(5, "deploy", "10:02:06.000", nil),
            dispatch(
                6, "launch", "10:03:00.000", Self.runC, ["LIFECYCLE_RECONCILED": "true", "LIFECYCLE_VERSION": "1.1"]
            ),
        ]
    }

    @Test("runs newest first: how each began and ended, the failure, the duration, the version, recovered or not")
    func runs() {
        let runs = UnitRun.runs(from: Fixtures.journaled(history))
        #expect(runs.map(\.invocationID) == [Self.runC, Self.runB, Self.runA])
        #expect(runs[0].begin == .launch && runs[0].end == nil && runs[0].durationSeconds == nil)
        #expect(runs[0].reconciled && runs[0].version == "1.1")
        #expect(runs[1].begin == .wake && runs[1].end == "crash")
        #expect(runs[1].result == "signal" && runs[1].exitStatus == "9/KILL" && runs[1].durationSeconds == 5)
        #expect(runs[2].end == "sleep" && runs[2].result == "success" && runs[2].durationSeconds == 60)
        #expect(!runs[2].reconciled)
    }

    @Test("the duration of a run whose end carries it is PID 1's monotonic one: a wall clock stepped during the run changes nothing")
    func monotonicDuration() {
        let stepped = [
            dispatch(1, "launch", "10:00:00.000", Self.runA),
            // The clock was set back an hour while the run went on; the run lasted 90.7 s.
            dispatch(2, "sleep", "09:01:30.700", Self.runA, ["LIFECYCLE_RUN_DURATION_SECONDS": "90.7"]),
            dispatch(3, "launch", "10:00:00.000", Self.runB),
            dispatch(4, "sleep", "10:00:40.000", Self.runB, ["LIFECYCLE_RUN_DURATION_SECONDS": "1e999"]),
        ]
        let runs = UnitRun.runs(from: Fixtures.journaled(stepped))
        #expect(runs[1].durationSeconds == 90)
        #expect(runs[0].durationSeconds == 40, "a duration that is no number: by the dispatches' times")
    }

    @Test("order comes from the sequence numbers, and a dispatch sent twice counts once")
    func orderAndDuplicates() {
        let shuffled = history.reversed() + [history[1]]
        #expect(UnitRun.runs(from: Fixtures.journaled(Array(shuffled))) == UnitRun.runs(from: Fixtures.journaled(history)))
    }

    @Test("a freeze and a thaw stay within their run; manual runs without an InvocationID pair up in order")
    func freezeAndManual() {
        let frozen = [
            dispatch(1, "launch", "10:00:00.000", Self.runA),
            dispatch(2, "sleep", "10:00:10.000", Self.runA),
            dispatch(3, "wake", "10:00:20.000", Self.runA),
            dispatch(4, "sleep", "10:00:30.000", Self.runA),
            dispatch(5, "launch", "11:00:00.000", nil),
            dispatch(6, "sleep", "11:00:02.000", nil),
        ]
        let runs = UnitRun.runs(from: Fixtures.journaled(frozen))
        #expect(runs.count == 2)
        #expect(runs[0].invocationID == nil && runs[0].durationSeconds == 2)
        #expect(runs[1].invocationID == Self.runA && runs[1].durationSeconds == 30)
    }

    @Test("a run's record comes from its end, its start-up from its begin while it goes on; a thaw forgets the freeze's; a time that is no number is unknown")
    func record() {
        let measured = [
            "LIFECYCLE_RUN_STARTUP_SECONDS": "1.5", "LIFECYCLE_RUN_CPU_SECONDS": "0.25",
            "LIFECYCLE_RUN_MEMORY_PEAK_BYTES": "4096", "LIFECYCLE_RUN_OOM": "kernel",
        ]
        let dispatches = [
            dispatch(1, "launch", "10:00:00.000", Self.runA, ["LIFECYCLE_RUN_CPU_SECONDS": "9"]),
            dispatch(2, "crash", "10:00:10.000", Self.runA, measured.merging(["LIFECYCLE_UNIT_RESULT": "x"]) { $1 }),
            dispatch(3, "launch", "10:01:00.000", Self.runB),
            dispatch(4, "sleep", "10:01:10.000", Self.runB, ["LIFECYCLE_RUN_CPU_SECONDS": "2"]),
            dispatch(5, "wake", "10:01:20.000", Self.runB),
            dispatch(6, "launch", "10:02:00.000", Self.runC),
            dispatch(7, "sleep", "10:02:10.000", Self.runC, ["LIFECYCLE_RUN_STARTUP_SECONDS": "inf"]),
            dispatch(8, "launch", "10:03:00.000", Self.runD, ["LIFECYCLE_RUN_STARTUP_SECONDS": "0.5"]),
        ]
        let runs = UnitRun.runs(from: Fixtures.journaled(dispatches))
        let expected = RunRecord(startupSeconds: 1.5, cpuSeconds: 0.25, memoryPeakBytes: 4_096, oom: .kernel)
        #expect(runs[3].record == expected)
        #expect(runs[2].end == nil && runs[2].record.isEmpty)
        #expect(runs[1].record.startupSeconds == nil && runs[1].record.isEmpty)
        #expect(runs[0].end == nil && runs[0].record == RunRecord(startupSeconds: 0.5), "a run going on shows its start-up")
    }

    @Test("the JSON document has every key, null where unknown")
    func json() throws {
        let rendered = RunsJSON.render(unit: "web.service", runs: UnitRun.runs(from: Fixtures.journaled(history)))
        let document = try JSONParser.parse(Array(rendered.utf8))
        guard case .array(let runs)? = document.objectValue?["runs"] else {
            Issue.record("no runs in \(rendered)")
            return
        }
        #expect(document.objectValue?["unit"] == .string("web.service"))
        #expect(
            runs[0].objectValue?.keys.sorted() == [
                "began_at", "begin", "coredump", "cpu_seconds", "duration_seconds", "end", "ended_at", "exit_status",
                "invocation_id", "io_read_bytes", "io_write_bytes", "memory_peak_bytes", "oom", "reconciled", "result",
                "startup_seconds", "version",
            ]
        )
        #expect(runs[0].objectValue?["end"] == .null)
        #expect(runs[1].objectValue?["exit_status"] == .string("9/KILL"))
        #expect(runs[1].objectValue?["began_at"] == .string("2026-03-02T10:02:00.000Z"))
    }

    @Test("--since takes RFC 3339 and relative times")
    func since() {
        let now: Milliseconds = 1_772_452_800_000
        #expect(SinceOption.parse("2026-03-02T12:00:00Z", now: 0) == now)
        #expect(SinceOption.parse("-2h", now: now) == now - 7_200_000)
        #expect(SinceOption.parse("30min ago", now: now) == now - 1_800_000)
        #expect(SinceOption.parse("yesterday", now: now) == nil)
        #expect(SinceOption.parse("-2y", now: now) == nil)
    }

    @Test("the table shows a killed run's signal and a running run")
    func table() {
        let runs = UnitRun.runs(from: Fixtures.journaled(history))
        let text = RunsTable.render(unit: "web.service", runs: runs, colour: false, legend: false)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].contains("running"))
        #expect(lines[1].contains("crash signal, status=9/KILL"))
        #expect(lines[2].hasSuffix("sleep success               1m 00s - - - 1.0 no"))
    }

    @Test("a sleep marked LIFECYCLE_RUN_END=unknown: the result is unknown, the duration too, and the legend says why")
    func unknownEnd() {
        let dispatches = [
            dispatch(1, "launch", "10:00:00.000", Self.runA),
            dispatch(2, "sleep", "10:05:00.000", Self.runA, ["LIFECYCLE_RUN_END": "unknown", "LIFECYCLE_RECONCILED": "true"]),
            dispatch(3, "wake", "10:06:00.000", Self.runB),
        ]
        let runs = UnitRun.runs(from: Fixtures.journaled(dispatches))
        #expect(runs[1].end == "sleep" && runs[1].result == "unknown" && runs[1].durationSeconds == nil)
        let text = RunsTable.render(unit: "web.service", runs: runs, colour: false)
        #expect(text.contains("sleep unknown"))
        #expect(text.contains("unknown: no source showed how the run ended"))
        #expect(RunsJSON.render(unit: "web.service", runs: runs).contains(#""result":"unknown""#))
    }
}
