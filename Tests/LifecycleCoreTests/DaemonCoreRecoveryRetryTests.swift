// SPDX-License-Identifier: Apache-2.0

@testable import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import Testing

/// PID 1's journal that cannot be read for the missed runs is read again, 1 s, 2 s, 4 s, … apart, before the
/// recovery goes on without them: a passing failure loses no run.
struct DaemonCoreRecoveryRetryTests {
    typealias H = CoreHarness

    @Test("a history that could not be read twice is read the third time: every run, READY after")
    func readAgain() throws {
        var h = try H()
        var answer = RecoveryAnswer(history: H.history(DaemonCoreDeliveryTests.cleanRunList(3)))
        answer.isWholeJournal = true
        h.recovery = answer
        h.unreadableHistoryReads = [1, 2]
        h.send(.start)
        h.send(.listing([]))
        #expect(h.journal.isEmpty && !h.milestones.contains("ready"), "nothing taken from a failed read")
        #expect(h.armed[.retryRecovery] == H.t0 + 1_000)
        #expect(h.notifications.contains(.extendTimeout(RecoveryProgress.timeoutExtension)), "more time before READY")
        h.fire(.retryRecovery)
        #expect(h.armed[.retryRecovery] == H.t0 + 3_000, "backing off")
        h.fire(.retryRecovery)
        #expect(h.recoveryQueries.count == 3)
        #expect(Set(h.recoveryQueries.map { "\($0.history)" }).count == 1, "the same query each time")
        DaemonCoreDeliveryTests.confirmUntilReady(&h)
        #expect(h.journal.map(\.sequence) == Array(1...6))
        #expect(h.logs.filter { $0.level == .warning && $0.message.contains("reading it again") }.count == 2)
    }

    @Test("a history that never can be read: after the last try the recovery goes on without it, and says so")
    func givesUp() throws {
        var h = try H()
        h.unreadableHistoryReads = Set(1...100)
        h.send(.start)
        h.send(.listing([]))
        while h.armed[.retryRecovery] != nil { h.fire(.retryRecovery) }
        #expect(h.recoveryQueries.count == DaemonCore.recoveryReadLimit + 1)
        #expect(h.now - H.t0 == 31_000, "1 + 2 + 4 + 8 + 16 s")
        #expect(h.logs.contains { $0.level == .error && $0.message.contains("going on without") })
        #expect(h.milestones.contains("ready"))
        #expect(h.core.phase == .tracking)
    }

    @Test("a change that asks the archive in the round that asks for the next slice is not lost to the slice's answer")
    func changeWaitingForArchiveWhileSlicing() throws {
        var h = try H()
        // The second slice shows a unit the first did not: its answer asks the archive too.
        let entries = H.historyEntries(DaemonCoreDeliveryTests.cleanRunList(30))
            + H.historyEntries([(run: "y", began: 400, ended: 401, failure: nil)], unit: "web-3.service")
        var answers = DaemonCoreDeliveryTests.slices(of: entries, entriesPerSlice: 40)
        h.recovery = answers.removeFirst()
        h.laterSlices = answers
        h.journalReadable = false
        h.send(.start)
        h.send(.listing([]))
        // The first slice's dispatches wait for the journal: the change waits behind them, and is taken in the round
        // that asks for the next slice.
        h.send(.changed(H.snapshot("active", "z", second: 5_000, unit: "web-2.service")))
        h.send(.changed(H.snapshot("inactive", "z", second: 5_001, unit: "web-2.service")))
        h.journalReadable = true
        DaemonCoreDeliveryTests.confirmUntilReady(&h)
        h.fire(.confirmDelivery)
        #expect(!h.logs.contains { $0.message.contains("Ignored an answer of the archive") })
        #expect(h.journal.filter { $0.unit == H.unit }.map(\.sequence) == Array(1...60), "every run of the history once")
        #expect(h.dispatches(of: "web-3.service").count == 2)
        #expect(h.dispatches(of: "web-2.service").count == 2, "the change's run, begun and ended")
    }

