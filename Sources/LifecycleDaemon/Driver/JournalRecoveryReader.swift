// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import LifecycleSystemd
import Logging

/// Reads what ``DaemonCore`` asks of the journal to recover what lifecycled missed (``RecoveryQuery``): PID 1's runs,
/// lifecycled's own dispatches beyond the records, and how stored runs ended. Only root-owned, trusted entries.
///
/// PID 1's runs are read from the position saved in the state directory (``JournalPositionFile``), by its cursor: the
/// journal's order, not the wall clock, says what came after it. Without one (an upgrade from a version that did not
/// save it) from the last sign of the previous lifecycled, and on the first start on a machine from the beginning.
struct JournalRecoveryReader {
    /// How far before the last sign of life of the previous lifecycled (or the loss of the bus) the journal is
    /// searched for missed runs (µs), when no position was saved: a run that began just before may not have reached
    /// lifecycled. Widening the search is safe: a unit's runs are taken only after the run its record holds.
    static let historyMargin: UInt64 = 10_000_000

    let logger: Logger
    let positionFile: JournalPositionFile

    func answer(_ query: RecoveryQuery) -> RecoveryAnswer {
        var answer = RecoveryAnswer()
        switch query.history {
        case .none: break
        case .sinceLastTracking(let orWholeJournal):
            // Before the history: what is written while it is read is read again next time.
            answer.position = tail()
            readMissedHistory(orWholeJournal: orWholeJournal, into: &answer)
        case .since(let microseconds):
            answer.position = tail()
            let start = microseconds > Self.historyMargin ? microseconds - Self.historyMargin : 0
            read(from: .since(start), slicing: SlicedHistory(end: answer.position), into: &answer)
        case .resuming(let resume):
            answer.isContinuation = true
            read(from: .after(resume.cursor), slicing: resume.sliced, into: &answer)
        }
        // Every unit a dispatch may already be in the journal for, so that none is sent or numbered twice.
        var catchUp = query.catchUp
        let listed = Set(catchUp.map(\.unit)).union(query.caughtUp)
        for unit in (answer.history?.units).map(Array.init) ?? [] where !listed.contains(unit) {
            if query.patterns.contains(where: { $0.matches(unit) }) { catchUp.append((unit, nil)) }
        }
        if !catchUp.isEmpty { answer.journaled = dispatches(beyond: catchUp) }
        // A stored run that ended within the history needs no lookup of its own.
        for run in query.endings where answer.history?.run(of: run.unit, run.invocationID)?.ending == nil {
            answer.endings[run.unit] = ending(of: run.unit, invocationID: run.invocationID)
        }
        return answer
    }

    /// Each unit's dispatches numbered above its record's sequence, or all of them for a unit with no record.
    private func dispatches(beyond catchUp: [(unit: String, recordedSequence: UInt64?)]) -> [String: [JournaledDispatch]] {
        var journaled: [String: [JournaledDispatch]] = [:]
        do {
            let found = try reader.newestEntries(
                for: catchUp.map { DispatchMatches.unit($0.unit) },
                fields: JournaledDispatch.fields,
                while: { index, entry in
                    let floor = catchUp[index].recordedSequence ?? 0
                    return entry.fields[DispatchField.sequence].flatMap { UInt64($0) }.map { $0 > floor } ?? false
                }
            )
            for (query, entries) in zip(catchUp, found) {
                let dispatches = entries.reversed().compactMap { JournaledDispatch(fields: $0.fields) }
                if !dispatches.isEmpty { journaled[query.unit] = dispatches }
            }
        } catch {
            logger.warning("Failed to read lifecycled's dispatches from the journal", metadata: ["error": "\(error)"])
        }
        return journaled
    }

