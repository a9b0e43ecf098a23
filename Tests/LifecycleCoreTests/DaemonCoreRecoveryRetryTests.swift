// SPDX-License-Identifier: Apache-2.0

@testable import LifecycleCore
import LifecycleEngine
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
