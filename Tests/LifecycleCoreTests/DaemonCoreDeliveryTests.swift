// SPDX-License-Identifier: Apache-2.0

@testable import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

/// Every dispatch into the journal exactly once: refused writes, dropped entries, death between save and send.
struct DaemonCoreDeliveryTests {
    typealias H = CoreHarness

    func tracking() throws -> H {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        return h
    }

    /// A process that dies before the journal has its first dispatch (a launch of run a): the process, and the record
    /// it saved for the next start.
    func diedBeforeTheJournal() throws -> (process: H, record: UnitRecord) {
        var first = try tracking()
        first.refusals = 1
        first.send(.changed(H.snapshot("active", "a", second: 1)))
        return (first, try #require(first.saved.last))
    }

    @Test("a refused write keeps the entry, and what follows waits behind it: the journal gets them in order")
    func refusedWrite() throws {
        var h = try tracking()
        h.refusals = 1
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.journal.isEmpty)
        let retry = try #require(h.armed[.retryDelivery])
        #expect(retry == h.now + 1_000)
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        #expect(h.journal.isEmpty, "a later dispatch never overtakes a refused one")
        #expect(h.core.undeliveredCount == 2)
        h.now = retry
        h.send(.timer(.retryDelivery))
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"])
        #expect(h.core.undeliveredCount == 0)
        #expect(h.logs.contains { $0.message.contains("took the 2 dispatches it had refused") })
    }

