// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import Testing

/// The orders in which lifecycled's sources of truth can report a run, each given to the pure core: every run is
/// begun and ended once, and what was missed is recorded before anything newer.
struct DaemonCoreOrderingTests {
    typealias H = CoreHarness

    /// A record of web.service whose run `run` launched at `second` and is still going, with sequence 1.
    static func running(_ run: Character, second: Int64 = 1) -> UnitRecord {
        var state = UnitState()
        let engine = LifecycleEngine(settings: LifecycleSettings(), calendar: LocalCalendar(timeZone: H.utc))
        _ = engine.track(.launch, at: H.t0 + second * 1_000, state: &state, origin: .autotracked)
        return UnitRecord(unit: H.unit, state: state, invocationID: H.run(run), sequence: 1)
    }

    @Test("a change that arrives before the start's recovery waits for it: the runs missed before it are recorded first")
    func changeBeforeRecovery() throws {
        var h = try H(records: [Self.running("a")])
        h.recovery = nil
        h.send(.start)
        #expect(h.watched.count == 1)
        h.now = H.t0 + 21_000
        h.send(.changed(H.snapshot("active", "d", second: 20)))
        h.send(.listing([H.snapshot("active", "d", second: 20)]))
        #expect(h.journal.isEmpty, "nothing is dispatched before the journal said what was missed")
        #expect(h.core.phase == .recovering(.start, listing: [H.snapshot("active", "d", second: 20)], held: HeldInputs(changes: [
            BufferedChange(snapshot: H.snapshot("active", "d", second: 20), whileReloading: false),
        ])))
        h.send(.recovered(RecoveryAnswer(history: H.history([
            ("a", 1, 5, nil), ("b", 6, 7, "exit-code"), ("c", 8, 9, nil), ("d", 20, nil, nil),
        ]))))
        #expect(h.dispatches() == [
            "2 sleep a reconciled", "3 wake b reconciled", "4 crash b reconciled", "5 launch c reconciled",
            "6 sleep c reconciled", "7 wake d reconciled",
        ])
        #expect(h.core.phase == .tracking)
        // The live change that waited is the run already recorded: nothing twice.
        h.send(.changed(H.snapshot("active", "d", second: 20)))
        #expect(h.journal.count == 6)
    }

    @Test("after a re-exec, a change that shows the new run with the old run's stop is no false end of the new run")
    func reexecWhileRunning() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.dispatches() == ["1 launch a"])
        h.now = H.t0 + 10_000
        h.send(.signalsLost)
        h.recovery = nil
        // systemd re-announces the unit: the new run's id, but still the old run's stop.
        h.send(.changed(H.snapshot("inactive", "b", second: 10)))
        h.send(.listing([H.snapshot("active", "b", second: 11)]))
        #expect(h.recoveryQueries.last?.history == .since(microseconds: UInt64(H.t0 + 10_000) * 1_000))
        h.send(.recovered(RecoveryAnswer(history: H.history([("a", 1, 10, nil), ("b", 11, nil, nil)]))))
        #expect(h.dispatches() == ["1 launch a", "2 sleep a reconciled", "3 wake b reconciled"])
        // Its real end is recorded, once.
        h.send(.changed(H.snapshot("failed", "b", second: 30, result: "exit-code")))
        h.send(.changed(H.snapshot("failed", "b", second: 30, result: "exit-code")))
        #expect(h.dispatches() == ["1 launch a", "2 sleep a reconciled", "3 wake b reconciled", "4 crash b"])
    }

    @Test("a unit's first signal (its new run's id, no state change yet) held behind a listing that shows the run: no false end")
    func firstSignalHeldBehindListing() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.now = H.t0 + 10_000
        h.send(.signalsLost)
        h.recovery = nil
        // A fresh unit whose start job is queued: inactive, with the new run's id and no state change ever (PID 1
        // sends this before the run's own change). It arrives before the listing, which shows the run going.
        let first = UnitSnapshot(name: H.unit, activeState: ActiveState("inactive"), subState: "dead", invocationID: H.run("b"), result: "success")
        h.send(.changed(first))
        h.send(.listing([H.snapshot("active", "b", second: 11)]))
        // A journal that holds nothing of the run (journald storing only notices and above).
        h.send(.recovered(RecoveryAnswer()))
        #expect(h.dispatches() == ["1 launch b"])
        h.send(.changed(H.snapshot("inactive", "b", second: 30)))
        #expect(h.dispatches() == ["1 launch b", "2 sleep b"])
    }

    @Test("a loss of signals that waits behind work reads PID 1's journal from when it came, not from when it is taken")
    func deferredLossKeepsItsTime() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.holdVersions = true
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.now = H.t0 + 10_000
        h.send(.signalsLost)
        h.now = H.t0 + 40_000
        h.send(.versionRead(unit: H.unit, version: "1"))
        h.send(.listing([H.snapshot("active", "a", second: 1)]))
        #expect(h.recoveryQueries.last?.history == .since(microseconds: UInt64(H.t0 + 10_000) * 1_000))
    }

    @Test("a listing older than the journal gives no false end of a run the journal shows begun")
    func listingOlderThanJournal() throws {
        var h = try H(records: [Self.running("a")])
        h.send(.start)
        // Listed before run b began: a fresh unit that never changed state, with b's id already assigned.
        let stale = UnitSnapshot(name: H.unit, activeState: ActiveState("inactive"), subState: "dead", invocationID: H.run("b"), result: "success")
        h.recovery = RecoveryAnswer(history: H.history([("a", 1, 5, nil), ("b", 6, nil, nil)]))
        h.send(.listing([stale]))
        #expect(h.dispatches() == ["2 sleep a reconciled", "3 wake b reconciled"])
        h.send(.changed(H.snapshot("failed", "b", second: 7, result: "exit-code")))
        #expect(h.dispatches().last == "4 crash b")
    }

    @Test("a D-Bus call that comes during a version read waits: it never takes a lower number than the run before it")
    func callDuringVersionRead() throws {
        var h = try H(pattern: "web*.service")
        h.send(.start)
        h.send(.listing([]))
        h.holdVersions = true
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.heldVersionReads == [H.unit])
        h.send(.request(EventRequest(unit: H.unit, event: .custom("deploy")), reply: ReplyToken(1)))
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        #expect(h.journal.isEmpty && h.replies.isEmpty, "everything waits for the version")
        h.send(.versionRead(unit: H.unit, version: "1"))
        #expect(h.dispatches() == ["1 launch a", "2 deploy", "3 sleep a"])
        #expect(h.replies[ReplyToken(1)] == .success(2))
    }

    @Test("a request before the start's recovery is done waits for it")
    func requestBeforeRecovery() throws {
        var h = try H(records: [Self.running("a")])
        h.recovery = nil
        h.send(.start)
        h.send(.request(EventRequest(unit: H.unit, event: .custom("deploy")), reply: ReplyToken(7)))
        h.send(.listing([]))
        #expect(h.replies.isEmpty)
        h.send(.recovered(RecoveryAnswer(endings: [H.unit: .endedCleanly(at: H.t0 + 5_000)])))
        #expect(h.dispatches() == ["2 sleep a reconciled", "3 deploy"])
        #expect(h.replies[ReplyToken(7)] == .success(3))
    }

    @Test("a failure and the restart after it that come as one change: the crash notice from PID 1's journal, then the launch")
    func failureCoalescedWithRestart() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        // systemd sends a unit's latest state: run a failed and run b began before the signal went out.
        h.runEndings[H.run("a")] = .failed(CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 1), at: H.t0 + 5_000)
        h.send(.changed(H.snapshot("active", "b", second: 6)))
        #expect(h.dispatches() == ["1 launch a", "2 crash a", "3 launch b"])
        // Without an answer from the journal (a unit PID 1 logs nothing of), run b's end is unknown: a sleep when
        // run c began, never a crash.
        h.send(.changed(H.snapshot("active", "c", second: 9)))
        #expect(h.dispatches() == ["1 launch a", "2 crash a", "3 launch b", "4 sleep b unknown", "5 wake c"])
        #expect(h.logs.contains { $0.message.contains("no end of run \(H.run("b"))") })
    }

    @Test("a stalled journald: the end of a run no signal showed is read again until the barrier shows, then found")
    func stalledJournalShowsTheEndLater() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.runEndings[H.run("a")] = .failed(CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 1), at: H.t0 + 5_000)
        h.journalLagReads = 3
        h.send(.changed(H.snapshot("active", "b", second: 6)))
        #expect(h.dispatches() == ["1 launch a"], "nothing is taken for the end while the journal is behind")
        h.send(.changed(H.snapshot("inactive", "b", second: 7)))
        #expect(h.dispatches() == ["1 launch a"], "later changes wait behind the run's end")
        #expect(h.armed[.retryRunEnding] == h.now + 10)
        h.fire(.retryRunEnding)
        #expect(h.armed[.retryRunEnding] == h.now + 20, "backing off")
        h.fire(.retryRunEnding)
        h.fire(.retryRunEnding)
        #expect(h.endingReads == 4)
        #expect(h.dispatches() == ["1 launch a", "2 crash a", "3 launch b", "4 sleep b"], "the crash, not an unknown end")
    }

    @Test("a journal that never catches up: after the patience, the end is unknown and the rest goes on")
    func journalNeverCatchesUp() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.journalLagReads = 1_000
        h.send(.changed(H.snapshot("active", "b", second: 6)))
        let started = h.now
        while h.armed[.retryRunEnding] != nil, h.endingReads < 100 { h.fire(.retryRunEnding) }
        #expect(h.now - started <= 20_000)
        #expect(h.now - started >= 15_000)
        #expect(h.dispatches() == ["1 launch a", "2 sleep a unknown", "3 wake b"])
        #expect(h.logs.contains { $0.message.contains("did not catch up within 20 s") })
    }

    @Test("the first start on a machine rebuilds the units' past from PID 1's whole journal; past runs read no version")
    func historyFromDayOne() throws {
        var h = try H()
        h.holdVersions = true
        h.recovery = nil
        h.send(.start)
        h.send(.listing([H.snapshot("active", "c", second: 9)]))
        #expect(h.recoveryQueries.last?.history == .sinceLastTracking(orWholeJournal: true))
        var answer = RecoveryAnswer(history: H.history([("a", 1, 2, nil), ("b", 3, 4, "exit-code"), ("c", 9, nil, nil)]))
        answer.isWholeJournal = true
        h.send(.recovered(answer))
        #expect(h.heldVersionReads == [H.unit], "only the run still going reads a version")
        h.send(.versionRead(unit: H.unit, version: "7"))
        #expect(h.dispatches() == [
            "1 launch a reconciled", "2 sleep a reconciled", "3 wake b reconciled", "4 crash b reconciled",
            "5 launch c reconciled",
        ])
        #expect(h.saved.last?.state.version == "7")
        #expect(h.saved.last?.state.totalCrashCount == 1)
    }

    @Test("with history_from_journal off, the first start asks for no history")
    func historyFromDayOneOff() throws {
        var h = try H()
        var configuration = h.core.configuration
        configuration.historyFromJournal = false
        h.core = DaemonCore(
            tracker: UnitTracker(configuration: configuration, timeZone: H.utc, records: []), readsJournal: true,
            readsManagerJournal: true
        )
        h.send(.start)
        h.send(.listing([]))
        #expect(h.recoveryQueries.last?.history == .sinceLastTracking(orWholeJournal: false))
    }

    @Test("at start, a change newer than the listing that shows the new run with the old run's stop ends nothing")
    func changeNewerThanListingWithOldStop() throws {
        var h = try H(records: [Self.running("a")])
        h.recovery = nil
        h.send(.start)
        // Run a stopped at 10.000 s; run b began 15 ms later, after the listing was read.
        let stopped = H.snapshot("inactive", "a", second: 10)
        var announced = H.snapshot("inactive", "b", second: 10)
        announced.stateChangeTimestampMonotonic += 1  // the same state, told again with the new run's id
        h.send(.changed(announced))
        h.send(.listing([stopped]))
        let fields = { (run: Character) in ["UNIT": H.unit, "INVOCATION_ID": H.run(run)] }
        let history = RunHistory(entries: [
            RunEnding.Entry(messageID: RunEnding.MessageID.unitStarted, time: H.t0 + 1_000, fields: fields("a")),
            RunEnding.Entry(messageID: RunEnding.MessageID.unitSuccess, time: H.t0 + 10_000, fields: fields("a")),
            RunEnding.Entry(messageID: RunEnding.MessageID.unitStarted, time: H.t0 + 10_015, fields: fields("b")),
        ])
        h.send(.recovered(RecoveryAnswer(history: history)))
        #expect(h.dispatches() == ["2 sleep a reconciled", "3 wake b reconciled"])
        h.send(.changed(H.snapshot("failed", "b", second: 11, result: "exit-code")))
        #expect(h.dispatches().last == "4 crash b")
    }
}
