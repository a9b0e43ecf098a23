// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import Testing

/// The reading of the journal for a recovery, as tables: a query and what each read finds in, the reads asked for and
/// the answer out (docs/journal.md, "Where recovery resumes").
struct HistoryReadingTests {
    static let boot = String(repeating: "b", count: 32)
    static let kernelBoot = String(repeating: "k", count: 32)
    static let earlierBoot = String(repeating: "a", count: 32)
    /// The journal's tail when the recovery began: 100 s into this boot, at 1,800,000,100 s since the epoch.
    static let tail = JournalPosition(
        cursor: "s=tail", bootID: boot, monotonicMicroseconds: 100_000_000, realtimeMicroseconds: 1_800_000_100_000_000
    )
    /// The position the previous lifecycled saved, 50 s into this boot.
    static let saved = JournalPosition(
        cursor: "s=saved", bootID: boot, monotonicMicroseconds: 50_000_000, realtimeMicroseconds: 1_800_000_050_000_000
    )
    /// What the journal names, read after the tail.
    static let named = JournaledUnits(logged: ["lc-a.service"], dispatched: ["lc-b.service"])
    // A literal pattern that parses.
    static let patterns = [try! UnitPattern("lc-*.service")]

    /// One step of a table: the read the machine must ask for, the entries the driver hands in, and what it found.
    struct Step {
        var read: HistoryReading.Read
        var entries: [JournalEntry] = []
        var found: HistoryReading.Found
    }

    /// Drives a reading through `steps`, checking that each read is the one asked for, and that nothing more is.
    func drive(_ query: RecoveryQuery, kernelBoot: String? = kernelBoot, _ steps: [Step]) -> HistoryReading {
        var reading = HistoryReading(query, kernelBoot: kernelBoot)
        for step in steps {
            #expect(reading.next == step.read)
            guard reading.next == step.read else { return reading }
            step.entries.forEach { reading.add($0) }
            reading.take(step.found)
        }
        #expect(reading.next == nil)
        return reading
    }

    /// One of PID 1's entries about run `id` of `unit`, sent `second` seconds into this boot (or `boot`).
    static func entry(
        _ messageID: String, _ unit: String, _ id: String, second: UInt64, boot: String = boot, fields: [String: String] = [:]
    ) -> JournalEntry {
        let monotonic = second * 1_000_000
        let realtime = tail.realtimeMicroseconds - tail.monotonicMicroseconds + monotonic
        var all = ["MESSAGE_ID": messageID, "UNIT": unit, "INVOCATION_ID": id, "_BOOT_ID": boot]
        all["_SOURCE_REALTIME_TIMESTAMP"] = String(realtime)
        all.merge(fields) { $1 }
        return JournalEntry(realtimeMicroseconds: realtime, monotonicMicroseconds: monotonic, fields: all)
    }

    /// A run of `unit` begun and ended cleanly at `second`.
    static func run(_ unit: String, _ id: String, second: UInt64, boot: String = boot) -> [JournalEntry] {
        [
            entry(RunEnding.MessageID.unitStarting, unit, id, second: second, boot: boot),
            entry(RunEnding.MessageID.unitStarted, unit, id, second: second, boot: boot),
            entry(RunEnding.MessageID.unitSuccess, unit, id, second: second + 1, boot: boot),
        ]
    }

    static func startQuery(orWholeJournal: Bool = false, barrier: JournalBarrier? = nil) -> RecoveryQuery {
        RecoveryQuery(
            history: .sinceLastTracking(orWholeJournal: orWholeJournal), catchUp: [], endings: [], patterns: patterns,
            watched: patterns, barrier: barrier
        )
    }

    // MARK: - Where the history starts

