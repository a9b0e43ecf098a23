// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// Runs rebuilt from PID 1's journal entries, in the sequences systemd 252 was measured to log
/// (docs/systemd.md, "PID 1's journal entries about a run").
struct RunHistoryTests {
    typealias ID = RunEnding.MessageID

    func entry(_ unit: String, _ run: String, _ id: String, _ time: Milliseconds, _ fields: [String: String] = [:]) -> RunEnding.Entry {
        RunEnding.Entry(messageID: id, time: time, fields: fields.merging(["UNIT": unit, "INVOCATION_ID": run]) { $1 })
    }

    @Test("entries are grouped by unit and InvocationID, each run with its begin and its ending")
    func groupsRuns() {
        let history = RunHistory(entries: [
            entry("a.service", "a1", ID.unitStarted, 10),
            entry("b.service", "b1", ID.unitStarting, 11),
            entry("a.service", "a1", ID.unitSuccess, 20),
            entry("a.service", "a1", ID.unitStopped, 21),
            entry("a.service", "a2", ID.unitStarted, 30),
            entry("b.service", "b1", ID.unitStarted, 31),
            entry("b.service", "b1", ID.unitProcessExit, 40, ["EXIT_CODE": "exited", "EXIT_STATUS": "3"]),
            entry("b.service", "b1", ID.unitFailureResult, 41, ["UNIT_RESULT": "exit-code"]),
        ])
        #expect(history.runs["a.service"] == [
            RunHistory.Run(invocationID: "a1", began: 10, ending: .endedCleanly(at: 20)),
            RunHistory.Run(invocationID: "a2", began: 30, ending: nil),
        ])
        // A oneshot or a slow start logs "Starting" first: the run began then, not when the start job finished; its
        // start-up is from "Starting" to "Started".
        var b1 = RunHistory.Run(
            invocationID: "b1", began: 11,
            ending: .failed(CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 3), at: 41)
        )
        b1.record.startupSeconds = 0.02
        #expect(history.runs["b.service"] == [b1])
    }

    @Test("past the history's end, only the skip of a start begun before it counts: that start is no run")
    func skipPastTheEnd() {
        var builder = RunHistory.Builder()
        for entry in [
            entry("a.service", "a1", ID.unitStarting, 10), entry("b.service", "b1", ID.unitStarting, 11),
        ] { builder.add(entry) }
        // After the end: a1's condition skipped it; b1 started and stopped, and c1 began and was skipped, which the
        // signals record.
        for entry in [
            entry("a.service", "a1", ID.unitSkipped, 12), entry("b.service", "b1", ID.unitStarted, 13),
            entry("b.service", "b1", ID.unitSuccess, 14), entry("c.service", "c1", ID.unitStarting, 15),
            entry("c.service", "c1", ID.unitSkipped, 16),
        ] { builder.addPastEnd(entry) }
        let history = builder.finish()
        #expect((history.runs["a.service"] ?? []).isEmpty, "a skipped start is no run")
        #expect(history.runs["b.service"] == [RunHistory.Run(invocationID: "b1", began: 11, ending: nil)],
                "begun before the end, over after it: the signals tell its end")
        #expect(history.runs["c.service"] == nil)
    }

    @Test("read in slices: a unit's last run stays in the builder until its entries say it is over, so a run cut in two is decided whole")
    func slicesKeepOpenRuns() {
        var builder = RunHistory.Builder()
        // Slice one: a1 is over; a2 has only begun starting (a condition will skip it); b1 is over; b2 is starting.
        for entry in [
            entry("a.service", "a1", ID.unitStarted, 10), entry("a.service", "a1", ID.unitSuccess, 20),
            entry("a.service", "a2", ID.unitStarting, 30), entry("b.service", "b1", ID.unitStarted, 11),
            entry("b.service", "b1", ID.unitSuccess, 12), entry("b.service", "b2", ID.unitStarting, 31),
        ] { builder.add(entry) }
        let first = builder.takeDecided()
        #expect(first.runs["a.service"]?.map(\.invocationID) == ["a1"])
        #expect(first.runs["b.service"]?.map(\.invocationID) == ["b1"])
        // Slice two: a2 was skipped; b2 started 2 s after it began starting, and runs on.
        for entry in [
            entry("a.service", "a2", ID.unitSkipped, 31), entry("b.service", "b2", ID.unitStarted, 2_031),
            entry("c.service", "c1", ID.unitStarting, 2_040),
        ] { builder.add(entry) }
        let second = builder.takeDecided()
        // Each unit's last run given out comes first again, so that the next runs are found after it.
        #expect(second.runs["a.service"]?.map(\.invocationID) == ["a1"], "a skipped start is no run, in whichever slice its skip comes")
        // b2 has begun but not ended: the last run of its unit, it waits for the next slice like c1.
        #expect(second.runs["b.service"]?.map(\.invocationID) == ["b1"])
        let last = builder.finish()
        var b2 = RunHistory.Run(invocationID: "b2", began: 31, ending: nil)
        b2.record.startupSeconds = 2
        #expect(last.runs["b.service"]?.last == b2, "its start-up from both slices' entries")
        #expect(last.runs(of: "b.service", after: "b1").map(\.invocationID) == ["b2"])
        #expect(last.runs["c.service"]?.map(\.invocationID) == ["c1"], "the last slice gives out every run")
        #expect(builder.finish().runs.isEmpty)
    }

    @Test("read in slices: a run given out is not made again from an entry that comes after it, and the next run is found after it whatever the clock")
    func slicesAcrossClockSteps() {
        var builder = RunHistory.Builder()
        for entry in [
            entry("a.service", "a1", ID.unitStarted, 1_000), entry("a.service", "a1", ID.unitSuccess, 2_000),
        ] { builder.add(entry) }
        #expect(builder.takeDecided().runs(of: "a.service", after: nil).map(\.invocationID) == ["a1"])
        // PID 1's "Consumed …" of a1 comes in the next slice; then the clock steps back an hour, and a2 runs.
        for entry in [
            entry("a.service", "a1", RunRecord.MessageID.unitResources, 2_001, ["CPU_USAGE_NSEC": "5000000"]),
            entry("a.service", "a2", ID.unitStarted, 1_000 - 3_600_000), entry("a.service", "a2", ID.unitSuccess, 1_500 - 3_600_000),
        ] { builder.add(entry) }
        let next = builder.finish()
        // The record's run is a1, its last event at 2,000: a2 is after a1, although it began before by the clock.
        #expect(next.runs(of: "a.service", after: "a1", recordedUntil: 2_000).map(\.invocationID) == ["a2"])
    }

    @Test("a run whose start failed (no Starting or Started) began at its first entry")
    func failedStart() {
        let history = RunHistory(entries: [
            entry("x.service", "x1", ID.unitProcessExit, 5, ["EXIT_CODE": "exited", "EXIT_STATUS": "203"]),
            entry("x.service", "x1", ID.unitFailureResult, 6, ["UNIT_RESULT": "exit-code"]),
            entry("x.service", "x1", ID.unitFailed, 7),
        ])
        #expect(history.runs["x.service"]?.map(\.began) == [5])
        #expect(history.runs["x.service"]?.first?.ending == .failed(CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 203), at: 6))
    }

    @Test("a start that ExecCondition= skipped is no run (Starting, Skipped, then the start job done)")
    func skippedStart() {
        let history = RunHistory(entries: [
            entry("c.service", "c1", ID.unitStarting, 5),
            entry("c.service", "c1", ID.unitSkipped, 6, ["UNIT_RESULT": "exec-condition"]),
            entry("c.service", "c1", ID.unitStarted, 7, ["JOB_RESULT": "done"]),
            entry("c.service", "c2", ID.unitStarting, 8),
            entry("c.service", "c2", ID.unitStarted, 9),
        ])
        #expect(history.runs["c.service"]?.map(\.invocationID) == ["c2"])
    }

    @Test("entries without UNIT or INVOCATION_ID are not runs")
    func incompleteEntries() {
        let history = RunHistory(entries: [
            RunEnding.Entry(messageID: ID.unitStarted, time: 1, fields: ["UNIT": "a.service"]),
            RunEnding.Entry(messageID: ID.unitStarted, time: 2, fields: ["INVOCATION_ID": "a1"]),
            RunEnding.Entry(messageID: ID.unitStarted, time: 3, fields: ["UNIT": "", "INVOCATION_ID": "a1"]),
        ])
        #expect(history.runs.isEmpty)
    }

    @Test("runs after a given run: the later ones; all when that run is not in the history")
    func runsAfter() {
        let history = RunHistory(entries: [
            entry("a.service", "a1", ID.unitStarted, 10),
            entry("a.service", "a2", ID.unitStarted, 20),
            entry("a.service", "a3", ID.unitStarted, 30),
        ])
        #expect(history.runs(of: "a.service", after: "a1").map(\.invocationID) == ["a2", "a3"])
        #expect(history.runs(of: "a.service", after: "a3").isEmpty)
        #expect(history.runs(of: "a.service", after: "older").map(\.invocationID) == ["a1", "a2", "a3"])
        #expect(history.runs(of: "a.service", after: nil).count == 3)
        #expect(history.runs(of: "other.service", after: nil).isEmpty)
    }

    @Test("when the given run is missing (journald was down as it began), only runs that began after the recorded time")
    func runsAfterRecordedTime() {
        let history = RunHistory(entries: [
            entry("a.service", "a1", ID.unitStarted, 10), entry("a.service", "a2", ID.unitStarted, 20),
        ])
        #expect(history.runs(of: "a.service", after: "lost", recordedUntil: 15).map(\.invocationID) == ["a2"])
        #expect(history.runs(of: "a.service", after: "lost", recordedUntil: 20).isEmpty)
        #expect(history.runs(of: "a.service", after: "a1", recordedUntil: 99).map(\.invocationID) == ["a2"])
    }

    @Test("a long journal is taken one entry at a time, keeping only the first and the last entry of each kind per run")
    func builderKeepsWhatDecides() {
        // A run that restarts its main process many times: each exit is logged, the last one is what counts.
        var entries = [entry("a.service", "a1", ID.unitStarting, 1), entry("a.service", "a1", ID.unitStarted, 2)]
        for second in 3..<500 {
            entries.append(entry("a.service", "a1", ID.unitProcessExit, Milliseconds(second), [
                "EXIT_CODE": second == 499 ? "killed" : "exited", "EXIT_STATUS": second == 499 ? "9" : "0",
            ]))
        }
        entries.append(entry("a.service", "a1", ID.unitFailureResult, 500, ["UNIT_RESULT": "signal"]))
        var builder = RunHistory.Builder()
        for entry in entries { builder.add(entry) }
        var expected = RunHistory.Run(
            invocationID: "a1", began: 1,
            ending: .failed(CrashDetails(result: "signal", execMainCode: 2, execMainStatus: 9), at: 500)
        )
        expected.record.startupSeconds = 0.001
        let history = builder.finish()
        #expect(history.runs["a.service"] == [expected])
        #expect(RunHistory(entries: entries) == history)
        #expect(builder.finish().runs.isEmpty, "finishing lets the entries go")
        #expect(RunEnding(entries: entries) == expected.ending, "the same ending as from every entry")
    }

    @Test("a recovered run's record: start-up from Starting to Started by PID 1's monotonic clock, and the Consumed entry")
    func recordOfARun() {
        func at(_ id: String, _ time: Milliseconds, monotonic: UInt64, _ fields: [String: String] = [:]) -> RunEnding.Entry {
            var entry = entry("a.service", "a1", id, time, fields)
            entry.monotonicMicroseconds = monotonic
            return entry
        }
        // The wall clock stepped back between the two: the monotonic clock still says 1.5 s.
        let history = RunHistory(entries: [
            at(ID.unitStarting, 5_000, monotonic: 10_000_000),
            at(ID.unitStarted, 1_000, monotonic: 11_500_000),
            at(RunRecord.MessageID.unitResources, 9_000, monotonic: 20_000_000, ["CPU_USAGE_NSEC": "250000000"]),
            at(ID.unitSuccess, 9_000, monotonic: 20_000_000),
        ])
        #expect(history.runs["a.service"]?.first?.record == RunRecord(startupSeconds: 1.5, durationSeconds: 10, cpuSeconds: 0.25))
        // A run not over yet has no duration; one whose entries lack the monotonic clock neither.
        let going = RunHistory(entries: [at(ID.unitStarting, 5_000, monotonic: 10_000_000), at(ID.unitStarted, 6_000, monotonic: 11_000_000)])
        #expect(going.runs["a.service"]?.first?.record.durationSeconds == nil)
        let failed = RunHistory(entries: [
            at(ID.unitStarted, 5_000, monotonic: 10_000_000),
            at(ID.unitFailureResult, 7_000, monotonic: 12_500_000, ["UNIT_RESULT": "exit-code"]),
        ])
        #expect(failed.runs["a.service"]?.first?.record.durationSeconds == 2.5, "from its first entry to its failure")
    }

    @Test("runs that dumped core take systemd-coredump's entries within them, in order; other units' and earlier dumps are not theirs")
    func coreDumps() {
        func dumped(_ run: String, at time: Milliseconds, signal: String = "11") -> [RunEnding.Entry] {
            [
                entry("web.service", run, ID.unitProcessExit, time, ["EXIT_CODE": "dumped", "EXIT_STATUS": signal]),
                entry("web.service", run, ID.unitFailureResult, time, ["UNIT_RESULT": "core-dump"]),
            ]
        }
        var history = RunHistory(entries: [entry("web.service", "a", ID.unitStarted, 10_200)] + dumped("a", at: 12_500)
            + [entry("web.service", "b", ID.unitStarted, 12_600)] + dumped("b", at: 12_900, signal: "6")
            + [entry("web.service", "c", ID.unitStarted, 13_000), entry("web.service", "c", ID.unitSuccess, 14_000)]
            + [entry("web.service", "d", ID.unitStarted, 20_000)] + dumped("d", at: 21_000))
        #expect(history.coreDumpSpan == 10_000...21_000, "from the second the first dumped run began to the last one's end")
        func dump(_ unit: String, second: Int, signal: String, by writer: String = "systemd-coredump@1.service") -> RunEnding.Entry {
            RunEnding.Entry(messageID: CoreDump.messageID, time: 0, fields: [
                "MESSAGE_ID": CoreDump.messageID, "COREDUMP_UNIT": unit, "COREDUMP_SIGNAL": signal,
                "COREDUMP_TIMESTAMP": "\(second)000000", "_SYSTEMD_UNIT": writer,
            ])
        }
        history.addCoreDumps([
            (dump("web.service", second: 5, signal: "11"), "before"),
            (dump("db.service", second: 12, signal: "11"), "db"),
            (dump("web.service", second: 12, signal: "11", by: "evil.service"), "forged"),
            (dump("web.service", second: 12, signal: "11"), "first"),
            (dump("web.service", second: 12, signal: "6"), "second"),
        ])
        let records = history.runs["web.service"]?.map(\.record.coredump)
        #expect(records == [
            CoreDump(signal: 11, cursor: "first"), CoreDump(signal: 6, cursor: "second"), nil, nil,
        ], "a and b share second 12 and take its dumps in order; c did not dump; d's dump is not in the journal")
        #expect(history.coreDumpSpan == 20_000...21_000, "only d is left to find")
    }
}
