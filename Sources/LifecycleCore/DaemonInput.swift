// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// Everything that can happen to lifecycled, as the one loop hands it to ``DaemonCore/handle(_:now:)``: what the unit
/// source reports, the answers to the core's own effects, requests from the D-Bus interface, signals and timers.
public enum DaemonInput: Sendable, Equatable {
    /// The loop runs: deliver what an earlier process left undelivered, then start watching units.
    case start
    /// The watched units as systemd lists them (after connecting, after every resync).
    case listing([UnitSnapshot])
    /// One unit's properties changed.
    case changed(UnitSnapshot)
    /// systemd removed a job of a watched unit (`JobRemoved`) with `result`; `unitResult` is the unit's `Result` then.
    case jobRemoved(unit: String, jobID: UInt32, result: String, unitResult: String?)
    /// A followed timer's properties changed (``TimerSnapshot``): an elapse, or a schedule moved.
    case timerChanged(TimerSnapshot)
    /// The answer to ``DaemonEffect/readTimers(_:)``: the timers of the watched services, nil when the bus could not
    /// be asked.
    case timersRead([TimerSnapshot]?)
    /// The answer to ``DaemonEffect/readMissedStarts(_:)``: the failed start jobs, nil when the journal could not be
    /// read.
    case missedStartsRead(MissedStartQuery, [FailedStartJob]?)
    /// systemd unloaded a unit (`UnitRemoved`): unless it comes back, its record is archived after a while.
    case unitRemoved(String)
    /// systemd began (true) or finished (false) a daemon-reload or daemon-reexec.
    case reloading(Bool)
    /// systemd left the bus: its signals are lost until the next listing.
    case signalsLost
    /// The bus connection broke: signals are lost until the next listing, and the D-Bus interface must be published
    /// again.
    case connectionLost(String)
    /// The answer to ``DaemonEffect/readRecovery(_:)``.
    case recovered(RecoveryAnswer)
    /// What the journal named when a recovery's read of it began (``JournaledUnits``): given by the read ahead of its
    /// answer, which takes long for a long history (the answer holds it too).
    case journaledUnitsRead(JournaledUnits)
    /// The answer to ``DaemonEffect/readVersion(unit:invocationID:source:)``: nil when it could not be read.
    case versionRead(unit: String, version: String?)
    /// The answer to ``DaemonEffect/readRunCost(_:)``: what the run cost, as far as systemd could say; nil when
    /// nothing could be read (the unit gone, the bus down or slow).
    case runCostRead(UnitRunID, RunRecord?)
    /// The answer to ``DaemonEffect/readRunEnding(unit:invocationID:barrier:)``: nil when the journal does not say (yet),
    /// and whether the journal showed the barrier before it was read (then it says all it will).
    case runEndingRead(unit: String, invocationID: String, ending: RunEnding?, barrierSeen: Bool)
    /// The answer to ``DaemonEffect/readRunJournal(_:)``.
    case runJournalRead(RunJournalQuery, RunJournalFindings)
    /// The answer to ``DaemonEffect/save(_:)``: nil when the record is in its state file, or when the file refused it
    /// for a reason of its own (a newer lifecycled's file, logged by the loop); else why the state directory could not
    /// be written, which a later save may find mended.
    case saved(unit: String, failure: StateDirectoryProblem?)
    /// The answer to ``DaemonEffect/saveJournalPosition(_:)``: nil when it is kept, else why the state directory could
    /// not be written.
    case journalPositionSaved(JournalPosition, failure: StateDirectoryProblem?)
    /// The answer to ``DaemonEffect/send(_:)``: the first `sent` entries reached the journal; when `refused`, the
    /// next one was refused and the rest were not tried.
    case sent(count: Int, refused: Bool)
    /// The answer to ``DaemonEffect/lookUp(_:)``: what the journal says of the entries asked about; nil when it could
    /// not be read.
    case lookedUp([PendingDispatch], JournalCheck?)
    /// The answer to ``DaemonEffect/readJournalTail``: nil when the journal could not be read or holds nothing.
    case journalTailRead(JournalPosition?)
    /// The answer to ``DaemonEffect/readArchive(_:)``: the archived records found (units never archived have none),
    /// nil when the archive could not be read.
    case archiveRead([UnitRecord]?)
    /// The answer to ``DaemonEffect/publishManager``: whether lifecycled's D-Bus interface is on the bus.
    case managerPublished(Bool)
    /// A manual or custom event from the D-Bus interface; answered with ``DaemonEffect/reply(_:_:)``.
    case request(EventRequest, reply: ReplyToken)
    /// SIGHUP: the configuration read again, or why it could not be.
    case reloaded(Result<ReloadedConfiguration, ConfigurationReloadError>)
    /// A timer armed with ``DaemonEffect/arm(_:at:)`` fired.
    case timer(DaemonTimer)
    /// SIGTERM or SIGINT.
    case stop
}

