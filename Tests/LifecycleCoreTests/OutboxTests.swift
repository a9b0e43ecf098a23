// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import Testing

@testable import LifecycleCore

/// The outbox's decision on one look at the journal, as a table: which entries were sent by which process, what the
/// look found, and what is delivered, sent again, suspected or still waited for.
struct OutboxTests {
    /// Dispatch `sequence` of web.service, made at second `second` (its `LIFECYCLE_TIME`).
    static func dispatch(_ sequence: UInt64, second: Int = 100, unit: String = "web.service") -> PendingDispatch {
        let time = LifecycleDateFormat.iso8601Milliseconds.string(Milliseconds(second) * 1_000)
        return PendingDispatch(
            unit: unit, sequence: sequence,
            entry: DispatchJournalEntry(journalFields: ["LIFECYCLE_SEQUENCE": String(sequence), "LIFECYCLE_TIME": time])
        )
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        /// Entries an earlier process left pending, then entries this process sent (at second 200), by sequence.
        var leftovers: [UInt64] = []
        var sent: [UInt64] = []
        /// Found by the look, by sequence; the look's other evidence.
        var found: Set<UInt64>
        var heldSince: Milliseconds?
        var earlierProcessesDone = false
        /// The outcome, by sequence.
        var delivered: [UInt64] = []
        var dropped: [UInt64] = []
        var suspected = 0
        var waiting = 0
        var probe = false

        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(name: "all found: all delivered", sent: [1, 2], found: [1, 2], delivered: [1, 2]),
        Row(name: "none found, no evidence: still waited for, and a probe written after them", sent: [1, 2], found: [],
            waiting: 2, probe: true),
        Row(name: "a later one of ours found: the earlier is suspected, not dropped yet", sent: [1, 2], found: [2],
            delivered: [2], suspected: 1),
        Row(name: "an earlier process's entry, PID 1's entry about this process there: dropped, sent again",
            leftovers: [1], found: [], earlierProcessesDone: true, dropped: [1]),
        Row(name: "an earlier process's entry, no evidence: still waited for", leftovers: [1], found: [], waiting: 1,
            probe: true),
        Row(name: "an earlier process's entry, one of ours found after it: suspected, as one of ours would be",
            leftovers: [1], sent: [2], found: [2], delivered: [2], suspected: 1),
        Row(name: "made before the journal's oldest entry (retention removed it): delivered, never sent again",
            leftovers: [1], found: [], heldSince: 150_000, delivered: [1]),
        Row(name: "ours, sent before the journal's oldest entry: delivered", sent: [1], found: [],
            heldSince: 300_000, delivered: [1]),
    ]

    @Test("one look at the journal: delivered, dropped, suspected or waited for", arguments: rows)
    func look(_ row: Row) {
        var outbox = Outbox(confirms: true)
        outbox.adoptLeftovers(row.leftovers.map { Self.dispatch($0) }, uptime: .zero)
        for sequence in row.sent { outbox.enqueue(Self.dispatch(sequence, second: 200)) }
        if let batch = outbox.takeBatch() {
            #expect(outbox.sent(count: batch.count, refused: false, now: 200_000, uptime: 200_000).retryAt == nil)
        }
        let (asked, _) = outbox.takeForConfirmation(now: 201_000)
        let check = JournalCheck(
            found: asked.map { row.found.contains($0.sequence) }, heldSince: row.heldSince,
            earlierProcessesDone: row.earlierProcessesDone
        )
        let decided = outbox.confirm(asked, check: check, recovering: false)
        #expect(decided.delivered.map(\.sequence) == row.delivered)
        #expect(decided.dropped.map(\.sequence) == row.dropped)
        #expect(decided.suspected == row.suspected)
        #expect(decided.waiting == row.waiting)
        #expect((decided.probe != nil) == row.probe)
        #expect(outbox.takeBatch()?.map(\.sequence) ?? [] == row.dropped, "what was dropped is sent again, first")
    }

    @Test("a suspect the next look misses again is dropped; one it finds was only missed by a reader")
    func suspectsTwoLooks() {
        for foundLater in [false, true] {
            var outbox = Outbox(confirms: true)
            for sequence: UInt64 in [1, 2] { outbox.enqueue(Self.dispatch(sequence, second: 200)) }
            #expect(outbox.takeBatch()?.count == 2)
            _ = outbox.sent(count: 2, refused: false, now: 200_000, uptime: 200_000)
            var (asked, _) = outbox.takeForConfirmation(now: 201_000)
            _ = outbox.confirm(asked, check: JournalCheck(found: [false, true]), recovering: false)
            (asked, _) = outbox.takeForConfirmation(now: 202_000)
            #expect(asked.map(\.sequence) == [1])
            let second = outbox.confirm(asked, check: JournalCheck(found: [foundLater]), recovering: false)
            #expect(second.dropped.map(\.sequence) == (foundLater ? [] : [1]))
            #expect(second.delivered.map(\.sequence) == (foundLater ? [1] : []))
        }
    }

