// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// Units that systemd unloaded leave memory, the metrics and the state files for the archive once they have been gone
/// for `archive_after_minutes` (``GoneUnits``), and come back from it when systemd shows them again, so that what
/// lifecycled holds grows with the units that exist, not with every name it ever saw.
extension DaemonCore {
    /// systemd unloaded `unit`.
    mutating func unitRemoved(_ unit: String) {
        costAccounting.unloaded(unit)
        notArchived.forget(unit)
        guard configuration.isWatched(unit), tracker.records[unit] != nil || tracker.hasSeen(unit) else { return }
        goneUnits.went(unit, at: uptime)
        planArchiving()
    }

    /// A listing shows every loaded watched unit: the units in it are there, the recorded ones it lacks are gone
    /// (unloaded while the bus was away, or while no lifecycled ran, or no longer watched).
    mutating func noteLoaded(_ snapshots: [UnitSnapshot]) {
        let listed = Set(snapshots.map(\.name))
        for unit in listed where goneUnits.returned(unit) {
            haveRecordsChanged = true
        }
        for unit in tracker.records.keys where !listed.contains(unit) {
            goneUnits.went(unit, at: uptime)
        }
        planArchiving()
    }

    /// Arms the timer for the next unit due, not before `notBefore` (by default a moment from now, so that units that
    /// go together are archived together).
    mutating func planArchiving(notBefore: Uptime? = nil) {
        let minutes = configuration.archiveAfterMinutes
        guard minutes >= 0, let due = goneUnits.nextDue(after: minutes) else { return }
        // Units that go wait for the journal position too: its next reading comes within 10 s.
        hastenJournalTailReading()
        let time = max(due, notBefore ?? uptime + GoneUnits.batchDelay)
        // A timer that fires before the time finds nothing due and is armed again.
        if let armed = goneUnits.armedAt, armed <= time { return }
        goneUnits.armedAt = time
        effects.append(.arm(.archiveGoneUnits, at: time))
    }

    /// The timer fired: the records of the units gone long enough go to the archive. A unit with a dispatch the
    /// journal has not shown yet waits (the archive holds records with nothing pending), and so does the unit of a
    /// begin that waits for an answer; everything waits while lifecycled recovers.
    ///
    /// Work waiting behind other work does not hold the archive back: under a steady churn there always is some, and
    /// records would pile up. A change of an archived unit that waits in line finds the unit unknown when its turn
    /// comes, and brings its record back from the archive first.
    mutating func archiveGoneUnits() {
        goneUnits.armedAt = nil
        let minutes = configuration.archiveAfterMinutes
        guard minutes >= 0 else { return }
        guard phase == .tracking else {
            planArchiving()
            return
        }
        var archived: [UnitRecord] = []
        var waiting: [String] = []
        // The next start reads PID 1's journal from the saved position on: a unit gone after that position was read
        // would come back from the archive at once, for runs its record already holds.
        let positionTime = readsManagerJournal ? journalPositions.savedUpTo ?? .zero : .distantFuture
        for unit in goneUnits.due(at: uptime, after: minutes) {
            let isPending = tracker.records[unit].map { !$0.pendingDispatches.isEmpty } ?? false
            // A record the state directory did not take waits too: the archive is written from memory, and a failed
            // archiving leaves the state file, which would be behind.
            if isPending || isUnsaved(unit) || awaited?.unit == unit || !goneUnits.went(unit, before: positionTime) {
                waiting.append(unit)
                continue
            }
            goneUnits.returned(unit)
            if let record = tracker.forget(unit) { archived.append(record) }
            notArchived.forget(unit)
        }
        // Due, the waiting ones leave the metrics now, as the archived ones do.
        if goneUnits.withhold(waiting) { haveRecordsChanged = true }
        let isWaiting = !waiting.isEmpty
        if !archived.isEmpty {
            let days = configuration.archiveRetentionDays
            effects.append(.archive(archived, expiredBefore: days >= 0 ? now - Milliseconds(days) * 86_400_000 : nil))
            log(.info, "Archived the records of \(archived.count) units unloaded \(minutes) or more minutes ago")
            // glibc keeps freed memory for reuse: after many records, give it back.
            if let release = goneUnits.memoryRelease(archiving: archived.count, at: uptime) { effects.append(release) }
        }
        planArchiving(notBefore: isWaiting ? uptime + GoneUnits.retryInterval : nil)
    }

