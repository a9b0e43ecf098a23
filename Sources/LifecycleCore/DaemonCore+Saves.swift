// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// A state directory that does not take a save (read-only, full, missing) degrades lifecycled instead of stopping
/// it: records stay in memory and dispatches go on to the journal, the saves are tried again (``UnsavedState``), and
/// the first that goes through brings every state file up to date and ends the degradation, without a restart
/// (docs/architecture.md, "Degrading instead of stopping").
extension DaemonCore {
    /// The loop's answer to a save of `unit`'s record.
    mutating func saved(unit: String, failure: StateDirectoryProblem?) {
        // A write of a catch-up that fails waits for the next retry; any other that goes through starts one.
        let ofCatchUp = unsaved.writing.remove(unit) != nil && !unsaved.isProbing
        unsaved.isProbing = false
        guard let failure else {
            unsaved.units.remove(unit)
            if !ofCatchUp { catchUp() }
            settle()
            return
        }
        unsaved.units.insert(unit)
        cannotWrite(failure)
    }

    /// The loop's answer to a save of the journal position.
    mutating func journalPositionSaved(_ position: JournalPosition, failure: StateDirectoryProblem?) {
        unsaved.isWritingPosition = false
        guard let failure else {
            if unsaved.position == position { unsaved.position = nil }
            settle()
            return
        }
        // A newer position waiting already is the one to keep.
        if unsaved.position == nil { unsaved.position = position }
        cannotWrite(failure)
    }

    /// Keeps `position`, or, while records are not in their state files, keeps it for after them: a kept position
    /// says that every run before it is recorded (``JournalPositionKeeper``).
    mutating func saveJournalPosition(_ position: JournalPosition) {
        if unsaved.isEmpty {
            effects.append(.saveJournalPosition(position))
        } else {
            unsaved.position = position
        }
    }

    /// The state directory did not take a write (or could not be written at start): degraded from now, said once.
    mutating func cannotWrite(_ problem: StateDirectoryProblem) {
        if health.degradations.begin(.stateDirectory, reason: problem.description, now: now) {
            // As with a full disk: a restart would not make the directory writable, and tracking loses nothing.
            log(.error, "Cannot write the state directory \(problem.directory): failed to \(problem.step): "
                + "\(problem.reason). Tracking goes on with the records in memory and every dispatch in the journal; "
                + "the saves are tried again, and the state files catch up as soon as the directory takes one")
            showDegradations()
        }
        armSaveRetry()
    }

    /// The retry timer fired: one write, of the first unit not saved, else of the journal position, else (the
    /// directory was found unwritable at start, and nothing failed since) of any record as it stands; its answer
    /// brings the rest.
    mutating func retrySaves() {
        unsaved.retrying()
        guard unsaved.writing.isEmpty, !unsaved.isWritingPosition else { return }
        // A record that left memory (archived) has nothing left to write; the probe must be one that has.
        unsaved.units = unsaved.units.filter { tracker.records[$0] != nil }
        if let unit = unsaved.units.min() ?? unwritableProbe {
            unsaved.isProbing = true
            write(unit)
        } else if let position = unsaved.position {
            unsaved.isWritingPosition = true
            effects.append(.saveJournalPosition(position))
        }
    }

    /// A unit whose record, rewritten as its state file has it, tells whether a directory found unwritable at start
    /// takes writes again (only when no position waits either).
    private var unwritableProbe: String? {
        guard unsaved.position == nil, health.degradations[.stateDirectory] != nil else { return nil }
        return tracker.records.keys.min()
    }

    /// Whether `unit`'s latest record is not in its state file: it is not archived until it is.
    func isUnsaved(_ unit: String) -> Bool {
        unsaved.units.contains(unit) || unsaved.writing.contains(unit)
    }

    private mutating func armSaveRetry() {
        guard unsaved.retryAt == nil else { return }
        let at = uptime + unsaved.delay
        unsaved.retryAt = at
        effects.append(.arm(.retrySaves, at: at))
    }

    /// Writes `unit`'s record as it stands now.
    private mutating func write(_ unit: String) {
        unsaved.units.remove(unit)
        guard let record = tracker.records[unit] else { return }
        unsaved.writing.insert(unit)
        effects.append(.save(record))
    }

    /// A write went through: every unit not saved is written now, each as its record stands.
    private mutating func catchUp() {
        for unit in unsaved.units.sorted() { write(unit) }
    }

    /// After a write went through: once every record is written, the position waiting for them is; once that is
    /// too, the directory is no longer degraded.
    private mutating func settle() {
        guard unsaved.units.isEmpty, unsaved.writing.isEmpty, !unsaved.isWritingPosition else { return }
        if let position = unsaved.position {
            unsaved.isWritingPosition = true
            effects.append(.saveJournalPosition(position))
            return
        }
        guard let degradation = health.degradations.end(.stateDirectory) else { return }
        unsaved.caughtUp()
        log(.notice, "The state directory can be written again: the state files are up to date (degraded since "
            + "\(LifecycleDateFormat.iso8601.string(degradation.since)))")
        showDegradations()
    }

    /// What is degraded changed: the status shows it at once (once READY=1 was sent; until then it waits for it).
    private mutating func showDegradations() {
        if readiness != .starting { effects.append(.notify([.status(shown(statusText))])) }
    }
}
