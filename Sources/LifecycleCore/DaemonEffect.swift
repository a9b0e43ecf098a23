// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// What the core asks the loop to do, in order. An effect with an answer reports it as a ``DaemonInput``.
public enum DaemonEffect: Sendable, Equatable {
    /// Write the unit's record to its state file (before any dispatch of it is sent); answer
    /// ``DaemonInput/saved(unit:failure:)``.
    case save(UnitRecord)
    /// Send these entries to the journal in order, stopping at the first refusal; answer ``DaemonInput/sent(count:refused:)``.
    case send([PendingDispatch])
    /// Look these entries, and the probe numbered `probe` when there is one, up in lifecycled's own journal entries;
    /// when `sync`, have the journal synced after a look that found some (``JournalCheck/synced``); answer
    /// ``DaemonInput/lookedUp(_:_:)``.
    case lookUp([PendingDispatch], probe: UInt64?, sync: Bool)
    /// Write a probe entry numbered `number` after the `missing` entries not seen yet (no answer: a failure is logged).
    case writeProbe(UInt64, missing: Int)
    /// Read ahead, in one batch, what the versions of these runs will need, for the ``readVersion(unit:invocationID:source:)``
    /// that follow (no answer).
    case prefetchVersions([UnitRunID])
    /// Read the version of the unit's run by its source while the run's unit is loaded; answer
    /// ``DaemonInput/versionRead(unit:version:)``.
    case readVersion(unit: String, invocationID: String, source: VersionSource)
    /// Read the timers that start these watched services (their `TriggeredBy`) and follow them; answer
    /// ``DaemonInput/timersRead(_:)``.
    case readTimers([String])
    /// Read PID 1's failed start jobs of the units whose timers elapsed while lifecycled was away; answer
    /// ``DaemonInput/missedStartsRead(_:_:)`` at once.
    case readMissedStarts(MissedStartQuery)
    /// Read what a run that just ended cost (CPU, memory peak, IO) from its unit's properties; answer
    /// ``DaemonInput/runCostRead(_:_:)``.
    case readRunCost(UnitRunID)
    /// Read how a run ended from PID 1's journal; answer ``DaemonInput/runEndingRead(unit:invocationID:ending:barrierSeen:)``.
    /// Before the read: write probe `barrier` when asked to (``JournalBarrier``), and look whether the journal shows it.
    case readRunEnding(unit: String, invocationID: String, barrier: JournalBarrier)
    /// Read what the journal tells of a run that just failed beyond its unit's properties: who OOM-killed it, its core
    /// dump; answer ``DaemonInput/runJournalRead(_:_:)``. Before the read: write the query's probe when asked to.
    case readRunJournal(RunJournalQuery)
    /// Read PID 1's and lifecycled's journal for what was missed; answer ``DaemonInput/recovered(_:)``, which the
    /// daemon's loop gives later, as an input: it reads on the journal's thread (docs/architecture.md, "One thread").
    case readRecovery(RecoveryQuery)
    /// Find the archived records of these units, which systemd shows for the first time since they were archived (or
    /// ever); answer ``DaemonInput/archiveRead(_:)``.
    case readArchive([String])
    /// Move these records (nothing pending, their units gone) to the archive and delete their state files (no answer:
    /// a failure is logged, and the records stay in their state files for the next start). A shard that grew large
    /// is compacted, dropping the records of units last active before `expiredBefore` (nil: none).
    case archive([UnitRecord], expiredBefore: Milliseconds?)
    /// Subscribe to systemd for these patterns, replacing any earlier subscription; the source then reports a
    /// ``DaemonInput/listing(_:)``.
    case watch([UnitPattern])
    /// Publish lifecycled's D-Bus interface (again); answer ``DaemonInput/managerPublished(_:)``.
    case publishManager
    /// Answer a D-Bus call: the dispatch's sequence number (0 when not dispatched), or why it was refused.
    case reply(ReplyToken, Result<UInt64, EventRequestError>)
    /// Tell the service manager (`sd_notify`).
    case notify([ServiceNotification])
    /// Write the journal entry that marks this process as tracking units.
    case markTracking(status: String)
    /// Keep `position` in the state directory as how far PID 1's journal is taken into account; answer
    /// ``DaemonInput/journalPositionSaved(_:failure:)`` (until it is kept, the next start reads from an older one).
    case saveJournalPosition(JournalPosition)
    /// Read the position of the journal's newest entry; answer ``DaemonInput/journalTailRead(_:)``.
    case readJournalTail
    /// Replace the metrics file at `path` with `text` (atomically); a failure is the loop's to log.
    case writeMetrics(path: String, text: String)
    /// Fire ``DaemonInput/timer(_:)`` at this moment of the monotonic clock, which no step of the wall clock moves.
    case arm(DaemonTimer, at: Uptime)
    /// A line for lifecycled's log.
    case log(LogLine)
    /// Give memory freed by a burst of work (start-up) back to the system: the heap's free pages, and the code pages
    /// of work seldom done again.
    case releaseMemory
    /// Give the heap's free pages back to the system, and nothing else: cheap enough to do every few seconds while a
    /// churn of units frees memory in bursts (docs/PERFORMANCE.md, "Memory under name churn").
    case trimHeap
    /// Everything is done: the loop ends.
    case exit
}

/// A line for lifecycled's own log, with its level.
public struct LogLine: Sendable, Equatable, CustomStringConvertible {
    public enum Level: Sendable, Equatable { case debug, info, notice, warning, error }
    public var level: Level
    public var message: String

    public init(_ level: Level, _ message: String) {
        self.level = level
        self.message = message
    }

    public var description: String { message }
}

extension [DaemonEffect] {
    /// The effects with one save per record: the first save of each unit writes the record as its last save has it,
    /// and the later ones go. A record is still saved before any of its dispatches is sent (sends come after all saves
    /// of one input), and a long history costs one write per round instead of one per dispatch.
    func coalescingSaves() -> [DaemonEffect] {
        var saves = 0
        for effect in self {
            if case .save = effect { saves += 1 }
        }
        // Most inputs save one record or none: nothing to coalesce, and no dictionary of their units is built.
        guard saves > 1 else { return self }
        var newest: [String: UnitRecord] = [:]
        for case .save(let record) in self {
            newest[record.unit] = record
        }
        guard saves > newest.count else { return self }
        var result: [DaemonEffect] = []
        result.reserveCapacity(count - (saves - newest.count))
        for effect in self {
            guard case .save(let record) = effect else {
                result.append(effect)
                continue
            }
            if let latest = newest.removeValue(forKey: record.unit) { result.append(.save(latest)) }
        }
        return result
    }
}
