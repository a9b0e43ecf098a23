// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

/// What the core needs read from the journal to record what it missed (docs/journal.md, "Where recovery resumes").
public struct RecoveryQuery: Sendable, Equatable {
    /// Which of PID 1's run entries to read.
    public enum HistoryWindow: Sendable, Equatable {
        /// None (the user manager, or no journal to trust).
        case none
        /// After the journal position saved in the state directory; without one (an upgrade from a version that did
        /// not save it), since the last entry of the newest earlier lifecycled that tracked units; when there is
        /// neither (the first start on this machine), the whole journal if `orWholeJournal`, else nothing.
        case sinceLastTracking(orWholeJournal: Bool)
        /// Since this time (µs since the epoch), when signals were lost.
        case since(microseconds: UInt64)
        /// The whole journal, for the units of a selection only: those a reload began to watch.
        case wholeJournal(of: UnitSelection)
        /// The next slice of a history read in slices (``RecoveryAnswer/resume``).
        case resuming(HistoryResume)
    }

    public var history: HistoryWindow
    /// Units whose own dispatches to read beyond the sequence their record holds.
    public var catchUp: [DispatchCatchUp]
    /// Stored runs to look up in PID 1's entries when the history does not say how they ended.
    public var endings: [UnitRunID]
    /// The patterns whose units the history shows are caught up with too: every watched pattern at start, those a
    /// reload added, none for a gap (lifecycled kept running: no record is behind its own dispatches).
    public var patterns: [UnitPattern]
    /// Units caught up with already (by an earlier slice's query, or with a record): not again.
    public var caughtUp: Set<String>
    /// Every watched pattern: the units the journal names (``JournaledUnits``) are read for these. A unit the journal
    /// names never goes live (``HistoryReading/Read/journaledUnits(watched:)``), whatever the recovery catches up
    /// with: a gap's recovery catches up with no pattern, yet the units whose runs its history holds must wait for it.
    public var watched: [UnitPattern]
    /// The probe to see in the journal before anything is read (``JournalBarrier``): then the history's end holds
    /// everything PID 1 logged before the listing this recovery follows. nil: read at once.
    public var barrier: JournalBarrier?

    public init(
        history: HistoryWindow, catchUp: [DispatchCatchUp], endings: [UnitRunID],
        patterns: [UnitPattern] = [], caughtUp: Set<String> = [], watched: [UnitPattern] = [],
        barrier: JournalBarrier? = nil
    ) {
        self.history = history
        self.catchUp = catchUp
        self.endings = endings
        self.patterns = patterns
        self.caughtUp = caughtUp
        self.watched = watched
        self.barrier = barrier
    }
}

/// Where a history read in slices goes on: PID 1's journal is read a bounded number of entries at a time, and each
/// slice's runs are recorded before the next is read, so that a history of any length is held a slice at a time.
public struct HistoryResume: Sendable, Equatable {
    /// The cursor of the last entry read.
    public var cursor: String
    public var sliced: SlicedHistory

    public init(cursor: String, sliced: SlicedHistory) {
        self.cursor = cursor
        self.sliced = sliced
    }
}

/// What a history read in slices carries from one slice to the next.
public struct SlicedHistory: Sendable, Equatable {
    /// Each unit's last run that the slices so far left undecided (its entries do not say it is over yet).
    public var undecided: RunHistory.Builder
    /// The journal position whose wall clock orders the runs (``RunEnding/Entry/positionTime``), nil when none.
    public var clock: JournalPosition?
    /// The journal's newest entry when the recovery began (``RecoveryAnswer/position``): the history ends there.
    /// What PID 1 logged after it happened while lifecycled listened, and its signals, waiting in the phase, record
    /// it; a later slice that took it too would record those runs twice. nil when unknown (read to the end).
    public var end: JournalPosition?
    /// As in ``RecoveryAnswer``.
    public var isWholeJournal: Bool
    public var watchedUntil: Milliseconds?
    /// The units whose runs the history holds; nil: every unit's.
    public var units: UnitSelection?