    @Test("the history starts after the saved position, ends at the tail read before it, and its clock is the position's")
    func savedPosition() {
        let reading = drive(Self.startQuery(), [
            Step(read: .tail, found: .tail(Self.tail)),
            Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
            Step(read: .savedPosition, found: .savedPosition(Self.saved)),
            Step(
                read: .entries(from: .after("s=saved"), limit: HistoryReading.entriesPerSlice),
                entries: Self.run("lc-a.service", "a1", second: 60), found: .entries(cursorFound: true, stoppedAt: nil)
            ),
            Step(read: .dispatches(beyond: [DispatchCatchUp(unit: "lc-a.service")]), found: .dispatches([:])),
        ])
        #expect(reading.answer.position == Self.tail)
        #expect(reading.answer.journaledUnits == Self.named)
        #expect(reading.answer.watchedUntil == 1_800_000_050_000)
        #expect(!reading.answer.isWholeJournal)
        #expect(reading.answer.resume == nil)
        let run = reading.answer.history?.run(of: "lc-a.service", "a1")
        #expect(run?.began == 1_800_000_060_000)
        #expect(run?.beganMonotonic == 60_000_000)
        #expect(run?.ending == .endedCleanly(at: 1_800_000_061_000))
    }

    @Test("without a saved position, the history starts 10 s before the last entry of the previous lifecycled", arguments: [
        (UInt64(1_800_000_030_000_000), UInt64(1_800_000_020_000_000)),
        (UInt64(4_000_000), UInt64(0)),  // not before the epoch
    ])
    func lastTracking(lastSeen: UInt64, start: UInt64) {
        let reading = drive(Self.startQuery(), [
            Step(read: .tail, found: .tail(Self.tail)),
            Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
            Step(read: .savedPosition, found: .savedPosition(nil)),
            Step(read: .lastTracking(thisBoot: Self.boot), found: .lastTracking(microseconds: lastSeen)),
            Step(
                read: .entries(from: .since(start), limit: HistoryReading.entriesPerSlice),
                found: .entries(cursorFound: true, stoppedAt: nil)
            ),
        ])
        #expect(reading.answer.watchedUntil == Milliseconds(lastSeen / 1_000))
        #expect(reading.answer.history?.units.isEmpty == true)
    }

    @Test("no earlier lifecycled: the whole journal on the first start when asked, else no history", arguments: [true, false])
    func firstStart(orWholeJournal: Bool) {
        var steps = [
            Step(read: .tail, found: .tail(Self.tail)),
            Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
            Step(read: .savedPosition, found: .savedPosition(nil)),
            Step(read: .lastTracking(thisBoot: Self.boot), found: .lastTracking(microseconds: nil)),
        ]
        if orWholeJournal {
            steps.append(Step(
                read: .entries(from: .since(0), limit: HistoryReading.entriesPerSlice),
                entries: Self.run("lc-a.service", "a1", second: 10), found: .entries(cursorFound: true, stoppedAt: nil)
            ))
            steps.append(Step(read: .dispatches(beyond: [DispatchCatchUp(unit: "lc-a.service")]), found: .dispatches([:])))
        }
        let reading = drive(Self.startQuery(orWholeJournal: orWholeJournal), steps)
        #expect(reading.answer.isWholeJournal == orWholeJournal)
        #expect((reading.answer.history != nil) == orWholeJournal)
        #expect(reading.logs.contains { $0.level == (orWholeJournal ? .notice : .info) })
    }

    @Test("signals lost: the history starts 10 s before the loss and ends at the tail; no saved position is asked")
    func signalsLost() {
        let query = RecoveryQuery(
            history: .since(microseconds: 1_800_000_090_000_000), catchUp: [], endings: [], watched: Self.patterns
        )
        let reading = drive(query, [
            Step(read: .tail, found: .tail(Self.tail)),
            Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
            Step(
                read: .entries(from: .since(1_800_000_080_000_000), limit: HistoryReading.entriesPerSlice),
                found: .entries(cursorFound: true, stoppedAt: nil)
            ),
        ])
        #expect(reading.answer.position == Self.tail)
        #expect(reading.answer.watchedUntil == nil)
    }

