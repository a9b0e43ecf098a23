// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

/// The reading of the journal that answers a ``RecoveryQuery``, as one pure machine: it says what to read next
/// (``next``), takes what each read found (``take(_:)``, PID 1's entries one at a time through ``add(_:)``), and ends
/// with the ``answer``. Every rule of the read is here: the barrier, where the history starts (the position saved,
/// else the last sign of an earlier lifecycled, else the whole journal or nothing), where it ends (the journal's tail
/// when the recovery began) and what after the end still counts, which boot is this one, the slices, the units caught
/// up with and the stored runs whose end is looked up. The driver only performs the reads (docs/journal.md, "Where
/// recovery resumes").
public struct HistoryReading: Sendable {
    /// A read the machine asks for.
    public enum Read: Sendable, Equatable {
        /// Write the barrier's probe when it asks to, and say whether the journal shows it.
        case barrier(JournalBarrier)
        /// The position of the journal's newest entry.
        case tail
        /// The units the journal names (``JournaledUnits``) among those `watched` patterns match, read after the
        /// tail: a superset of the history's. Not asked without patterns, which would name nothing and so let every
        /// unit with no record go live, those whose runs the history holds too.
        case journaledUnits(watched: [UnitPattern])
        /// The position the previous lifecycled saved in the state directory (nil when there is none).
        case savedPosition
        /// When (µs since the epoch) the newest earlier lifecycled that tracked units last wrote an entry: its last
        /// entry, that process being one other than this one (this process of `thisBoot`).
        case lastTracking(thisBoot: String?)
        /// PID 1's run entries (``entryMatches``, with ``entryFields``) from `start`, at most `limit` of them: each
        /// handed to ``add(_:)``, then ``Found/entries(cursorFound:stoppedAt:)``.
        case entries(from: HistoryStart, limit: Int)
        /// systemd-coredump's entries of crashes within the span, oldest first, with their cursors.
        case coreDumps(within: ClosedRange<Milliseconds>)
        /// lifecycled's own dispatches numbered above each unit's recorded sequence (all of them without one).
        case dispatches(beyond: [DispatchCatchUp])
        /// How each of these stored runs ended, by PID 1's entries.
        case endings(of: [UnitRunID])
    }

    /// What a read found.
    public enum Found: Sendable {
        case barrier(seen: Bool)
        case tail(JournalPosition?)
        /// nil when the journal could not be read for them.
        case journaledUnits(JournaledUnits?)
        case savedPosition(JournalPosition?)
        case lastTracking(microseconds: UInt64?)
        /// The entries were all handed in; `cursorFound` is false when the journal no longer holds the entry a read
        /// `after` a cursor began at, and `stoppedAt` the cursor of the last entry when the limit stopped the read.
        case entries(cursorFound: Bool, stoppedAt: String?)
        case coreDumps([(entry: RunEnding.Entry, cursor: String?)])
        case dispatches([String: [JournaledDispatch]])
        case endings([String: RunEnding])
        /// The journal could not be read for the last ``Read`` (the driver logs why).
        case unreadable
    }

    /// How far before the last sign of life of the previous lifecycled (or the loss of the bus) the history begins
    /// (µs), when no position was saved: a run that began just before may not have reached lifecycled. Widening it
    /// is safe: a unit's runs are taken only after the run its record holds.
    static let margin: UInt64 = 10_000_000

    /// How many of PID 1's entries one slice reads (three to six a run: 5,000 hold about 1,650 runs of a restarting
    /// service): a history of any length is held a slice at a time, each recorded before the next is read
    /// (docs/PERFORMANCE.md, "A long history on day one"). Slices of 10,000 held 1.9 MB more on the heap at the peak
    /// of a day-one history, for a READY 5 % sooner (docs/PERFORMANCE.md, "Slices of 5,000 entries").
    public static let entriesPerSlice = 5_000

    /// PID 1's entries about runs, and the fields the history reads of them.
    public static let entryMatches = ["_PID=1"] + RunEnding.MessageID.all.map { "MESSAGE_ID=\($0)" }
    public static let entryFields = RunHistory.fields + ["_BOOT_ID", "_SOURCE_MONOTONIC_TIMESTAMP"]

    /// The read to perform next; nil once the ``answer`` is complete.
    public private(set) var next: Read?
    /// The answer so far; complete once ``next`` is nil.
    public private(set) var answer = RecoveryAnswer()
    /// What the reading has to say, for the log.
    public private(set) var logs: [LogLine] = []

    private let query: RecoveryQuery
    /// This boot as the kernel names it, when the journal's tail does not say (see ``thisBoot``).
    private let kernelBoot: String?
    private var slice = Slice()