    @Test("found but not synced: not delivered, looked for again (less often), and delivered once a look syncs")
    func foundUnsynced() {
        var outbox = Outbox(confirms: true)
        for sequence: UInt64 in [1, 2] { outbox.enqueue(Self.dispatch(sequence, second: 200)) }
        #expect(outbox.takeBatch()?.count == 2)
        _ = outbox.sent(count: 2, refused: false, now: 200_000, uptime: 200_000)
        var (asked, _) = outbox.takeForConfirmation(now: 201_000)
        let first = outbox.confirm(asked, check: JournalCheck(found: [true, true], synced: false), recovering: false)
        #expect(first.delivered.isEmpty)
        #expect(first.unsynced == 2)
        #expect(first.dropped.isEmpty && first.suspected == 0 && first.waiting == 0)
        #expect(first.probe == nil, "found: no probe is needed to tell")
        #expect(outbox.unconfirmedCount == 2, "both stay in their state files")
        #expect(outbox.confirmationToArm(now: 201_000, recovering: false) == 202_000)
        (asked, _) = outbox.takeForConfirmation(now: 202_000)
        _ = outbox.confirm(asked, check: JournalCheck(found: [true, true], synced: false), recovering: false)
        #expect(outbox.confirmationToArm(now: 202_000, recovering: false) == 204_000, "backed off like a failed look")
        (asked, _) = outbox.takeForConfirmation(now: 204_000)
        #expect(asked.map(\.sequence) == [1, 2])
        let second = outbox.confirm(asked, check: JournalCheck(found: [true, true]), recovering: false)
        #expect(second.delivered.map(\.sequence) == [1, 2])
        #expect(outbox.unconfirmedCount == 0)
    }

    @Test("found but not synced still proves journald took what was sent before it: a missing earlier one is suspected")
    func unsyncedIsEvidence() {
        var outbox = Outbox(confirms: true)
        for sequence: UInt64 in [1, 2] { outbox.enqueue(Self.dispatch(sequence, second: 200)) }
        _ = outbox.takeBatch()
        _ = outbox.sent(count: 2, refused: false, now: 200_000, uptime: 200_000)
        let (asked, _) = outbox.takeForConfirmation(now: 201_000)
        let decided = outbox.confirm(asked, check: JournalCheck(found: [false, true], synced: false), recovering: false)
        #expect(decided.delivered.isEmpty)
        #expect(decided.unsynced == 1)
        #expect(decided.suspected == 1)
    }

    @Test("retention needs no sync: an entry older than the journal is delivered whether or not the look synced")
    func beyondRetentionUnsynced() {
        var outbox = Outbox(confirms: true)
        outbox.adoptLeftovers([Self.dispatch(1)], uptime: .zero)
        let (asked, _) = outbox.takeForConfirmation(now: 201_000)
        let decided = outbox.confirm(
            asked, check: JournalCheck(found: [false], heldSince: 150_000, synced: false), recovering: false
        )
        #expect(decided.delivered.map(\.sequence) == [1])
        #expect(decided.beyondRetention.map(\.sequence) == [1])
    }

    @Test("a refused write stops the batch: the rest waits, in order, for the retry a second later")
    func refused() {
        var outbox = Outbox(confirms: true)
        for sequence: UInt64 in 1...3 { outbox.enqueue(Self.dispatch(sequence)) }
        let batch = outbox.takeBatch()
        #expect(batch?.map(\.sequence) == [1, 2, 3])
        let result = outbox.sent(count: 1, refused: true, now: 10_000, uptime: 10_000)
        #expect(result.taken.map(\.sequence) == [1])
        #expect(result.retryAt == 11_000)
        #expect(outbox.takeBatch() == nil, "nothing before the retry")
        outbox.retryDue()
        #expect(outbox.takeBatch()?.map(\.sequence) == [2, 3])
    }

    @Test("one unit with more than twice the bound waiting asks for a look before the timer; many units with fewer do not")
    func earlyLook() {
        var outbox = Outbox(confirms: true)
        func send(_ unit: String, _ sequences: ClosedRange<UInt64>, at uptime: Uptime) {
            for sequence in sequences { outbox.enqueue(Self.dispatch(sequence, unit: unit)) }
            let batch = outbox.takeBatch() ?? []
            _ = outbox.sent(count: batch.count, refused: false, now: 10_000, uptime: uptime)
        }
        let bound = UInt64(2 * Outbox.unconfirmedBoundPerUnit)
        send("a.service", 1...bound, at: 10_000)
        send("b.service", 1...bound, at: 10_000)
        send("c.service", 1...bound, at: 10_000)
        #expect(!outbox.needsEarlyLook(now: 10_000), "\(3 * bound) waiting, but no unit over twice the bound")
        send("b.service", (bound + 1)...(bound + 1), at: 10_000)
        #expect(outbox.needsEarlyLook(now: 10_000), "b.service is over it")
        let (asked, _) = outbox.takeForConfirmation(now: 10_000)
        #expect(!outbox.needsEarlyLook(now: 10_500), "a look was made less than a second ago")
        #expect(outbox.needsEarlyLook(now: 11_000), "a second after the look, b.service still waits")
        let found = asked.map { $0.unit != "b.service" || $0.sequence > 1 }
        _ = outbox.confirm(asked, check: JournalCheck(found: found, heldSince: nil), recovering: false)
        #expect(!outbox.needsEarlyLook(now: 12_000), "what the look found left: b.service has one waiting")
    }
}

/// How a dispatch is looked for in the journal.
struct PendingDispatchQueryTests {
    @Test("a dispatch is looked for by its unit, number and event time: an older entry with the same number is not it")
    func queryNamesTheTime() {
        let first = OutboxTests.dispatch(1, second: 100)
        let again = OutboxTests.dispatch(1, second: 900)
        #expect(first.journalQuery.contains("LIFECYCLE_TIME=1970-01-01T00:01:40.000Z"))
        #expect(first.journalQuery.contains("LIFECYCLE_SEQUENCE=1"))
        #expect(first.journalQuery != again.journalQuery)
    }
}