    @Test("units a reload began to watch: the whole journal, their runs only")
    func wholeJournalOfSelection() throws {
        let selection = UnitSelection(patterns: [try UnitPattern("lc-*.service")], excluded: [try UnitPattern("lc-old*.service")])
        let query = RecoveryQuery(
            history: .wholeJournal(of: selection), catchUp: [], endings: [], patterns: selection.patterns,
            watched: Self.patterns
        )
        let entries = Self.run("lc-new.service", "n1", second: 10) + Self.run("lc-old.service", "o1", second: 11)
            + Self.run("other.service", "x1", second: 12)
        let reading = drive(query, [
            Step(read: .tail, found: .tail(Self.tail)),
            Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
            Step(
                read: .entries(from: .since(0), limit: HistoryReading.entriesPerSlice), entries: entries,
                found: .entries(cursorFound: true, stoppedAt: "s=more")
            ),
            Step(read: .dispatches(beyond: [DispatchCatchUp(unit: "lc-new.service")]), found: .dispatches([:])),
        ])
        #expect(reading.answer.isWholeJournal)
        #expect(reading.answer.history?.units.sorted() == ["lc-new.service"])
        #expect(reading.answer.resume?.sliced.units == selection, "the next slice reads the same units")
    }

    @Test("no history asked (the user manager): only the dispatches and endings")
    func noHistory() {
        let run = UnitRunID(unit: "lc-a.service", invocationID: "a1")
        let query = RecoveryQuery(
            history: .none, catchUp: [DispatchCatchUp(unit: "lc-a.service", recordedSequence: 3)], endings: [run]
        )
        let ending = RunEnding.endedCleanly(at: 5)
        let reading = drive(query, [
            Step(
                read: .dispatches(beyond: [DispatchCatchUp(unit: "lc-a.service", recordedSequence: 3)]),
                found: .dispatches([:])
            ),
            Step(read: .endings(of: [run]), found: .endings(["lc-a.service": ending])),
        ])
        #expect(reading.answer.history == nil)
        #expect(reading.answer.endings == ["lc-a.service": ending])
    }

    @Test("a saved position the journal no longer holds is said, once, and read from where it was")
    func cursorGone() {
        let reading = drive(Self.startQuery(), [
            Step(read: .tail, found: .tail(Self.tail)),
            Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
            Step(read: .savedPosition, found: .savedPosition(Self.saved)),
            Step(
                read: .entries(from: .after("s=saved"), limit: HistoryReading.entriesPerSlice),
                found: .entries(cursorFound: false, stoppedAt: nil)
            ),
        ])
        #expect(reading.logs.filter { $0.level == .notice && $0.message.contains("retention") }.count == 1)
    }

    // MARK: - The barrier

    @Test("a barrier not seen yet: nothing is read, and the answer says so; once seen, the history is read", arguments: [false, true])
    func barrier(seen: Bool) {
        let barrier = JournalBarrier(number: 1, write: true)
        var steps = [Step(read: .barrier(barrier), found: .barrier(seen: seen))]
        if seen {
            steps += [
                Step(read: .tail, found: .tail(Self.tail)),
                Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
                Step(read: .savedPosition, found: .savedPosition(Self.saved)),
                Step(
                    read: .entries(from: .after("s=saved"), limit: HistoryReading.entriesPerSlice),
                    found: .entries(cursorFound: true, stoppedAt: nil)
                ),
            ]
        }
        let reading = drive(Self.startQuery(barrier: barrier), steps)
        #expect(reading.answer.barrierSeen == seen)
        #expect((reading.answer.position != nil) == seen)
    }

    // MARK: - Unreadable

    @Test("a journal that cannot be read for the history says so, and still gives the dispatches and endings")
    func unreadable() {
        let run = UnitRunID(unit: "lc-a.service", invocationID: "a1")
        let query = RecoveryQuery(
            history: .sinceLastTracking(orWholeJournal: true), catchUp: [DispatchCatchUp(unit: "lc-a.service")],
            endings: [run], watched: Self.patterns
        )
        for failing in 0..<2 {
            var steps = [
                Step(read: .tail, found: .tail(nil)),
                Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
                Step(read: .savedPosition, found: .savedPosition(nil)),
                Step(read: .lastTracking(thisBoot: Self.kernelBoot), found: failing == 0 ? .unreadable : .lastTracking(microseconds: 7_000_000_000)),
            ]
            if failing == 1 {
                steps.append(Step(
                    read: .entries(from: .since(6_990_000_000), limit: HistoryReading.entriesPerSlice), found: .unreadable
                ))
            }
            steps += [
                Step(read: .dispatches(beyond: [DispatchCatchUp(unit: "lc-a.service")]), found: .dispatches([:])),
                Step(read: .endings(of: [run]), found: .endings([:])),
            ]
            let reading = drive(query, steps)
            #expect(reading.answer.isHistoryUnreadable)
            #expect(reading.answer.history == nil)
        }
    }