    /// What the slice being read holds.
    private struct Slice: Sendable {
        var sliced = SlicedHistory()
        var start: HistoryStart = .since(0)
        var builder = RunHistory.Builder()
        var thisBoot: String?
        var entries = 0
        var passedEnd = false
    }

    public init(_ query: RecoveryQuery, kernelBoot: String?) {
        self.query = query
        self.kernelBoot = kernelBoot
        if let barrier = query.barrier {
            next = .barrier(barrier)
        } else {
            readHistory()
        }
    }

    /// Takes one of PID 1's entries of the slice being read, oldest first. One that comes after the history's end
    /// (``SlicedHistory/isPastEnd(boot:monotonicMicroseconds:)``) ends the history with this slice, and only a skip
    /// of a run begun before the end counts of it (``RunHistory/Builder/addPastEnd(_:)``).
    public mutating func add(_ entry: JournalEntry) {
        slice.entries += 1
        let isPastEnd = slice.sliced.isPastEnd(boot: entry.fields["_BOOT_ID"], monotonicMicroseconds: entry.monotonicMicroseconds)
        if isPastEnd { slice.passedEnd = true }
        if let units = slice.sliced.units, !units.contains(entry.fields["UNIT"] ?? "") { return }
        guard let run = RunEnding.Entry(pid1: entry, clock: slice.sliced.clock, thisBoot: slice.thisBoot) else { return }
        if isPastEnd {
            slice.builder.addPastEnd(run)
        } else {
            slice.builder.add(run)
        }
    }

    /// Takes what the read ``next`` asked for found, and goes on to the next.
    public mutating func take(_ found: Found) {
        guard let read = next else { return }
        switch (read, found) {
        case (.barrier, .barrier(let seen)):
            if seen {
                readHistory()
            } else {
                answer = .barrierNotSeen
                next = nil
            }
        case (.tail, .tail(let position)):
            answer.position = position
            if query.watched.isEmpty {
                readHistoryStart()
            } else {
                next = .journaledUnits(watched: query.watched)
            }
        case (.journaledUnits, .journaledUnits(let units)):
            answer.journaledUnits = units
            readHistoryStart()
        case (.savedPosition, .savedPosition(let saved?)):
            let watchedUntil = Milliseconds(saved.realtimeMicroseconds / 1_000)
            readSlice(
                SlicedHistory(clock: saved, end: answer.position, watchedUntil: watchedUntil), from: .after(saved.cursor)
            )
        case (.savedPosition, .savedPosition(nil)):
            next = .lastTracking(thisBoot: thisBoot(end: answer.position))
        case (.lastTracking, .lastTracking(let lastSeen?)):
            let sliced = SlicedHistory(end: answer.position, watchedUntil: Milliseconds(lastSeen / 1_000))
            readSlice(sliced, from: .since(Self.before(lastSeen)))
        case (.lastTracking, .lastTracking(nil)):
            guard case .sinceLastTracking(orWholeJournal: true) = query.history else {
                logs.append(LogLine(.info, "No earlier lifecycled tracked units here: runs before this start are not looked for"))
                catchUp()
                return
            }
            logs.append(LogLine(.notice, "No earlier lifecycled tracked units here: rebuilding the watched units' runs from PID 1's journal"))
            readSlice(SlicedHistory(end: answer.position, isWholeJournal: true), from: .since(0))
        case (.entries, .entries(let cursorFound, let stoppedAt)):
            finishSlice(cursorFound: cursorFound, stoppedAt: stoppedAt)
        case (.coreDumps, .coreDumps(let dumps)):
            answer.history?.addCoreDumps(dumps)
            catchUp()
        case (.dispatches, .dispatches(let journaled)):
            answer.journaled = journaled
            lookUpEndings()
        case (.endings, .endings(let endings)):
            answer.endings = endings
            next = nil
        case (.lastTracking, .unreadable), (.entries, .unreadable):
            // The core reads it all again later (``DaemonCore/recoveryReadLimit``); the rest of the answer is what it
            // goes on with when the journal stays unreadable.
            answer.isHistoryUnreadable = true
            catchUp()
        case (.coreDumps, .unreadable):
            catchUp()
        case (.dispatches, .unreadable):
            lookUpEndings()
        case (.endings, .unreadable), (.barrier, _), (.tail, _), (.journaledUnits, _), (.savedPosition, _),
            (.lastTracking, _), (.entries, _), (.coreDumps, _), (.dispatches, _), (.endings, _):
            preconditionFailure("\(found) does not answer \(read)")
        }
    }

    // MARK: - The steps