    @Test("a later slice that could not be read is read again from where it was: the runs the cut divided are kept")
    func sliceReadAgain() throws {
        var h = try H()
        let entries = H.historyEntries(DaemonCoreDeliveryTests.cleanRunList(30))
        var answers = DaemonCoreDeliveryTests.slices(of: entries, entriesPerSlice: 25)
        h.recovery = answers.removeFirst()
        h.laterSlices = answers
        h.unreadableHistoryReads = [2]
        h.send(.start)
        h.send(.listing([]))
        while let due = h.armed[.retryRecovery] ?? h.armed[.confirmDelivery], !h.milestones.contains("ready") {
            h.now = max(h.now + 400, due)
            h.send(.timer(h.armed[.retryRecovery] == nil ? .confirmDelivery : .retryRecovery))
        }
        #expect(h.laterSlices.isEmpty, "every slice was read")
        #expect(h.journal.map(\.sequence) == Array(1...60), "every run once, in order")
        let resumed = h.recoveryQueries.compactMap { query in
            if case .resuming(let resume) = query.history { resume.cursor } else { nil }
        }
        #expect(resumed.first == resumed.dropFirst().first, "the failed slice asked again from the same place")
    }
}

/// A journald behind at a recovery: PID 1 logged a run before the listing, journald writes it after the history was
/// read. The history waits for a barrier lifecycled writes after the listing (``JournalBarrier``).
struct DaemonCoreHistoryBarrierTests {
    typealias H = CoreHarness

    /// web.service's last recorded run, "a", ended; while lifecycled was down run "b" began and ended. lifecycled
    /// starts and lists the unit while journald is `journaldLag` reads behind.
    func laggingStart(journaldLag: Int) throws -> H {
        let stored = UnitRecord(unit: H.unit, invocationID: H.run("a"), runEnded: true, sequence: 2)
        var h = try H(records: [stored])
        h.recovery = RecoveryAnswer(history: H.history([(run: "b", began: 10, ended: 11, failure: nil)]))
        h.staleRecovery = RecoveryAnswer(history: H.history([]))
        h.journaldLag = journaldLag
        h.send(.start)
        h.send(.listing([H.snapshot("inactive", "b", second: 11)]))
        return h
    }

    @Test("a run PID 1 logged before the start that journald writes late is recorded once: the history waits for the barrier")
    func waitsForBarrier() throws {
        var h = try laggingStart(journaldLag: 3)
        #expect(h.journal.isEmpty && !h.milestones.contains("ready"), "nothing taken before the barrier shows")
        #expect(h.armed[.retryRecovery] == H.t0 + 10)
        while h.armed[.retryRecovery] != nil { h.fire(.retryRecovery) }
        #expect(h.historyBarriersWritten.count == 1, "the probe is written once")
        #expect(h.recoveryQueries.count == 4)
        DaemonCoreDeliveryTests.confirmUntilReady(&h)
        #expect(h.dispatches() == ["3 launch b reconciled", "4 sleep b reconciled"])
    }

    @Test("a journald a read behind, as at most starts: the history is read again 10 ms later, not 100 (READY waits for it)")
    func barrierAReadBehind() throws {
        var h = try laggingStart(journaldLag: 1)
        #expect(h.armed[.retryRecovery] == H.t0 + 10)
        h.fire(.retryRecovery)
        #expect(h.armed[.retryRecovery] == nil && h.recoveryQueries.count == 2, "the second read saw the barrier")
        DaemonCoreDeliveryTests.confirmUntilReady(&h)
        #expect(h.dispatches() == ["3 launch b reconciled", "4 sleep b reconciled"])
    }

    @Test("the waits between reads of a barrier: 10 ms doubling to a second, as many reads as fit in its patience")
    func barrierDelays() {
        #expect((1...9).map { JournalBarrier.delay(afterReads: $0) } == [10, 20, 40, 80, 160, 320, 640, 1_000, 1_000])
        #expect(JournalBarrier.readLimit == 26)
    }

    @Test("a barrier the journal never shows: after its patience the history is read as far as journald wrote it, and it is said")
    func patience() throws {
        var h = try laggingStart(journaldLag: 1_000)
        while h.armed[.retryRecovery] != nil, h.recoveryQueries.last?.barrier != nil { h.fire(.retryRecovery) }
        #expect(h.now - H.t0 <= JournalBarrier.patience)
        #expect(h.recoveryQueries.last?.barrier == nil, "read at last without the barrier")
        #expect(h.logs.contains { $0.level == .warning && $0.message.contains("did not show lifecycled's barrier") })
        #expect(h.milestones.contains("ready") || h.core.phase == .tracking)
    }

    @Test("a loss of signals reads PID 1's journal behind a barrier too")
    func signalsLost() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        DaemonCoreDeliveryTests.confirmUntilReady(&h)
        h.send(.signalsLost)
        h.send(.listing([]))
        #expect(h.recoveryQueries.last?.barrier?.write == true)
        #expect(h.historyBarriersWritten.count == 2)
    }
}