    // MARK: - Slices and the history's end

    @Test("a slice cut by the limit gives out its decided runs and goes on after its last entry with the open run held")
    func slices() {
        let first = Self.run("lc-a.service", "a1", second: 60) + [
            Self.entry(RunEnding.MessageID.unitStarting, "lc-a.service", "a2", second: 70),
        ]
        var reading = drive(Self.startQuery(), [
            Step(read: .tail, found: .tail(Self.tail)),
            Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
            Step(read: .savedPosition, found: .savedPosition(Self.saved)),
            Step(
                read: .entries(from: .after("s=saved"), limit: HistoryReading.entriesPerSlice), entries: first,
                found: .entries(cursorFound: true, stoppedAt: "s=4")
            ),
            Step(read: .dispatches(beyond: [DispatchCatchUp(unit: "lc-a.service")]), found: .dispatches([:])),
        ])
        #expect(reading.answer.history?.runs(of: "lc-a.service", after: nil).map(\.invocationID) == ["a1"])
        guard let resume = reading.answer.resume else {
            Issue.record("no resume")
            return
        }
        #expect(resume.cursor == "s=4")
        #expect(resume.sliced.end == Self.tail)
        // The next slice: the open run is decided with its end, after the run given out before.
        let next = RecoveryQuery(
            history: .resuming(resume), catchUp: [], endings: [], patterns: Self.patterns, caughtUp: ["lc-a.service"]
        )
        reading = drive(next, [
            Step(
                read: .entries(from: .after("s=4"), limit: HistoryReading.entriesPerSlice),
                entries: [Self.entry(RunEnding.MessageID.unitSuccess, "lc-a.service", "a2", second: 75)],
                found: .entries(cursorFound: false, stoppedAt: nil)
            ),
        ])
        #expect(reading.answer.isContinuation)
        #expect(reading.answer.watchedUntil == 1_800_000_050_000)
        #expect(!reading.logs.contains { $0.message.contains("retention") })  // a later slice says nothing of it
        #expect(reading.answer.history?.runs(of: "lc-a.service", after: "a1").map(\.invocationID) == ["a2"])
        #expect(reading.answer.history?.run(of: "lc-a.service", "a2")?.ending == .endedCleanly(at: 1_800_000_075_000))
    }

    @Test("entries after the history's end end it with this slice: only a skip of a run begun before the end counts")
    func pastEnd() {
        let entries = [
            Self.entry(RunEnding.MessageID.unitStarting, "lc-a.service", "a1", second: 99),
            Self.entry(RunEnding.MessageID.unitStarting, "lc-b.service", "b1", second: 99),
            // After the tail (100 s): the skip of a1, and a new run c1 that signals record.
            Self.entry(RunEnding.MessageID.unitSkipped, "lc-a.service", "a1", second: 101),
            Self.entry(RunEnding.MessageID.unitStarting, "lc-c.service", "c1", second: 102),
            Self.entry(RunEnding.MessageID.unitSuccess, "lc-b.service", "b1", second: 103),
        ]
        let reading = drive(Self.startQuery(), [
            Step(read: .tail, found: .tail(Self.tail)),
            Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
            Step(read: .savedPosition, found: .savedPosition(Self.saved)),
            Step(
                read: .entries(from: .after("s=saved"), limit: HistoryReading.entriesPerSlice), entries: entries,
                found: .entries(cursorFound: true, stoppedAt: "s=more")
            ),
            // lc-a.service is in the history, with no run: caught up all the same.
            Step(
                read: .dispatches(beyond: [DispatchCatchUp(unit: "lc-a.service"), DispatchCatchUp(unit: "lc-b.service")]),
                found: .dispatches([:])
            ),
        ])
        #expect(reading.answer.resume == nil)  // the end was passed: no further slice, though the limit stopped it
        let history = reading.answer.history
        #expect(history?.runs(of: "lc-a.service", after: nil).isEmpty == true)  // skipped: no run
        #expect(history?.run(of: "lc-b.service", "b1")?.ending == nil)  // its end is the signals' to record
        #expect(history?.runs(of: "lc-c.service", after: nil).isEmpty == true)
    }