    public init(
        undecided: RunHistory.Builder = RunHistory.Builder(), clock: JournalPosition? = nil, end: JournalPosition? = nil,
        isWholeJournal: Bool = false, watchedUntil: Milliseconds? = nil, units: UnitSelection? = nil
    ) {
        self.undecided = undecided
        self.clock = clock
        self.end = end
        self.isWholeJournal = isWholeJournal
        self.watchedUntil = watchedUntil
        self.units = units
    }

    /// Whether an entry of boot `boot` that journald took at `monotonicMicroseconds` comes after ``end``: of its boot
    /// and later by journald's monotonic clock (which no clock step moves). An entry of an earlier boot never does.
    public func isPastEnd(boot: String?, monotonicMicroseconds: UInt64) -> Bool {
        guard let end, let boot else { return false }
        return boot == end.bootID && monotonicMicroseconds > end.monotonicMicroseconds
    }
}

/// What the journal said to a ``RecoveryQuery``.
public struct RecoveryAnswer: Sendable, Equatable {
    /// lifecycled's own dispatches beyond each unit's record, oldest first.
    public var journaled: [String: [JournaledDispatch]]
    /// PID 1's runs in the window; nil when none was asked for or the journal could not be read.
    public var history: RunHistory?
    /// How stored runs ended, by unit.
    public var endings: [String: RunEnding]
    /// True when ``history`` is the whole journal, read at the first start on this machine.
    public var isWholeJournal = false
    /// The journal's newest entry before the history was read: once what the answer shows is recorded, PID 1's
    /// journal is taken into account up to here (nil when unknown).
    public var position: JournalPosition?
    /// Until when an earlier lifecycled watched the units (ms since the epoch): the journal position it saved, or its
    /// last entry. A stored run whose end no source shows was going at least until then. nil when unknown.
    public var watchedUntil: Milliseconds?
    /// Where the history goes on, when ``history`` is a slice and more is to be read; nil for the last slice.
    public var resume: HistoryResume?
    /// True for the answer to a ``RecoveryQuery/HistoryWindow/resuming(_:)`` query: a later slice of the same
    /// recovery.
    public var isContinuation = false
    /// True when PID 1's journal could not be read for the history asked (the answer holds none of it): the core
    /// asks again, a few times, before it goes on without (``DaemonCore/recoveryReadLimit``).
    public var isHistoryUnreadable = false
    /// False when the query's barrier was not in the journal yet: nothing was read, and the core asks again.
    public var barrierSeen = true
    /// What the journal named before the history was read (after its tail); nil when not read (a later slice, no
    /// history asked) or unreadable. The driver gives it ahead of the answer too
    /// (``DaemonInput/journaledUnitsRead(_:)``).
    public var journaledUnits: JournaledUnits?

    /// The answer to a query whose barrier the journal does not show yet.
    public static var barrierNotSeen: RecoveryAnswer {
        var answer = RecoveryAnswer()
        answer.barrierSeen = false
        return answer
    }

    public init(journaled: [String: [JournaledDispatch]] = [:], history: RunHistory? = nil, endings: [String: RunEnding] = [:]) {
        self.journaled = journaled
        self.history = history
        self.endings = endings
    }
}

/// How far a recovery has got, for `systemctl status` while a long history is recorded.
struct RecoveryProgress: Sendable {
    /// Runs the recovery begins, and how many of them are recorded.
    var total: Int
    var done = 0
    /// When progress was last reported.
    var reportedAt: Uptime

    /// How often progress is reported, and how much more time each report asks systemd for (`EXTEND_TIMEOUT_USEC`).
    static let interval: Milliseconds = 1_000
    static let timeoutExtension: Duration = .seconds(30)
}

/// Units chosen by name: those matching one of ``patterns`` and none of ``excluded``. A reload that adds watch
/// patterns selects the units they add: matching a new pattern, and no pattern watched before.
public struct UnitSelection: Sendable, Equatable {
    public var patterns: [UnitPattern]
    public var excluded: [UnitPattern]

    public init(patterns: [UnitPattern], excluded: [UnitPattern] = []) {
        self.patterns = patterns
        self.excluded = excluded
    }

    public func contains(_ unit: String) -> Bool {
        patterns.contains { $0.matches(unit) } && !excluded.contains { $0.matches(unit) }
    }
}