    /// The history's window, by the query.
    private mutating func readHistory() {
        switch query.history {
        case .none:
            catchUp()
        case .sinceLastTracking, .since, .wholeJournal:
            // The tail before the history: what is written while it is read is read again next time.
            next = .tail
        case .resuming(let resume):
            answer.isContinuation = true
            readSlice(resume.sliced, from: .after(resume.cursor))
        }
    }

    /// Where the history starts, once its end (the tail) is known: at once for a time or the whole journal, else
    /// after the saved position.
    private mutating func readHistoryStart() {
        switch query.history {
        case .since(let microseconds):
            readSlice(SlicedHistory(end: answer.position), from: .since(Self.before(microseconds)))
        case .wholeJournal(let units):
            readSlice(SlicedHistory(end: answer.position, isWholeJournal: true, units: units), from: .since(0))
        case .none, .sinceLastTracking, .resuming:
            next = .savedPosition
        }
    }

    private mutating func readSlice(_ sliced: SlicedHistory, from start: HistoryStart) {
        answer.isWholeJournal = sliced.isWholeJournal
        answer.watchedUntil = sliced.watchedUntil
        slice = Slice(sliced: sliced, start: start, builder: sliced.undecided, thisBoot: thisBoot(end: sliced.end))
        next = .entries(from: start, limit: Self.entriesPerSlice)
    }

    /// The slice is read: the history ends with it when it reached the end of the journal or the history's end;
    /// otherwise its decided runs are given out, and the next slice goes on after its last entry.
    private mutating func finishSlice(cursorFound: Bool, stoppedAt: String?) {
        if !cursorFound, case .after(let cursor) = slice.start, !answer.isContinuation {
            logs.append(LogLine(.notice, "The journal no longer holds the entry lifecycled had read up to (retention removed it): reading PID 1's runs from where it was (\(cursor))"))
        }
        logs.append(LogLine(.debug, "Read \(slice.entries) of PID 1's journal entries to reconcile"))
        if let stoppedAt, !slice.passedEnd {
            answer.history = slice.builder.takeDecided()
            var nextSlice = slice.sliced
            nextSlice.undecided = slice.builder
            answer.resume = HistoryResume(cursor: stoppedAt, sliced: nextSlice)
        } else {
            answer.history = slice.builder.finish()
        }
        slice = Slice()
        // systemd-coredump's entries are not PID 1's: the dumps of runs that dumped core are read on their own.
        if let span = answer.history?.coreDumpSpan {
            next = .coreDumps(within: span)
        } else {
            catchUp()
        }
    }

    /// Every unit a dispatch may already be in the journal for, so that none is sent or numbered twice: those the
    /// query names, and the watched units the history shows that it does not.
    private mutating func catchUp() {
        var units = query.catchUp
        let named = Set(units.map(\.unit)).union(query.caughtUp)
        for unit in answer.history.map({ $0.units.sorted() }) ?? [] where !named.contains(unit) {
            if query.patterns.contains(where: { $0.matches(unit) }) { units.append(DispatchCatchUp(unit: unit)) }
        }
        if units.isEmpty {
            lookUpEndings()
        } else {
            next = .dispatches(beyond: units)
        }
    }

    /// The stored runs whose end the history does not show.
    private mutating func lookUpEndings() {
        let runs = query.endings.filter { answer.history?.run(of: $0.unit, $0.invocationID)?.ending == nil }
        next = runs.isEmpty ? nil : .endings(of: runs)
    }

    /// This boot as the journal names it: the boot of its newest entry when the recovery began (`end`), which PID 1
    /// and journald wrote in this boot, else the kernel's. The two differ inside a systemd-nspawn container: nspawn
    /// lays a boot ID of the container's over `/proc/sys/kernel/random/boot_id`, which journald reads, while
    /// lifecycled's `ProtectKernelTunables=` mounts `/proc/sys` afresh and shows the kernel's; taken from the kernel,
    /// no entry would be of this boot, and recovered runs would lose PID 1's monotonic clock.
    private func thisBoot(end: JournalPosition?) -> String? {
        end?.bootID ?? kernelBoot
    }

    /// ``margin`` before `microseconds`, not before the epoch.
    private static func before(_ microseconds: UInt64) -> UInt64 {
        microseconds > margin ? microseconds - margin : 0
    }
}

/// Where a slice of PID 1's history begins.
public enum HistoryStart: Sendable, Equatable {
    /// At a time (µs since the epoch).
    case since(UInt64)
    /// After the entry at a cursor.
    case after(String)
}

/// A unit whose own dispatches are read beyond the sequence its record holds (nil: no record; all of them).
public struct DispatchCatchUp: Sendable, Equatable {
    public var unit: String
    public var recordedSequence: UInt64?

    public init(unit: String, recordedSequence: UInt64? = nil) {
        self.unit = unit
        self.recordedSequence = recordedSequence
    }
}