    // MARK: - Boots and clocks

    @Test("this boot is the tail's, else the kernel's; entries of another boot carry no monotonic time", arguments: [
        (tail as JournalPosition?, boot, UInt64(60_000_000) as UInt64?),
        (tail as JournalPosition?, earlierBoot, nil as UInt64?),
        (nil as JournalPosition?, kernelBoot, UInt64(60_000_000) as UInt64?),
        (nil as JournalPosition?, boot, nil as UInt64?),
    ])
    func thisBoot(tail: JournalPosition?, entryBoot: String, monotonic: UInt64?) {
        let query = RecoveryQuery(history: .since(microseconds: 1_800_000_000_000_000), catchUp: [], endings: [])
        let reading = drive(query, [
            Step(read: .tail, found: .tail(tail)),
            Step(
                read: .entries(from: .since(1_799_999_990_000_000), limit: HistoryReading.entriesPerSlice),
                entries: Self.run("other.service", "o1", second: 60, boot: entryBoot),
                found: .entries(cursorFound: true, stoppedAt: nil)
            ),
        ])
        #expect(reading.answer.history?.run(of: "other.service", "o1")?.beganMonotonic == monotonic)
    }

    @Test("a run's time in order is by the clock as it was at the saved position, whatever the wall clock did since")
    func clockStepped() {
        // The clock stepped back an hour after the saved position: the entry's own time is an hour earlier.
        var stepped = Self.entry(RunEnding.MessageID.unitStarting, "lc-a.service", "a1", second: 60)
        let sent = UInt64(stepped.fields["_SOURCE_REALTIME_TIMESTAMP"]!)! - 3_600_000_000
        stepped.fields["_SOURCE_REALTIME_TIMESTAMP"] = String(sent)
        let reading = drive(Self.startQuery(), [
            Step(read: .tail, found: .tail(Self.tail)),
            Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
            Step(read: .savedPosition, found: .savedPosition(Self.saved)),
            Step(
                read: .entries(from: .after("s=saved"), limit: HistoryReading.entriesPerSlice), entries: [stepped],
                found: .entries(cursorFound: true, stoppedAt: nil)
            ),
            Step(read: .dispatches(beyond: [DispatchCatchUp(unit: "lc-a.service")]), found: .dispatches([:])),
        ])
        let run = reading.answer.history?.run(of: "lc-a.service", "a1")
        #expect(run?.began == Milliseconds(sent / 1_000))
        #expect(run?.beganInOrder == 1_800_000_060_000)
    }

    // MARK: - Catch-up and endings

    @Test("dispatches are read for the units named and the watched units the history shows, not those caught up")
    func catchUp() {
        let query = RecoveryQuery(
            history: .since(microseconds: 1_800_000_000_000_000),
            catchUp: [DispatchCatchUp(unit: "lc-a.service", recordedSequence: 9)], endings: [], patterns: Self.patterns,
            caughtUp: ["lc-b.service"], watched: Self.patterns
        )
        let entries = Self.run("lc-a.service", "a1", second: 60) + Self.run("lc-b.service", "b1", second: 61)
            + Self.run("lc-c.service", "c1", second: 62) + Self.run("other.service", "o1", second: 63)
        let journaled = ["lc-c.service": [JournaledDispatch]()]
        let reading = drive(query, [
            Step(read: .tail, found: .tail(Self.tail)),
            Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
            Step(
                read: .entries(from: .since(1_799_999_990_000_000), limit: HistoryReading.entriesPerSlice),
                entries: entries, found: .entries(cursorFound: true, stoppedAt: nil)
            ),
            Step(
                read: .dispatches(beyond: [
                    DispatchCatchUp(unit: "lc-a.service", recordedSequence: 9), DispatchCatchUp(unit: "lc-c.service"),
                ]),
                found: .dispatches(journaled)
            ),
        ])
        #expect(reading.answer.journaled == journaled)
    }