    /// Before `input` touches units that are neither recorded nor seen (their first sighting since they were
    /// archived, or ever): asks for their archived records, and holds the input until the answer. Every input that can
    /// start a record comes here (a listing, a change, PID 1's history, a manual or custom event), so that no record
    /// starts fresh while the archive holds the unit's counters and numbers (docs/architecture.md, "Rules the core
    /// keeps").
    ///
    /// - Returns: whether the input waits for the archive.
    mutating func awaitsArchive(before input: DaemonInput) -> Bool {
        let units: [String]
        switch input {
        case .listing(let snapshots): units = snapshots.filter { !$0.invocationID.isEmpty }.map(\.name)
        case .changed(let snapshot): units = snapshot.invocationID.isEmpty ? [] : [snapshot.name]
        case .recovered(let answer): units = answer.history.map { Array($0.units) } ?? []
        case .jobRemoved(let unit, _, _, _): units = phase == .tracking && timerBook.isPending(unit) ? [unit] : []
        case .request(let request, _):
            // Stopping, a request is refused as it is; a name that cannot be a unit's is refused by the request
            // itself. Neither needs a look-up.
            let isTaken = phase != .stopping && UnitTracker.invalidUnitNameReason(request.unit) == nil
            units = isTaken ? [request.unit] : []
        default: return false
        }
        // Most units are known: asked first, that ends the look-up for them with one search of the records.
        let unknown = units.filter { unit in
            tracker.isUnknown(unit) && !notArchived.contains(unit) && configuration.isWatched(unit)
        }
        guard !unknown.isEmpty else { return false }
        awaited = .archive(of: unknown, then: input, failures: 0)
        effects.append(.readArchive(unknown.sorted()))
        return true
    }

    /// The archive answered: the records it holds come back (and are saved again), then the held input is taken.
    ///
    /// An archive that cannot be read starts no fresh record: a D-Bus call is refused, saying why; anything else is
    /// held, and the archive read again 1 s, 2 s, 4 s … at most ``archiveRetryLimit`` apart, until it answers. What
    /// comes meanwhile waits behind it, in order, as behind any answer awaited.
    mutating func takeArchive(_ records: [UnitRecord]?) {
        guard case .archive(let units, let input, let failures)? = awaited else {
            log(.debug, "Ignored an answer of the archive that was not asked for")
            return
        }
        guard let records else {
            if case .request(_, let token) = input {
                awaited = nil
                log(.warning, "The archive could not be read: refused an event for \(units[0]), which may be archived")
                effects.append(.reply(token, .failure(.archiveUnreadable(units[0]))))
                return
            }
            let delay = min(Self.archiveRetryLimit, 1_000 << min(failures, 16))
            if failures == 0 {
                log(.warning, "The archive could not be read: \(units.count) units that may be archived wait for it, "
                    + "and every change behind them; reading it again in \(delay / 1_000) s, then less often")
            }
            awaited = .archive(of: units, then: input, failures: failures + 1)
            effects.append(.arm(.retryArchive, at: uptime + delay))
            return
        }
        awaited = nil
        let found = Set(records.map(\.unit))
        notArchived.insert(units.filter { !found.contains($0) })
        if failures > 0 { log(.notice, "The archive could be read again after \(failures) failed reads") }
        for var record in records {
            // A tombstone (its counters expired): a fresh record that numbers on after the unit's last dispatch.
            let isTombstone = record.retired != nil
            record.retired = nil
            guard tracker.restore(record) else { continue }
            effects.append(.save(record))
            log(.notice, isTombstone
                ? "\(record.unit) is back after its record expired from the archive: counted afresh, numbered after dispatch \(record.sequence)"
                : "\(record.unit) is back: its record comes from the archive (dispatch \(record.sequence))")
        }
        process(input)
    }

    /// The longest wait between two reads of an archive that could not be read, in ms.
    static let archiveRetryLimit: Milliseconds = 30_000

    /// The retry timer fired: the units still waiting are looked up again.
    mutating func readArchiveAgain() {
        guard case .archive(let units, _, _)? = awaited else { return }
        effects.append(.readArchive(units.sorted()))
    }
}