/// Identifies a D-Bus call waiting for its reply.
public struct ReplyToken: Sendable, Hashable {
    public var id: UInt64
    public init(_ id: UInt64) { self.id = id }
}

/// A configuration read again, with the time zone it names (deciding the zone reads the machine, so the loop does).
public struct ReloadedConfiguration: Sendable, Equatable {
    public var configuration: LifecycleConfiguration
    public var timeZone: TimeZoneRules

    public init(configuration: LifecycleConfiguration, timeZone: TimeZoneRules) {
        self.configuration = configuration
        self.timeZone = timeZone
    }
}

/// Why a reloaded configuration was not taken.
public struct ConfigurationReloadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What the journal says of dispatches the core asked after (``DaemonEffect/lookUp(_:)``).
public struct JournalCheck: Sendable, Equatable {
    /// For each dispatch asked about, whether the journal holds it. Asked after the evidence below and newest first,
    /// so that an entry found proves that every entry sent before it had been taken when it was looked for.
    public var found: [Bool]
    /// The time of the oldest entry the journal still holds (ms since the epoch), nil when unknown: what happened
    /// before it may have been removed by retention.
    public var heldSince: Milliseconds?
    /// Whether the journal holds PID 1's entry about starting this lifecycled. PID 1 sent it after the earlier
    /// lifecycled had exited, and journald takes its socket's entries in order, so everything the earlier process
    /// sent was taken (or dropped) by then.
    public var earlierProcessesDone: Bool
    /// Whether the journal holds the probe asked about (``DaemonEffect/writeProbe(_:missing:)``): every entry sent
    /// before it was taken or dropped.
    public var probeFound: Bool
    /// Whether the entries found are durable: the journal was synced after the look found them, or cannot be asked
    /// to sync by design (then as durable as journald's `SyncIntervalSec=` makes them). When false, the entries found
    /// are not delivered yet: they stay in their state files and are looked for again (docs/journal.md, "A power
    /// cut"). They still count as evidence that journald took everything sent before them.
    public var synced: Bool

    public init(
        found: [Bool], heldSince: Milliseconds? = nil, earlierProcessesDone: Bool = false, probeFound: Bool = false,
        synced: Bool = true
    ) {
        self.found = found
        self.heldSince = heldSince
        self.earlierProcessesDone = earlierProcessesDone
        self.probeFound = probeFound
        self.synced = synced
    }
}

/// The core's timers; arming one again moves it.
public enum DaemonTimer: Sendable, Hashable {
    /// Send again the entries the journal refused.
    case retryDelivery
    /// Look for sent entries (and those an earlier process left) in the journal.
    case confirmDelivery
    /// Tell the service manager lifecycled is alive.
    case watchdog
    /// Write the metrics file: a change waited for the once-a-second limit, or a minute passed without one.
    case writeMetrics
    /// Move the saved journal position forward (``JournalPositionKeeper``).
    case advanceJournalPosition
    /// Archive the records of units that have been gone long enough (``GoneUnits``).
    case archiveGoneUnits
    /// Read again how a run ended: the journal did not show it, nor the barrier written after it (``JournalBarrier``).
    case retryRunEnding
    /// Read PID 1's journal for missed runs again: it could not be read (``RecoveryAnswer/isHistoryUnreadable``).
    case retryRecovery
    /// Read the journal about a failed run again: it did not show the barrier, or the core dump, yet (``RunJournalQuery``).
    case retryRunJournal
    /// Read the archive again: it could not be read, and the input that shows units it may hold waits for it.
    case retryArchive
    /// Write the launches that waited too long for their run's start-up without it (``StartingRuns``).
    case startupPatience
    /// Try again the saves the state directory did not take (``UnsavedState``).
    case retrySaves
    /// Stop now: SIGTERM waited ``DaemonCore/stopPatience`` behind work whose answer did not come.
    case stopDeadline
}