    /// How a run ended according to PID 1's journal (`_PID=1` only); nil when it does not say.
    func ending(of unit: String, invocationID: String) -> RunEnding? {
        do {
            let entries = try reader.entries(
                matching: ["_PID=1", "UNIT=\(unit)", "INVOCATION_ID=\(invocationID)"],
                fields: RunEnding.fields
            )
            return RunEnding(entries: entries.compactMap { runEntry($0) })
        } catch {
            logger.warning("Failed to read the journal about \(unit)", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The journal, with what a damaged file made a read leave out logged (once per read).
    private var reader: JournalReader {
        JournalReader(damaged: { [logger] damage in
            logger.warning("Read the journal past damage: \(damage)")
        })
    }

    /// The position of the journal's newest entry; nil when it cannot be read (logged).
    func tail() -> JournalPosition? {
        do {
            return try reader.tail()
        } catch {
            logger.warning("Failed to read where the journal ends", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The first slice of the runs PID 1 logged after the saved position, or since the previous lifecycled was last
    /// seen tracking (the answer's `watchedUntil`: when that was). On the first start on this machine, the whole
    /// journal when `orWholeJournal`, else none; none too when the journal cannot be read.
    private func readMissedHistory(orWholeJournal: Bool, into answer: inout RecoveryAnswer) {
        let end = answer.position
        if let saved = savedPosition() {
            let sliced = SlicedHistory(
                clock: saved, end: end, watchedUntil: Milliseconds(saved.realtimeMicroseconds / 1_000)
            )
            read(from: .after(saved.cursor), slicing: sliced, into: &answer)
            return
        }
        let lastSeen: UInt64?
        do {
            lastSeen = try lastSignOfTracking(reader, thisBoot: Self.thisBoot(tail: end))
        } catch {
            logger.warning("Failed to read the journal for runs missed while lifecycled was down", metadata: ["error": "\(error)"])
            answer.isHistoryUnreadable = true
            return
        }
        if let lastSeen {
            let start = lastSeen > Self.historyMargin ? lastSeen - Self.historyMargin : 0
            let sliced = SlicedHistory(end: end, watchedUntil: Milliseconds(lastSeen / 1_000))
            read(from: .since(start), slicing: sliced, into: &answer)
            return
        }
        guard orWholeJournal else {
            logger.info("No earlier lifecycled tracked units here: runs before this start are not looked for")
            return
        }
        logger.notice("No earlier lifecycled tracked units here: rebuilding the watched units' runs from PID 1's journal")
        read(from: .since(0), slicing: SlicedHistory(end: end, isWholeJournal: true), into: &answer)
    }

    /// The position saved by the previous lifecycled; nil when there is none, or it cannot be read (then logged:
    /// the tracking entries say where to start instead).
    private func savedPosition() -> JournalPosition? {
        do {
            return try positionFile.load()
        } catch {
            logger.warning("Failed to read how far PID 1's journal was read; looking for lifecycled's last tracking entry instead", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// PID 1's entries about runs, and the fields the history reads of them.
    private static let runMatches = ["_PID=1"] + RunEnding.MessageID.all.map { "MESSAGE_ID=\($0)" }
    private static let runFields = RunHistory.fields + ["_BOOT_ID", "_SOURCE_MONOTONIC_TIMESTAMP"]

    /// How many of PID 1's entries one slice of a history reads (three to six a run: 10,000 held 3,300 runs of a
    /// restarting service): a history of any length is held a slice at a time, each recorded before the next is read
    /// (docs/PERFORMANCE.md, "A long history on day one").
    static let entriesPerSlice = 10_000

    /// Where a slice begins: a time (µs since the epoch), or after the entry at a cursor.
    private enum SliceStart {
        case since(UInt64)
        case after(String)
    }

    /// One slice of PID 1's runs from `start`, on top of the runs an earlier slice left undecided: the runs it decides
    /// (none when the journal cannot be read, logged), and where the next slice goes on (nil when it read to the end,
    /// and every run is given out). Streamed into the history, which keeps only what decides each run.
    private func read(from start: SliceStart, slicing sliced: SlicedHistory, into answer: inout RecoveryAnswer) {
        answer.isWholeJournal = sliced.isWholeJournal
        answer.watchedUntil = sliced.watchedUntil
        var builder = sliced.undecided
        var count = 0
        var passedEnd = false
        let boot = Self.thisBoot(tail: sliced.end)
        let add = { (entry: JournalEntry) in
            count += 1
            if sliced.isPastEnd(boot: entry.fields["_BOOT_ID"], monotonicMicroseconds: entry.monotonicMicroseconds) {
                passedEnd = true
                if let entry = runEntry(entry, position: sliced.clock, thisBoot: boot) { builder.addPastEnd(entry) }
            } else if let entry = runEntry(entry, position: sliced.clock, thisBoot: boot) {
                builder.add(entry)
            }
        }
        let stoppedAt: String?
        do {
            switch start {
            case .since(let microseconds):
                stoppedAt = try reader.forEachEntry(
                    matching: Self.runMatches, fields: Self.runFields, since: microseconds, limit: Self.entriesPerSlice, add
                )
            case .after(let cursor):
                let read = try reader.forEachEntry(
                    matching: Self.runMatches, fields: Self.runFields, after: cursor, limit: Self.entriesPerSlice, add
                )
                if !read.found, !answer.isContinuation {
                    logger.notice(
                        "The journal no longer holds the entry lifecycled had read up to (retention removed it): reading PID 1's runs from where it was",
                        metadata: ["cursor": "\(cursor)"]
                    )
                }
                stoppedAt = read.stoppedAt
            }
        } catch {
            logger.warning("Failed to read PID 1's journal for missed runs", metadata: ["error": "\(error)"])
            answer.isHistoryUnreadable = true
            return
        }
        logger.debug("Read \(count) of PID 1's journal entries to reconcile")
        // The end of the history (the journal's tail when the recovery began) or of the journal: the last slice.
        guard let stoppedAt, !passedEnd else {
            answer.history = withCoreDumps(builder.finish())
            return
        }
        answer.history = withCoreDumps(builder.takeDecided())
        var next = sliced
        next.undecided = builder
        answer.resume = HistoryResume(cursor: stoppedAt, sliced: next)
    }

    /// `history` with the dumps of its runs that dumped core, from systemd-coredump's entries: they are not PID 1's.
    private func withCoreDumps(_ history: RunHistory) -> RunHistory {
        guard let span = history.coreDumpSpan else { return history }
        var history = history
        history.addCoreDumps(RunJournalReader(logger: logger).coreDumps(within: span))
        return history
    }

    /// The time (µs since the epoch) of the last entry of the newest earlier lifecycled that tracked units.
    private func lastSignOfTracking(_ reader: JournalReader, thisBoot: String?) throws(SystemdError) -> UInt64? {
        let own = (pid: String(getpid()), boot: thisBoot)
        let identity = ["_PID", "_BOOT_ID"]
        guard let marker = try reader.newestEntry(
            matching: DispatchMatches.own + ["MESSAGE_ID=\(TrackingStartedEntry.messageID)"], fields: identity,
            where: { $0.fields["_PID"] != own.pid || $0.fields["_BOOT_ID"] != own.boot }
        ), let pid = marker.fields["_PID"], let boot = marker.fields["_BOOT_ID"]
        else { return nil }
        let last = try reader.newestEntry(matching: DispatchMatches.own + ["_PID=\(pid)", "_BOOT_ID=\(boot)"], fields: [])
        return last?.realtimeMicroseconds ?? marker.realtimeMicroseconds
    }

    /// One of PID 1's entries, at the time PID 1 sent it (`_SOURCE_REALTIME_TIMESTAMP`), else when journald got it:
    /// a run's begin must compare exactly with systemd's state-change times (see ``UnitSnapshot/predates(_:monotonic:)``).
    /// For an entry of this boot (`thisBoot`), PID 1's monotonic time too (`_SOURCE_MONOTONIC_TIMESTAMP`, else
    /// journald's), and with `position` the time by the clock as it was there.
    private func runEntry(_ entry: JournalEntry, position: JournalPosition? = nil, thisBoot: String? = nil) -> RunEnding.Entry? {
        guard let messageID = entry.fields["MESSAGE_ID"] else { return nil }
        let sent = entry.fields["_SOURCE_REALTIME_TIMESTAMP"].flatMap { UInt64($0) } ?? entry.realtimeMicroseconds
        let boot = entry.fields["_BOOT_ID"]
        let monotonic = entry.fields["_SOURCE_MONOTONIC_TIMESTAMP"].flatMap { UInt64($0) } ?? entry.monotonicMicroseconds
        return RunEnding.Entry(
            // The known ids as their constants: a long history keeps several entries per run, and each id read from
            // the journal is a string of its own (32 bytes, out of line).
            messageID: RunEnding.MessageID.all.first { $0 == messageID } ?? messageID,
            time: Milliseconds(sent / 1_000), fields: entry.fields,
            monotonicMicroseconds: boot != nil && boot == thisBoot ? monotonic : nil,
            positionTime: boot.flatMap { position?.wallClock(ofMonotonic: monotonic, boot: $0) }
        )
    }

    /// This boot as the journal names it: the boot of its newest entry when the recovery began (`tail`), which PID 1
    /// and journald wrote in this boot, else the kernel's. The two differ inside a systemd-nspawn container: nspawn
    /// lays a boot ID of the container's over `/proc/sys/kernel/random/boot_id`, which journald reads, while
    /// lifecycled's `ProtectKernelTunables=` mounts `/proc/sys` afresh and shows the kernel's; taken from the kernel,
    /// no entry would be of this boot, and recovered runs would lose PID 1's monotonic clock.
    private static func thisBoot(tail: JournalPosition?) -> String? {
        tail?.bootID ?? JournalReader.currentBootID
    }
}