    @Test("a stored run is looked up on its own only when the history does not show its end")
    func endings() {
        let ended = UnitRunID(unit: "other.service", invocationID: "o1")
        let open = UnitRunID(unit: "other.service", invocationID: "o2")
        let absent = UnitRunID(unit: "gone.service", invocationID: "g1")
        let query = RecoveryQuery(
            history: .since(microseconds: 1_800_000_000_000_000), catchUp: [], endings: [ended, open, absent],
            watched: Self.patterns
        )
        let entries = Self.run("other.service", "o1", second: 60)
            + [Self.entry(RunEnding.MessageID.unitStarting, "other.service", "o2", second: 70)]
        _ = drive(query, [
            Step(read: .tail, found: .tail(Self.tail)),
            Step(read: .journaledUnits(watched: Self.patterns), found: .journaledUnits(Self.named)),
            Step(
                read: .entries(from: .since(1_799_999_990_000_000), limit: HistoryReading.entriesPerSlice),
                entries: entries, found: .entries(cursorFound: true, stoppedAt: nil)
            ),
            Step(read: .endings(of: [open, absent]), found: .endings([:])),
        ])
    }

    @Test("what the journal names is read right after the tail, before any entry; unreadable, the answer has none; a later slice or a query with no watched pattern reads none")
    func journaledUnits() {
        var reading = HistoryReading(Self.startQuery(), kernelBoot: Self.kernelBoot)
        reading.take(.tail(Self.tail))
        #expect(reading.next == .journaledUnits(watched: Self.patterns))
        reading.take(.journaledUnits(nil))
        #expect(reading.next == .savedPosition)
        #expect(reading.answer.journaledUnits == nil)
        // Without watched patterns, nothing is named, so nothing is read: every unit would go live.
        var unwatched = HistoryReading(
            RecoveryQuery(history: .since(microseconds: 1_800_000_000_000_000), catchUp: [], endings: []),
            kernelBoot: Self.kernelBoot
        )
        unwatched.take(.tail(Self.tail))
        #expect(unwatched.next == .entries(from: .since(1_799_999_990_000_000), limit: HistoryReading.entriesPerSlice))
        let resume = HistoryResume(cursor: "s=cut", sliced: SlicedHistory(end: Self.tail))
        let later = HistoryReading(
            RecoveryQuery(history: .resuming(resume), catchUp: [], endings: []), kernelBoot: Self.kernelBoot
        )
        #expect(later.next == .entries(from: .after("s=cut"), limit: HistoryReading.entriesPerSlice))
    }

    @Test("the dumps of runs that dumped core are read for their span, and given to them")
    func coreDumps() {
        let query = RecoveryQuery(history: .since(microseconds: 1_800_000_000_000_000), catchUp: [], endings: [])
        let entries = [
            Self.entry(RunEnding.MessageID.unitStarting, "other.service", "o1", second: 60),
            Self.entry(RunEnding.MessageID.unitProcessExit, "other.service", "o1", second: 61,
                       fields: ["EXIT_CODE": "dumped", "EXIT_STATUS": "11"]),
            Self.entry(RunEnding.MessageID.unitFailureResult, "other.service", "o1", second: 61,
                       fields: ["UNIT_RESULT": "core-dump"]),
        ]
        var reading = HistoryReading(query, kernelBoot: Self.kernelBoot)
        reading.take(.tail(Self.tail))
        entries.forEach { reading.add($0) }
        reading.take(.entries(cursorFound: true, stoppedAt: nil))
        guard case .coreDumps(let span)? = reading.next else {
            Issue.record("no core dumps asked for: \(String(describing: reading.next))")
            return
        }
        #expect(span.contains(1_800_000_060_500))
        reading.take(.coreDumps([]))
        #expect(reading.next == nil)
    }
}
