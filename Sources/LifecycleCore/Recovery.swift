// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

/// What the core needs read from the journal to record what it missed (DESIGN §9).
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
    }

    public var history: HistoryWindow
    /// Units whose own dispatches to read, with the sequence their record holds (nil: no record; only the newest).
    public var catchUp: [(unit: String, recordedSequence: UInt64?)]
    /// Stored runs to look up in PID 1's entries when the history does not say how they ended.
    public var endings: [UnitRunID]
    /// The watched patterns: units the history shows are caught up with too, when watched.
    public var patterns: [UnitPattern]

    public init(
        history: HistoryWindow, catchUp: [(unit: String, recordedSequence: UInt64?)], endings: [UnitRunID],
        patterns: [UnitPattern] = []
    ) {
        self.history = history
        self.catchUp = catchUp
        self.endings = endings
        self.patterns = patterns
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.history == rhs.history && lhs.endings == rhs.endings && lhs.patterns == rhs.patterns
            && lhs.catchUp.elementsEqual(rhs.catchUp) { $0.unit == $1.unit && $0.recordedSequence == $1.recordedSequence }
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
    /// When progress was last reported (ms since the epoch).
    var reportedAt: Milliseconds

    /// How often progress is reported, and how much more time each report asks systemd for (`EXTEND_TIMEOUT_USEC`).
    static let interval: Milliseconds = 1_000
    static let timeoutExtension: Duration = .seconds(30)
}
