// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import LifecycleSystemd
import Logging

/// Performs the reads of a ``HistoryReading``, which decides what to read to answer a ``RecoveryQuery`` (PID 1's
/// runs, lifecycled's own dispatches beyond the records, how stored runs ended) and makes the answer of what they
/// found. Only root-owned, trusted entries.
struct JournalRecoveryReader {
    let logger: Logger
    let positionFile: JournalPositionFile

    /// - Parameters:
    ///   - lookForBarrier: writes the barrier's probe when asked to, and says whether the journal shows it.
    ///   - named: told what the journal names (``JournaledUnits``) as soon as it is read, long before the answer.
    func answer(
        _ query: RecoveryQuery, lookForBarrier: (JournalBarrier) -> Bool, named: (JournaledUnits) -> Void = { _ in }
    ) -> RecoveryAnswer {
        var reading = HistoryReading(query, kernelBoot: JournalReader.currentBootID)
        while let read = reading.next {
            switch read {
            case .barrier(let barrier):
                reading.take(.barrier(seen: lookForBarrier(barrier)))
            case .journaledUnits(let watched):
                let units = journaledUnits(watched: watched)
                reading.take(.journaledUnits(units))
                if let units { named(units) }
            default:
                reading.take(perform(read, adding: &reading))
            }
        }
        for line in reading.logs { logger.log(level: line.level.loggerLevel, "\(line.message)") }
        return reading.answer
    }

    private func perform(_ read: HistoryReading.Read, adding reading: inout HistoryReading) -> HistoryReading.Found {
        switch read {
        case .barrier, .journaledUnits:
            preconditionFailure("\(read) is read by the caller")
        case .tail:
            return .tail(tail())
        case .savedPosition:
            return .savedPosition(savedPosition())
        case .lastTracking(let thisBoot):
            do {
                return .lastTracking(microseconds: try lastSignOfTracking(reader, thisBoot: thisBoot))
            } catch {
                logger.warning("Failed to read the journal for runs missed while lifecycled was down", metadata: ["error": "\(error)"])
                return .unreadable
            }
        case .entries(let start, let limit):
            do {
                switch start {
                case .since(let microseconds):
                    let stoppedAt = try reader.forEachEntryFileByFile(
                        matching: HistoryReading.entryMatches, fields: HistoryReading.entryFields, since: microseconds,
                        limit: limit
                    ) { reading.add($0) }
                    return .entries(cursorFound: true, stoppedAt: stoppedAt)
                case .after(let cursor):
                    let read = try reader.forEachEntryFileByFile(
                        matching: HistoryReading.entryMatches, fields: HistoryReading.entryFields, after: cursor,
                        limit: limit
                    ) { reading.add($0) }
                    return .entries(cursorFound: read.found, stoppedAt: read.stoppedAt)
                }
            } catch {
                logger.warning("Failed to read PID 1's journal for missed runs", metadata: ["error": "\(error)"])
                return .unreadable
            }
        case .coreDumps(let span):
            return .coreDumps(RunJournalReader(logger: logger).coreDumps(within: span))
        case .dispatches(let catchUp):
            return .dispatches(dispatches(beyond: catchUp))
        case .endings(let runs):
            var endings: [String: RunEnding] = [:]
            for run in runs { endings[run.unit] = ending(of: run.unit, invocationID: run.invocationID) }
            return .endings(endings)
        }
    }

    /// Each unit's dispatches numbered above its record's sequence, or all of them for a unit with no record.
    private func dispatches(beyond catchUp: [DispatchCatchUp]) -> [String: [JournaledDispatch]] {
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
            return RunEnding(entries: entries.compactMap { RunEnding.Entry(pid1: $0) })
        } catch {
            logger.warning("Failed to read the journal about \(unit)", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The journal, with what a damaged file made a read leave out logged (once per read).
    private var reader: JournalReader { JournalReader(logging: logger) }

    /// The position of the journal's newest entry; nil when it cannot be read (logged).
    func tail() -> JournalPosition? {
        do {
            return try reader.tail()
        } catch {
            logger.warning("Failed to read where the journal ends", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The watched units the journal names: PID 1's `UNIT=` values and lifecycled's `LIFECYCLE_UNIT=` values that
    /// match `watched`, the only units that can go live; nil when they cannot be read (logged: then no unit's change
    /// is taken before the recovery ends). Kept to watched names, the set does not grow with every unit a host's
    /// journal names (transient units with names that never repeat).
    private func journaledUnits(watched: [UnitPattern]) -> JournaledUnits? {
        let isWatched = { (unit: String) in watched.contains { $0.matches(unit) } }
        do {
            return JournaledUnits(
                logged: try reader.uniqueValues(of: "UNIT", keeping: isWatched),
                dispatched: try reader.uniqueValues(of: DispatchField.unit, keeping: isWatched)
            )
        } catch {
            logger.warning("Failed to read which units the journal names: every change waits for the recovery", metadata: ["error": "\(error)"])
            return nil
        }
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
}
