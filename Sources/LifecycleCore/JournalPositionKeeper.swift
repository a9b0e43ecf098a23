// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// When the position in PID 1's journal that the next start recovers from is saved (`journal-position.json`).
///
/// A saved position promises that every run PID 1 logged up to it is in the state files, so a SIGKILL at any moment
/// loses nothing; an older position only makes the next recovery read more (a unit's runs are taken only after the
/// run its record holds). So it is saved:
/// - at the end of each recovery: the journal's newest entry before the history was read, once every run the history
///   showed is recorded;
/// - while tracking, at most once per ``interval``: the newest entry as read one interval earlier, when tracking has
///   gone on since without a loss of signals, so that systemd's signal of every run logged before it was handled.
///   Reading the tail costs an open of the journal and one step (docs/PERFORMANCE.md).
struct JournalPositionKeeper: Sendable {
    static let interval: Milliseconds = 60_000
    /// The interval while units wait to be archived, which waits for the position (``GoneUnits``): on a host that
    /// churns transient units, records would otherwise pile up for two minutes.
    static let archivingInterval: Milliseconds = 10_000
    /// How soon the tail is read again when the reading found the core busy (work waiting for an answer): the
    /// candidate cannot be saved then, and a churn keeps the core busy much of the time, so that readings an interval
    /// apart missed several in a row, and the units waiting to be archived piled up meanwhile (docs/PERFORMANCE.md,
    /// "The journal's tail read again when the core was busy").
    static let busyRetry: Milliseconds = 250

    /// The position of the recovery under way, saved when it is done.
    var recovered: JournalPosition?
    /// The journal's newest entry at the last reading of the tail while tracking, saved at the next one.
    var candidate: JournalPosition?
    /// When (lifecycled's clock) ``recovered`` (asked for with the recovery's read) and ``candidate`` were read.
    var recoveredReadAt: Uptime?
    var candidateReadAt: Uptime?
    /// The position saved last, and when it was read: the next start reads PID 1's journal after it, so it holds
    /// everything PID 1 logged before that time.
    var lastSaved: JournalPosition?
    var savedUpTo: Uptime?
    /// When the tail is read next; nil when no reading is armed.
    var nextReading: Uptime?

    /// Notes that `position`, read at `readAt`, is saved (or was already).
    mutating func saving(_ position: JournalPosition, readAt: Uptime?) {
        lastSaved = position
        savedUpTo = readAt
    }

    /// Signals were lost: a candidate read before may be ahead of runs the signals did not show.
    mutating func trackingInterrupted() {
        candidate = nil
    }
}

extension DaemonCore {
    /// The recovery is done: what it read is recorded, so its position can be saved.
    mutating func saveRecoveredJournalPosition() {
        if let position = journalPositions.recovered {
            journalPositions.saving(position, readAt: journalPositions.recoveredReadAt)
            saveJournalPosition(position)
        }
        journalPositions.recovered = nil
        journalPositions.candidate = nil
        // Without PID 1's journal (the user manager) there is no position to keep.
        guard readsManagerJournal else { return }
        armJournalTailReading()
    }

    /// Arms the next reading of the tail: in a minute, or in 10 s while units wait for the position (``GoneUnits``),
    /// or after `delay`.
    mutating func armJournalTailReading(after delay: Milliseconds? = nil) {
        let interval = delay
            ?? (goneUnits.isEmpty ? JournalPositionKeeper.interval : JournalPositionKeeper.archivingInterval)
        journalPositions.nextReading = uptime + interval
        effects.append(.arm(.advanceJournalPosition, at: uptime + interval))
    }

    /// Units began to wait for the position: a reading armed further away than 10 s comes sooner.
    mutating func hastenJournalTailReading() {
        guard readsManagerJournal, phase == .tracking, !goneUnits.isEmpty,
            (journalPositions.nextReading ?? .distantFuture) > uptime + JournalPositionKeeper.archivingInterval
        else { return }
        armJournalTailReading()
    }

    /// The timer fired: while tracking, read where the journal ends now; a moment later when the core is busy, whose
    /// reading would not be taken (``takeJournalTail(_:)``).
    mutating func readJournalTail() {
        journalPositions.nextReading = nil
        guard phase == .tracking else { return }  // the recovery that is under way saves its own
        guard !isBusy else {
            armJournalTailReading(after: JournalPositionKeeper.busyRetry)
            return
        }
        effects.append(.readJournalTail)
    }

    /// The journal's tail a timer asked for: the previous one is saved when nothing of tracking waited since; this
    /// one waits for the next round.
    mutating func takeJournalTail(_ position: JournalPosition?) {
        guard phase == .tracking else { return }
        // A begin waiting for its version, or changes waiting behind it, may be of a run logged before the candidate.
        guard !isBusy else {
            armJournalTailReading(after: JournalPositionKeeper.busyRetry)
            return
        }
        defer { armJournalTailReading() }
        if let candidate = journalPositions.candidate {
            // A journal with nothing new since the last save needs no write, but the saved position now holds
            // everything PID 1 logged before the candidate was read.
            if candidate != journalPositions.lastSaved { saveJournalPosition(candidate) }
            journalPositions.saving(candidate, readAt: journalPositions.candidateReadAt)
        }
        journalPositions.candidate = position
        journalPositions.candidateReadAt = uptime
    }
}
