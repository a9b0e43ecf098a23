// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

/// A failed run's end asks the journal what no property tells, before its crash notice is recorded: who OOM-killed
/// it, and systemd-coredump's entry of its core dump.
struct DaemonCoreRunJournalTests {
    typealias H = CoreHarness

    /// web.service's run `a` began at second 1 and is being tracked.
    private func tracking() throws -> H {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        return h
    }

    /// Run `a` failed at second `second` with `result`; its main process ended with `code` (`ExecMainCode`) and
    /// `status`.
    private static func failed(result: String, code: Int32, status: Int32, second: UInt64 = 4) -> UnitSnapshot {
        var snapshot = H.snapshot("failed", "a", second: second, result: result)
        snapshot.execMainCode = code
        snapshot.execMainStatus = status
        return snapshot
    }

    private static let run = UnitRunID(unit: H.unit, invocationID: H.run("a"))

    private func crashFields(_ h: H) -> [String: String] {
        guard let end = h.journal.last else { return [:] }
        return Dictionary(end.entry.fields.map { ($0.name, $0.value) }) { first, _ in first }
    }

    /// The table: a failure, what the journal answers, what the crash notice says.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var result: String
        var code: Int32
        var status: Int32
        /// The journal's answers, one a read.
        var answers: [RunJournalFindings]
        /// What is asked: a barrier (an OOM kill), a core-dump span (a dump).
        var asksBarrier: Bool
        var asksCoreDump: Bool
        var reads: Int
        var oom: String?
        var coredump: String?
        var coredumpSignal: String?
        var coredumpCursor: String?

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "an exit code asks nothing", result: "exit-code", code: 1, status: 3, answers: [],
            asksBarrier: false, asksCoreDump: false, reads: 0
        ),
        Case(
            name: "a kill by a signal asks nothing", result: "signal", code: 2, status: 9, answers: [],
            asksBarrier: false, asksCoreDump: false, reads: 0
        ),
        Case(
            name: "an OOM kill: the kernel's message", result: "oom-kill", code: 2, status: 9,
            answers: [RunJournalFindings(oom: .kernel, barrierSeen: true)],
            asksBarrier: true, asksCoreDump: false, reads: 1, oom: "kernel"
        ),
        Case(
            name: "an OOM kill: systemd-oomd's message", result: "oom-kill", code: 2, status: 9,
            answers: [RunJournalFindings(oom: .oomd, barrierSeen: true)],
            asksBarrier: true, asksCoreDump: false, reads: 1, oom: "oomd"
        ),
        Case(
            name: "an OOM kill whose message PID 1 did not log (LogLevelMax=): no killer", result: "oom-kill", code: 2,
            status: 9, answers: [RunJournalFindings(barrierSeen: true)],
            asksBarrier: true, asksCoreDump: false, reads: 1
        ),
        Case(
            name: "an OOM kill behind a stalled journald: read again until the barrier shows", result: "oom-kill",
            code: 2, status: 9,
            answers: [RunJournalFindings(), RunJournalFindings(), RunJournalFindings(oom: .kernel, barrierSeen: true)],
            asksBarrier: true, asksCoreDump: false, reads: 3, oom: "kernel"
        ),
        Case(
            name: "a core dump kept by systemd-coredump: its signal and cursor", result: "core-dump", code: 3,
            status: 11,
            answers: [RunJournalFindings(coreDump: .found(CoreDump(signal: 11, cursor: "s=1;i=2")))],
            asksBarrier: false, asksCoreDump: true, reads: 1, coredump: "true", coredumpSignal: "11",
            coredumpCursor: "s=1;i=2"
        ),
        Case(
            name: "a core dump systemd-coredump logs a little later", result: "core-dump", code: 3, status: 6,
            answers: [
                RunJournalFindings(coreDump: .pending), RunJournalFindings(coreDump: .pending),
                RunJournalFindings(coreDump: .found(CoreDump(signal: 6, cursor: "s=1;i=9"))),
            ],
            asksBarrier: false, asksCoreDump: true, reads: 3, coredump: "true", coredumpSignal: "6",
            coredumpCursor: "s=1;i=9"
        ),
        Case(
            name: "a core dump on a host that keeps none in the journal: from the Result, without a cursor",
            result: "core-dump", code: 3, status: 11, answers: [RunJournalFindings(coreDump: .unavailable)],
            asksBarrier: false, asksCoreDump: true, reads: 1, coredump: "true", coredumpSignal: "11"
        ),
    ]

    @Test("a failure asks the journal what it tells, and the crash notice carries it", arguments: cases)
    func table(_ c: Case) throws {
        var h = try tracking()
        if !c.answers.isEmpty { h.runJournals[H.run("a")] = c.answers }
        h.send(.changed(Self.failed(result: c.result, code: c.code, status: c.status)))
        while h.armed[.retryRunJournal] != nil, h.runJournalQueries.count < 100 { h.fire(.retryRunJournal) }
        #expect(h.dispatches() == ["1 launch a", "2 crash a"])
        #expect(h.runJournalQueries.count == c.reads)
        let first = h.runJournalQueries.first
        #expect((first?.barrier != nil) == c.asksBarrier)
        #expect(first?.barrier?.write ?? c.asksBarrier == c.asksBarrier, "the first read writes the probe")
        #expect(h.runJournalQueries.dropFirst().allSatisfy { $0.barrier?.write != true }, "later reads only look")
        #expect((first?.coreDumpSpan != nil) == c.asksCoreDump)
        let fields = crashFields(h)
        #expect(fields["LIFECYCLE_UNIT_RESULT"] == c.result)
        #expect(fields["LIFECYCLE_RUN_OOM"] == c.oom)
        #expect(fields["LIFECYCLE_RUN_COREDUMP"] == c.coredump)
        #expect(fields["LIFECYCLE_RUN_COREDUMP_SIGNAL"] == c.coredumpSignal)
        #expect(fields["LIFECYCLE_RUN_COREDUMP_CURSOR"] == c.coredumpCursor)
        #expect(h.core.tracker.records[H.unit]?.runTotals.coredumps == (c.coredump == nil ? 0 : 1))
    }

    @Test("the core dump is looked for from the second the run began to its end")
    func coreDumpSpan() throws {
        var h = try tracking()
        h.send(.changed(Self.failed(result: "core-dump", code: 3, status: 11, second: 4)))
        // Run a launched at t0 + 1 s and failed at t0 + 4 s.
        #expect(h.runJournalQueries.first?.coreDumpSpan == (H.t0 + 1_000)...(H.t0 + 4_000))
    }

    @Test("while the journal is read, the next change waits; it is recorded after the crash notice")
    func nextWaits() throws {
        var h = try tracking()
        h.runJournals[H.run("a")] = [
            RunJournalFindings(coreDump: .pending), RunJournalFindings(coreDump: .found(CoreDump(signal: 11))),
        ]
        h.send(.changed(Self.failed(result: "core-dump", code: 3, status: 11)))
        h.send(.changed(H.snapshot("active", "b", second: 5)))
        #expect(h.dispatches() == ["1 launch a"], "the crash waits for the dump, and the next run for the crash")
        h.fire(.retryRunJournal)
        #expect(h.dispatches() == ["1 launch a", "2 crash a", "3 launch b"])
    }

    @Test("a core dump systemd-coredump never logs is recorded after the patience, from the Result, and said")
    func dumpNeverLogged() throws {
        var h = try tracking()
        h.runJournals[H.run("a")] = [RunJournalFindings(coreDump: .pending)]
        let start = h.now
        h.send(.changed(Self.failed(result: "core-dump", code: 3, status: 11)))
        while h.armed[.retryRunJournal] != nil, h.runJournalQueries.count < 1_000 { h.fire(.retryRunJournal) }
        #expect(h.dispatches() == ["1 launch a", "2 crash a"])
        #expect(h.now - start <= 20_000, "at most the patience")
        #expect(h.now - start >= 15_000, "not given up early")
        #expect(crashFields(h)["LIFECYCLE_RUN_COREDUMP"] == "true")
        #expect(crashFields(h)["LIFECYCLE_RUN_COREDUMP_CURSOR"] == nil)
        #expect(h.logs.contains { $0.message.contains("systemd-coredump logged no core dump") })
    }

    @Test("a run recovered from PID 1's journal that dumped core carries the dump and its signal, with no read")
    func recoveredDump() throws {
        var h = try H()
        h.recovery = RecoveryAnswer(history: RunHistory(entries: [
            H.entry(RunEnding.MessageID.unitStarting, of: "a", second: 1),
            H.entry(RunEnding.MessageID.unitStarted, of: "a", second: 2),
            H.entry(RunEnding.MessageID.unitProcessExit, of: "a", second: 5, ["EXIT_CODE": "dumped", "EXIT_STATUS": "11"]),
            H.entry(RunEnding.MessageID.unitFailureResult, of: "a", second: 5, ["UNIT_RESULT": "core-dump"]),
        ]))
        h.send(.start)
        h.send(.listing([]))
        #expect(h.dispatches() == ["1 launch a reconciled", "2 crash a reconciled"])
        #expect(h.runJournalQueries.isEmpty)
        #expect(crashFields(h)["LIFECYCLE_RUN_COREDUMP"] == "true")
        #expect(crashFields(h)["LIFECYCLE_RUN_COREDUMP_SIGNAL"] == "11")
    }
}