    @Test("a record is saved with its dispatch pending before it is sent, and saved without it once the journal shows it")
    func saveBeforeSend() throws {
        var h = try tracking()
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.saved.last?.pendingDispatches.count == 1)
        #expect(h.saved.last?.sequence == 1)
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        #expect(h.saved.last?.pendingDispatches.map { $0["LIFECYCLE_SEQUENCE"] } == ["1", "2"], "not confirmed yet")
        let saves = h.saved.count
        h.fire(.confirmDelivery)
        #expect(h.saved.count == saves + 1, "one save for both")
        #expect(h.saved.last?.pendingDispatches.isEmpty == true, "delivered means delivered: nothing is sent again")
        #expect(h.armed[.confirmDelivery] == nil || h.lookUps.count == 1)
    }

    @Test("one look at a time: a look asked for while one waits for its answer is made when the answer comes")
    func oneLookAtATime() throws {
        var h = try tracking()
        h.holdLookUps = true
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.fire(.confirmDelivery)
        #expect(h.heldLookUps.count == 1)
        // A change and the timer while the look waits: no second look, no timer armed for one.
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        h.send(.timer(.confirmDelivery))
        #expect(h.heldLookUps.count == 1)
        #expect(h.armed[.confirmDelivery] == nil)
        // The answer delivers the launch, and the look asked for meanwhile is made at once: the sleep.
        h.answerHeldLookUp()
        #expect(h.saved.last?.pendingDispatches.map { $0["LIFECYCLE_SEQUENCE"] } == ["2"])
        #expect(h.heldLookUps.map { $0.dispatches.map(\.sequence) } == [[2]])
        h.answerHeldLookUp()
        #expect(h.saved.last?.pendingDispatches.isEmpty == true)
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"], "each sent once")
    }

    @Test("a dispatch found but not synced stays in its state file and is not sent again; the next synced look delivers it")
    func foundButNotSynced() throws {
        var h = try tracking()
        h.journalSyncs = false
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        let saves = h.saved.count
        h.fire(.confirmDelivery)
        #expect(h.saved.count == saves, "no save: the record keeps the dispatch pending")
        #expect(h.saved.last?.pendingDispatches.count == 1)
        #expect(h.dispatches() == ["1 launch a"], "found, so not sent again")
        #expect(h.armed[.confirmDelivery] != nil, "looked for again")
        #expect(!h.logs.contains { $0.level == .warning }, "the driver says why the sync failed, once")
        h.journalSyncs = true
        h.fire(.confirmDelivery)
        #expect(h.saved.count == saves + 1)
        #expect(h.saved.last?.pendingDispatches.isEmpty == true)
        #expect(h.dispatches() == ["1 launch a"])
    }

    @Test("death between save and send: the next start sends the saved entry again, byte for byte, only if missing")
    func deathBetweenSaveAndSend() throws {
        let (first, record) = try diedBeforeTheJournal()

        var next = try H(records: [record])
        next.send(.start)
        let resent = try #require(next.journal.first)
        #expect(next.dispatches() == ["1 launch a"])
        let original = try #require(first.saved.last.flatMap { $0.pendingDispatches.first })
        let line = { (field: (name: String, value: String)) in "\(field.name)=\(field.value)" }
        #expect(resent.entry.fields.map(line) == original.pairs.map(line), "sent again field for field, in order")
        #expect(resent.entry.fields.first?.name == "MESSAGE")
        #expect(first.journal.isEmpty)

        var again = try H(records: [record])
        again.alreadyJournaled = ["\(H.unit)#1"]
        again.send(.start)
        #expect(again.journal.isEmpty, "an entry the journal already holds is not sent twice")
    }

    @Test("start-up gives its freed memory back once, at READY, after the pending entries were checked")
    func memoryReleasedAtReady() throws {
        var first = try tracking()
        first.send(.changed(H.snapshot("active", "a", second: 1)))
        let record = try #require(first.saved.last)
        var next = try H(records: [record])
        next.alreadyJournaled = ["\(H.unit)#1"]
        next.send(.start)
        next.send(.listing([H.snapshot("active", "a", second: 1)]))
        #expect(next.milestones == ["leftovers", "ready", "release"])
        next.send(.changed(H.snapshot("inactive", "a", second: 2)))
        #expect(next.milestones == ["leftovers", "ready", "release"], "only start-up's burst")
    }

    @Test("the first listing asks for the versions of every run it begins in one batch, before the first begin")
    func versionsPrefetched() throws {
        // Three units whose last runs ended before lifecycled stopped; two run again when it starts.
        let records = ["web-a.service", "web-b.service", "web-c.service"].map { unit in
            UnitRecord(unit: unit, invocationID: H.run("z"), runEnded: true, sequence: 1)
        }
        var h = try H(records: records)
        h.send(.start)
        h.send(.listing([
            H.snapshot("active", "a", second: 1, unit: "web-a.service"),
            H.snapshot("active", "b", second: 1, unit: "web-b.service"),
            H.snapshot("inactive", "c", second: 1, unit: "web-c.service"),
        ]))
        #expect(h.prefetched == [[
            UnitRunID(unit: "web-a.service", invocationID: H.run("a")),
            UnitRunID(unit: "web-b.service", invocationID: H.run("b")),
        ]], "running units only, the stopped one begins nothing")
        #expect(h.versionReads == ["web-a.service", "web-b.service"], "each begin still reads its version")
        #expect(h.dispatches(of: "web-a.service").count == 1)
        #expect(h.dispatches(of: "web-b.service").count == 1)

        // One begin alone reads its version itself.
        h.send(.changed(H.snapshot("active", "d", second: 2, unit: "web-c.service")))
        #expect(h.prefetched.count == 1)
        #expect(h.versionReads.last == "web-c.service")
    }

    @Test("a stalled journald: an entry not written yet is looked for again, later each time, and never sent twice")
    func stalledJournal() throws {
        var h = try tracking()
        h.notYetWritten = ["\(H.unit)#1", "\(H.unit)#2"]
        h.holdProbes = true
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        var intervals: [Milliseconds] = []
        for _ in 0..<8 {
            h.fire(.confirmDelivery)
            intervals.append(try #require(h.armed[.confirmDelivery]) - h.now)
        }
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"], "sent once, however long journald takes")
        #expect(intervals.last == Outbox.longestLookInterval, "looks back off: \(intervals)")
        #expect(intervals == intervals.sorted(), "\(intervals)")
        #expect(h.core.health.journalDrops == 0)
        h.notYetWritten = []
        h.holdProbes = false
        h.fire(.confirmDelivery)
        #expect(h.saved.last?.pendingDispatches.isEmpty == true)
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"])
    }

    @Test("an entry missing while a later one of this process is there was dropped: it is sent again, once")
    func droppedAfterAcceptance() throws {
        var h = try tracking()
        h.holdProbes = true
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.journal.removeAll()  // journald dropped it
        h.fire(.confirmDelivery)
        #expect(h.dispatches().isEmpty, "no evidence yet: the last entry sent may still be on its way")
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        h.fire(.confirmDelivery)
        #expect(h.dispatches() == ["2 sleep a"], "the later entry is there: the first is looked for once more")
        #expect(h.core.health.journalDrops == 0)
        h.fire(.confirmDelivery)
        #expect(h.dispatches() == ["2 sleep a", "1 launch a"], "missing again with the later entry there: dropped")
        #expect(h.core.health.journalDrops == 1)
        h.fire(.confirmDelivery)
        #expect(h.dispatches() == ["2 sleep a", "1 launch a"])
        #expect(h.saved.last?.pendingDispatches.isEmpty == true)
    }

    @Test("the last entries dropped before a quiet spell: a probe written after them tells, and they are sent again")
    func droppedLastEntry() throws {
        var h = try tracking()
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        h.journal.removeAll()  // journald's rate limit dropped both
        h.fire(.confirmDelivery)
        #expect(h.dispatches().isEmpty, "missing, with nothing later there yet")
        #expect(h.probes == [1], "a probe is written after them")
        h.fire(.confirmDelivery)
        #expect(h.dispatches().isEmpty, "the probe is there and they are not: looked for once more")
        h.fire(.confirmDelivery)
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"], "missing again after the probe: dropped")
        h.fire(.confirmDelivery)
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"])
        #expect(h.saved.last?.pendingDispatches.isEmpty == true)
        #expect(h.probes == [1], "no probe once nothing is missing")
    }

    @Test("an earlier process's pending entry is sent again only once PID 1's entry about this process is there")
    func leftoverWaitsForEvidence() throws {
        let record = try diedBeforeTheJournal().record

        var next = try H(records: [record])
        next.earlierProcessesDone = false  // journald has not taken what was in its socket yet
        next.holdProbes = true
        next.send(.start)
        next.send(.listing([H.snapshot("active", "a", second: 1)]))
        #expect(next.journal.isEmpty)
        next.fire(.confirmDelivery)
        #expect(next.journal.isEmpty, "no evidence: it may still be in journald's socket")
        next.earlierProcessesDone = true
        next.fire(.confirmDelivery)
        #expect(next.dispatches() == ["1 launch a"])
    }

    @Test("an entry a look misses while a later one is there, but the next look finds, is no drop (a reader that missed a file)")
    func missedOnceIsNoDrop() throws {
        var h = try tracking()
        h.holdProbes = true
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        h.notYetWritten = ["\(H.unit)#1"]  // this look's reader misses it, the later entry is there
        h.fire(.confirmDelivery)
        h.notYetWritten = []
        h.fire(.confirmDelivery)
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"], "sent once")
        #expect(h.core.health.journalDrops == 0)
        #expect(h.saved.last?.pendingDispatches.isEmpty == true)
    }

    @Test("journal retention: an entry this process sent before the journal's oldest entry (a vacuum before the look) is not sent again")
    func sentBeforeRetention() throws {
        var h = try tracking()
        h.holdProbes = true
        h.now = H.t0 + 10_000
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.now = H.t0 + 20_000
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        h.notYetWritten = ["\(H.unit)#1"]  // written, then vacuumed before any look found it
        h.journalHeldSince = H.t0 + 15_000
        h.fire(.confirmDelivery)
        h.fire(.confirmDelivery)
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"], "not sent again")
        #expect(h.core.health.journalDrops == 0)
        #expect(h.saved.last?.pendingDispatches.isEmpty == true)
        #expect(h.logs.contains { $0.message.contains("older than the journal's oldest entry") })
    }

    @Test("journal retention: a pending entry older than the journal's oldest entry is not sent again")
    func leftoverBeyondRetention() throws {
        var first = try tracking()
        first.send(.changed(H.snapshot("active", "a", second: 1)))
        first.send(.changed(H.snapshot("inactive", "a", second: 2)))
        let record = try #require(first.saved.last)  // killed before the confirmation: both still pending
        #expect(record.pendingDispatches.count == 2)

        var next = try H(records: [record])
        next.journalHeldSince = H.t0 + 1_500  // vacuumed: the launch's time is gone, the sleep's span is still held
        next.send(.start)
        #expect(next.dispatches() == ["2 sleep a"], "only what the journal could still show is compared")
        #expect(next.saved.last?.pendingDispatches.map { $0["LIFECYCLE_SEQUENCE"] } == ["2"])
        #expect(next.logs.contains { $0.message.contains("older than the journal's oldest entry") })
    }

    @Test("the journal cannot be read: nothing is sent again or given up, and it is looked at again later")
    func unreadableJournal() throws {
        var h = try tracking()
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.journalReadable = false
        h.fire(.confirmDelivery)
        #expect(h.armed[.confirmDelivery] != nil)
        #expect(h.saved.last?.pendingDispatches.count == 1)
        h.journalReadable = true
        h.fire(.confirmDelivery)
        #expect(h.saved.last?.pendingDispatches.isEmpty == true)
        #expect(h.dispatches() == ["1 launch a"])
    }

    @Test("a long history on day one is recorded in rounds: every save holds at most the bound, every run once")
    func longHistoryInRounds() throws {
        var h = try Self.dayOne(runs: 300)
        #expect(h.journal.count == 600, "a launch or wake and a sleep per run")
        #expect(Set(h.journal.map(\.sequence)).count == 600)
        #expect(h.journal.map(\.sequence) == Array(1...600), "in order")
        let largest = h.saved.map(\.pendingDispatches.count).max() ?? 0
        #expect(largest <= Outbox.recoveryBound, "a state file never holds more than a round: \(largest)")
        #expect(h.saved.count <= 2 * 600 / Outbox.recoveryBound + 4, "one save per round, not per dispatch: \(h.saved.count)")
        #expect(h.milestones.contains("ready"))
        h.fire(.confirmDelivery)  // the last round, confirmed once tracking
        #expect(h.saved.last?.pendingDispatches.isEmpty == true)
    }

    @Test("a long history becomes transitions a round at a time: the queue never holds the whole history")
    func longHistoryMadeInRounds() throws {
        var h = try Self.dayOne(runs: 300, stallLookUps: 2)
        var largest = h.core.work.count
        Self.confirmUntilReady(&h) { largest = max(largest, $0.core.work.count) }
        #expect(h.journal.map(\.sequence) == Array(1...600), "every run once, in order")
        // A round's runs (a begin and an end each), the rest of the unit's runs as one item, and what follows them.
        #expect(largest <= 2 * Outbox.recoveryBound + 3, "queued at most: \(largest)")
    }

    @Test("a history read in slices: each slice's runs made before the next is read, every run once and in order, the listing with the last", arguments: [7, 50, 599])
    func historyInSlices(entriesPerSlice: Int) throws {
        var h = try H()
        let entries = H.historyEntries(Self.cleanRunList(300))
        var answers = Self.slices(of: entries, entriesPerSlice: entriesPerSlice)
        h.recovery = answers.removeFirst()
        h.laterSlices = answers
        h.send(.start)
        h.send(.listing([]))
        #expect(h.laterSlices.isEmpty, "every slice was read")
        #expect(h.journal.map(\.sequence) == Array(1...600), "every run once, in order")
        let events = h.dispatches().map { String($0.split(separator: " ")[1]) }
        #expect(events == ["launch"] + Array(repeating: ["sleep", "wake"], count: 299).flatMap(\.self) + ["sleep"])
        let resumed = h.recoveryQueries.compactMap { query in
            if case .resuming(let resume) = query.history { resume.cursor } else { nil }
        }
        #expect(resumed.count == (entries.count - 1) / entriesPerSlice, "one query per later slice")
        #expect(h.recoveryQueries.dropFirst().allSatisfy { $0.caughtUp.contains(H.unit) }, "the unit is caught up with once")
        #expect(h.milestones.contains("ready"))
    }

    @Test("a long recovery reports its progress and asks systemd for more time, at most once a second")
    func recoveryProgress() throws {
        // journald writes each round after three looks, 400 ms apart.
        var h = try Self.dayOne(runs: 40, stallLookUps: 3)
        Self.confirmUntilReady(&h)
        #expect(h.journal.count == 80)
        let reports = h.notifications.filter { if case .status(let text) = $0 { text.hasPrefix("Recovering") } else { false } }
        #expect(!reports.isEmpty)
        #expect(h.notifications.contains(.extendTimeout(RecoveryProgress.timeoutExtension)))
        #expect(reports.count <= Int((h.now - H.t0) / 1_000) + 1, "at most once a second")
    }

    /// The answers of a day-one history of `entries` read in slices, as the reader makes them: a run the cut divides
    /// waits in the builder for the next slice.
    static func slices(of entries: [RunEnding.Entry], entriesPerSlice: Int) -> [RecoveryAnswer] {
        var answers: [RecoveryAnswer] = []
        var builder = RunHistory.Builder()
        for start in stride(from: 0, to: entries.count, by: entriesPerSlice) {
            for entry in entries[start..<min(start + entriesPerSlice, entries.count)] { builder.add(entry) }
            var answer = RecoveryAnswer()
            answer.isWholeJournal = true
            if start + entriesPerSlice >= entries.count {
                answer.history = builder.finish()
            } else {
                answer.history = builder.takeDecided()
                answer.resume = HistoryResume(
                    cursor: "after-\(start)", sliced: SlicedHistory(undecided: builder, isWholeJournal: true)
                )
            }
            answers.append(answer)
        }
        return answers
    }

    /// The first start on a machine whose PID 1 journal holds `runs` clean runs of web.service (``cleanRunList(_:)``),
    /// its journald writing each round after `stallLookUps` looks; after the listing.
    static func dayOne(runs: Int, stallLookUps: Int = 0) throws -> H {
        var h = try H()
        var answer = RecoveryAnswer(history: H.history(cleanRunList(runs)))
        answer.isWholeJournal = true
        h.recovery = answer
        h.stallLookUps = stallLookUps
        h.send(.start)
        h.send(.listing([]))
        return h
    }

    /// Fires the delivery's look, 400 ms or more apart, until lifecycled is ready, calling `each` after each.
    static func confirmUntilReady(_ h: inout H, _ each: (H) -> Void = { _ in }) {
        while !h.milestones.contains("ready"), let at = h.armed[.confirmDelivery] {
            h.now = max(h.now + 400, at)
            h.send(.timer(.confirmDelivery))
            each(h)
        }
    }

    /// `count` runs of web.service, one every 10 s, each ending cleanly after 5 s.
    static func cleanRunList(_ count: Int) -> [(run: Character, began: Int64, ended: Int64?, failure: String?)] {
        (0..<count).map { index in
            let letter = Character(UnicodeScalar(UInt32(0x100 + index))!)
            let began = Int64(index) * 10
            return (run: letter, began: began, ended: began + 5, failure: nil)
        }
    }

    @Test("the wall clock set back two days after a send: the journal is still looked at a second later")
    func lookAcrossAClockStep() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.now -= 2 * 86_400_000
        h.wallStep -= 2 * 86_400_000
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.armed[.confirmDelivery] == h.now + 1_000)
        h.fire(.confirmDelivery)
        #expect(h.core.tracker.records[H.unit]?.pendingDispatches.isEmpty == true, "confirmed a second later")
    }

    @Test("looks while tracking have the journal synced after them; a recovery's looks do not (a sync a round made day one slow)")
    func syncOnlyWhileTracking() throws {
        var h = try H()
        var answer = RecoveryAnswer(history: H.history(DaemonCoreDeliveryTests.cleanRunList(20)))
        answer.isWholeJournal = true
        h.recovery = answer
        h.send(.start)
        h.send(.listing([]))
        DaemonCoreDeliveryTests.confirmUntilReady(&h)
        let recovering = h.performed.compactMap { effect -> Bool? in
            if case .lookUp(_, _, let sync) = effect { sync } else { nil }
        }
        #expect(!recovering.isEmpty && recovering.allSatisfy { !$0 })
        h.performed = []
        h.send(.changed(H.snapshot("active", "z", second: 9_000)))
        h.fire(.confirmDelivery)
        let tracking = h.performed.compactMap { effect -> Bool? in
            if case .lookUp(_, _, let sync) = effect { sync } else { nil }
        }
        #expect(tracking == [true])
    }
}
