// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import Testing

/// A journald that takes lifecycled's entries and stores none of them (`MaxLevelStore=notice`, `LogLevelMax=`,
/// `Storage=none`): the state files stay bounded, the counters stay right, and it is said until the journal shows
/// the entries again.
struct DaemonCoreJournalStorageTests {
    typealias H = CoreHarness

    /// `runs` runs of web.service, one a second, each looked for in the journal after it ends.
    func run(_ h: inout H, runs: Int, from first: Int) {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        for index in first..<(first + runs) {
            let id = letters[index % letters.count]
            h.send(.changed(H.snapshot("active", id, second: UInt64(2 * index + 1))))
            h.send(.changed(H.snapshot("inactive", id, second: UInt64(2 * index + 2))))
            h.now += 1_000
            h.fire(.confirmDelivery)
        }
    }

    func tracking() throws -> H {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.journalStores = false
        return h
    }

    @Test("a journal that stores nothing: each state file keeps at most the bound of waiting dispatches, the counters all runs")
    func boundedStateFile() throws {
        var h = try tracking()
        run(&h, runs: 100, from: 0)
        let record = try #require(h.core.tracker.records[H.unit])
        #expect(record.state.totalWakeCount == 100)
        #expect(record.sequence == 200)
        #expect(record.pendingDispatches.count <= 16)
        #expect(h.saved.last { $0.unit == H.unit }?.pendingDispatches.count ?? 99 <= 16, "and so does its file")
        #expect(h.core.health.journalGivenUp == 200 - record.pendingDispatches.count)
        #expect(h.logs.filter { $0.level == .warning && $0.message.contains("Gave up looking") }.count == 1,
            "said once, not at every dispatch")
    }

    @Test("a journal that shows nothing for a minute is said at warning and in the status; showing again, it heals")
    func saidAndHealed() throws {
        var h = try tracking()
        let firstSent = h.now
        var saidAt: Milliseconds?
        for index in 0..<70 where saidAt == nil {
            run(&h, runs: 1, from: index)
            if (h.core.health.degradations[.journal] != nil) { saidAt = h.now }
        }
        let said = try #require(saidAt)
        #expect(said - firstSent >= 60_000, "a stall shorter than a minute is ridden out quietly")
        #expect(said - firstSent <= 90_000, "said within the next look after the minute")
        #expect(h.logs.contains { $0.level == .warning && $0.message.contains("has not shown lifecycled's entries") })
        let status = h.notifications.compactMap { if case .status(let text) = $0 { text } else { nil } }.last
        #expect(status?.hasPrefix("Degraded: the journal does not show lifecycled's entries") == true)

        h.journalStores = true
        h.notYetWritten = []
        run(&h, runs: 1, from: 70)
        #expect(!(h.core.health.degradations[.journal] != nil))
        #expect(h.logs.contains { $0.level == .notice && $0.message.contains("shows lifecycled's entries again") })
        let healed = h.notifications.compactMap { if case .status(let text) = $0 { text } else { nil } }.last
        #expect(healed?.hasPrefix("Degraded") == false)
        #expect(h.core.tracker.records[H.unit]?.pendingDispatches.isEmpty == true)
    }

    @Test("a journal that stores everything gives up nothing, however many dispatches a unit makes")
    func storingJournal() throws {
        var h = try tracking()
        h.journalStores = true
        run(&h, runs: 100, from: 0)
        #expect(h.core.health.journalGivenUp == 0)
        #expect(!(h.core.health.degradations[.journal] != nil))
        #expect(h.dispatches().count == 200)
    }

    @Test("more than the bound sent at once, two dropped by journald's rate limit: those are sent again, nothing is given up")
    func droppedBeyondTheBound() throws {
        var h = try tracking()
        h.journalStores = true
        h.notYetWritten = ["\(H.unit)#7", "\(H.unit)#8"]
        let letters = Array("abcdefghijkl")
        for (index, id) in letters.enumerated() {
            h.send(.changed(H.snapshot("active", id, second: UInt64(2 * index + 1))))
            h.send(.changed(H.snapshot("inactive", id, second: UInt64(2 * index + 2))))
        }
        #expect(h.core.health.journalGivenUp == 0, "none given up before a look asked about it")
        h.fire(.confirmDelivery)
        h.fire(.confirmDelivery)
        h.notYetWritten = []
        h.fire(.confirmDelivery)
        h.fire(.confirmDelivery)
        #expect(h.core.health.journalGivenUp == 0)
        #expect(Set(h.journal.map(\.sequence)) == Set(1...24), "7 and 8 sent again")
        #expect(h.core.tracker.records[H.unit]?.pendingDispatches.isEmpty == true)
    }

    @Test("a journal that refuses entries for over a minute: each state file keeps at most the bound waiting to be sent, said, healed")
    func refusedBeyondPatience() throws {
        var h = try tracking()
        h.journalStores = true
        h.refusals = .max
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        var givenUpAt: Milliseconds?
        let firstRefused = h.now
        for index in 0..<100 {
            let id = letters[index % letters.count]
            h.send(.changed(H.snapshot("active", id, second: UInt64(2 * index + 1))))
            h.send(.changed(H.snapshot("inactive", id, second: UInt64(2 * index + 2))))
            h.now += 1_000
            h.fire(.retryDelivery)
            if givenUpAt == nil, h.core.health.journalGivenUp > 0 { givenUpAt = h.now }
        }
        let givenUp = try #require(givenUpAt)
        #expect(givenUp - firstRefused >= 60_000, "a refusal shorter than a minute loses nothing")
        let record = try #require(h.core.tracker.records[H.unit])
        #expect(record.state.totalWakeCount == 100)
        #expect(record.pendingDispatches.count <= 16)
        #expect(h.saved.last { $0.unit == H.unit }?.pendingDispatches.count ?? 99 <= 16, "and so does its file")
        #expect(h.core.health.journalGivenUp == 200 - record.pendingDispatches.count)
        #expect(h.core.health.degradations[.journal]?.reason == "the journal refuses lifecycled's entries")
        #expect(h.logs.filter { $0.level == .warning && $0.message.contains("has refused lifecycled's entries") }.count == 1,
            "said once, not at every retry")

        // The journal takes entries again: the ones kept are sent, in order, and a look that finds them heals it.
        h.refusals = 0
        h.fire(.retryDelivery)
        h.fire(.confirmDelivery)
        #expect(h.journal.map(\.sequence) == Array(185...200))
        #expect(h.core.health.degradations[.journal] == nil)
        #expect(h.core.tracker.records[H.unit]?.pendingDispatches.isEmpty == true)
    }

    @Test("restarted while the journal stores nothing: the dispatches the last process left do not hold READY, nor does a recovery's round")
    func restartWhileStoringNothing() throws {
        var h = try tracking()
        run(&h, runs: 70, from: 0)
        let left = try #require(h.core.tracker.records[H.unit])
        #expect(left.pendingDispatches.count == 16)
        // A new process on the state files, PID 1's journal holding 20 runs it missed; the journal still stores nothing.
        var restarted = try H(records: [left])
        restarted.journalStores = false
        restarted.now = h.now + 1_000
        var missed = DaemonCoreDeliveryTests.cleanRunList(20)
        for index in missed.indices {
            missed[index].began += 200
            missed[index].ended = missed[index].began + 5
        }
        restarted.recovery = RecoveryAnswer(history: H.history(missed))
        restarted.send(.start)
        restarted.send(.listing([]))
        var waited: Milliseconds = 0
        while !restarted.milestones.contains("ready"), waited < 120_000 {
            restarted.now += 1_000
            waited += 1_000
            restarted.fire(.confirmDelivery)
        }
        #expect(restarted.milestones.contains("ready"))
        #expect(waited <= 90_000, "READY once the journal is said to show nothing (a minute), not never")
        for _ in 0..<3 {
            restarted.now += 1_000
            restarted.fire(.confirmDelivery)
        }
        let record = try #require(restarted.core.tracker.records[H.unit])
        #expect(record.sequence == 140 + 40, "every missed run recorded")
        #expect(record.pendingDispatches.count <= 16)
    }

    @Test("restarted with more than the bound left waiting, the journal still storing nothing: READY at once; a minute later said, and bounded")
    func restartWithLeftoversBeyondTheBound() throws {
        var h = try tracking()
        for (index, id) in "abcdefghijklmnopqrst".enumerated() {
            h.send(.changed(H.snapshot("active", id, second: UInt64(2 * index + 1))))
            h.send(.changed(H.snapshot("inactive", id, second: UInt64(2 * index + 2))))
        }
        let left = try #require(h.core.tracker.records[H.unit])
        #expect(left.pendingDispatches.count == 40, "not looked for yet: nothing given up")
        var restarted = try H(records: [left])
        restarted.journalStores = false
        // PID 1's entry about starting this process is info too: no evidence that the last one's entries were dropped.
        restarted.earlierProcessesDone = false
        restarted.recovery = RecoveryAnswer()
        restarted.now = h.now + 1_000
        restarted.send(.start)
        restarted.send(.listing([]))
        #expect(restarted.milestones.contains("ready"))
        for _ in 0..<100 where restarted.core.tracker.records[H.unit]?.pendingDispatches.count ?? 0 > 16 {
            restarted.now += 1_000
            restarted.fire(.confirmDelivery)
        }
        #expect(restarted.core.health.degradations[.journal] != nil)
        #expect(restarted.core.tracker.records[H.unit]?.pendingDispatches.count == 16)
        #expect(restarted.core.tracker.records[H.unit]?.sequence == 40)
    }
}
