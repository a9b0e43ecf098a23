// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// The journal's answers about dispatches (see ``Outbox``).
extension DaemonCore {
    /// At start: the dispatches an earlier process saved as pending are looked for before anything else is sent.
    mutating func adoptLeftovers() {
        let leftovers = tracker.records.values.sorted { $0.unit < $1.unit }.flatMap(PendingDispatch.pending(in:))
        guard !leftovers.isEmpty else { return }
        outbox.adoptLeftovers(leftovers, uptime: uptime)
        lookForUnconfirmed()
    }

    mutating func sent(count: Int, refused: Bool) {
        let (taken, retryAt) = outbox.sent(count: count, refused: refused, now: now, uptime: uptime)
        if !outbox.confirms {
            for dispatch in taken { tracker.markDelivered(unit: dispatch.unit, sequence: dispatch.sequence) }
        }
        dispatchCount += taken.count
        countDelivered(taken)
        giveUpBeyondBound()
        if let retryAt {
            health.journalRefusals += 1
            log(.error, "The journal refused a dispatch; it is kept and sent again")
            effects.append(.arm(.retryDelivery, at: retryAt))
            giveUpRefusedBeyondBound()
        } else if let count = outbox.takeRecoveredCount() {
            log(.notice, "The journal took the \(count) dispatches it had refused")
        }
        if isRecovering, recoveryWaitsForJournal {
            // Recovery waits for these: look at once rather than through the timer.
            lookForUnconfirmed()
        } else if outbox.needsEarlyLook(now: uptime) {
            // A unit's waiting entries pile up (a journal that stores nothing): ask about them now.
            lookForUnconfirmed()
        } else {
            armConfirmation()
        }
    }

    /// Whether a recovery waits for the journal to confirm a round of its dispatches before it makes more.
    var recoveryWaitsForJournal: Bool {
        outbox.isFullForRecovery(journalShowsNothing: health.degradations[.journal] != nil, bound: recoveryRound)
    }

    /// The confirmation timer fired, or recovery waits: look for every entry not yet confirmed. While a look waits for
    /// its answer, the next is made when the answer comes (docs/architecture.md, "Rules the core keeps").
    mutating func lookForUnconfirmed() {
        guard !look.isWaiting else {
            look.isAskedAgain = true
            return
        }
        let (dispatches, probe) = outbox.takeForConfirmation(now: uptime)
        // A recovery waits for every round of 16 dispatches to be confirmed: a sync per round (a device flush) made a
        // day-one history five times slower to READY (docs/PERFORMANCE.md). Its dispatches are made durable by the
        // first look's sync after it (a sync covers every file journald wrote) or by journald's own.
        guard !dispatches.isEmpty else { return }
        look.isWaiting = true
        effects.append(.lookUp(dispatches, probe: probe, sync: !isRecovering))
    }

    mutating func lookedUp(_ dispatches: [PendingDispatch], check: JournalCheck?) {
        look.isWaiting = false
        defer {
            if look.isAskedAgain {
                look.isAskedAgain = false
                lookForUnconfirmed()
            }
            armConfirmation()
        }
        guard let check else {
            log(.warning, "Failed to check that the journal holds \(dispatches.count) dispatches; looking again later")
            outbox.lookFailed(recovering: isRecovering)
            return
        }
        let result = outbox.confirm(dispatches, check: check, recovering: isRecovering)
        // Delivered means delivered: the records are saved without what the journal holds on disk (found, then
        // synced), so that nothing is sent again at the next start, whatever journal retention removes meanwhile,
        // and a power cut cannot leave a state file ahead of the journal.
        removeFromRecords(result.delivered)
        if result.unsynced > 0 {
            // The driver said why the sync failed; these wait for the next look's sync (docs/journal.md, "A power cut").
            log(.debug, "\(result.unsynced) dispatches are in the journal but not known durable: kept, looked for again")
        }
        noteJournalShowing(found: result.delivered.count > result.beyondRetention.count || result.unsynced > 0)
        giveUpBeyondBound()
        for dispatch in result.beyondRetention {
            log(.notice, "Dispatch \(dispatch.sequence) of \(dispatch.unit) is older than the journal's oldest entry: taken as delivered, not sent again")
        }
        if let probe = result.probe { effects.append(.writeProbe(probe, missing: result.waiting)) }
        if !result.dropped.isEmpty {
            health.journalDrops += result.dropped.count
            log(.warning, "The journal dropped \(result.dropped.count) dispatches it had accepted (journald's rate limit?): an entry sent after them is there but not these; sending them again")
        }
        reportRecoveryProgress()
    }

    /// Takes `dispatches` (delivered, or given up) out of their units' records, and saves each record changed.
    private mutating func removeFromRecords(_ dispatches: [PendingDispatch]) {
        var units: Set<String> = []
        for dispatch in dispatches where tracker.markDelivered(unit: dispatch.unit, sequence: dispatch.sequence) {
            units.insert(dispatch.unit)
        }
        for unit in units.sorted() {
            if let record = tracker.records[unit] { effects.append(.save(record)) }
        }
    }

    /// Gives up the oldest sent dispatches of a unit beyond the outbox's bound once the journal has shown none of
    /// lifecycled's entries for a minute, so that no state file grows while it does not: the record keeps its
    /// counters, not those entries.
    private mutating func giveUpBeyondBound() {
        let givenUp = outbox.giveUpBeyondBound(journalShowsNothing: health.degradations[.journal] != nil)
        guard !givenUp.isEmpty else { return }
        removeFromRecords(givenUp)
        // Said at the first; each episode of a journal that shows nothing is said by its degradation anyway.
        if health.journalGivenUp == 0 {
            log(.warning, "Gave up looking for \(givenUp.count) dispatches the journal took but has not shown: more "
                + "than \(Outbox.unconfirmedBoundPerUnit) of one unit waited (docs/journal.md, \"A journal that stores nothing\")")
        }
        health.journalGivenUp += givenUp.count
    }

    /// Once the journal has refused lifecycled's entries for a minute: said (at warning, in the status, as the journal's
    /// degradation until a look finds its entries again), a recovery no longer waits for it, and the oldest dispatches
    /// of a unit beyond the outbox's bound are given up, so that no state file grows while it refuses: the record keeps
    /// its counters, not those entries.
    private mutating func giveUpRefusedBeyondBound() {
        guard let since = outbox.refusingSince, uptime - since >= Outbox.unshownPatience else { return }
        if health.degradations[.journal] == nil {
            health.degradations.begin(.journal, reason: "the journal refuses lifecycled's entries", now: now - (uptime - since))
            log(.warning, "The journal has refused lifecycled's entries for \((uptime - since) / 1_000) s: they are "
                + "still sent, and each unit's state file keeps at most \(Outbox.unconfirmedBoundPerUnit) of them "
                + "(docs/journal.md, \"A journal that stores nothing\")")
            showStatusAgain()
        }
        let givenUp = outbox.giveUpRefusedBeyondBound(now: uptime)
        guard !givenUp.isEmpty else { return }
        removeFromRecords(givenUp)
        health.journalGivenUp += givenUp.count
    }

    /// After a look: the journal shows lifecycled's entries again, or has shown none of them for
    /// ``Outbox/unshownPatience`` although it could be read. Said at warning, which a journald storing nothing below
    /// notice still keeps, and in the status.
    private mutating func noteJournalShowing(found: Bool) {
        if found {
            guard health.degradations.end(.journal) != nil else { return }
            log(.notice, "The journal shows lifecycled's entries again")
            showStatusAgain()
            return
        }
        guard health.degradations[.journal] == nil, let oldest = outbox.oldestUnshownSentAt,
            uptime - oldest >= Outbox.unshownPatience
        else { return }
        let waited = uptime - oldest
        health.degradations.begin(.journal, reason: "the journal does not show lifecycled's entries", now: now - waited)
        log(.warning, "The journal has not shown lifecycled's entries sent \(waited / 1_000) s ago: journald "
            + "is stalled, or stores nothing below notice (MaxLevelStore=, LogLevelMax=, Storage=none); dispatches "
            + "are still sent, and each unit's state file keeps at most \(Outbox.unconfirmedBoundPerUnit) of them")
        showStatusAgain()
    }

    mutating func armConfirmation() {
        // The answer of the look that waits arms what comes next.
        guard !look.isWaiting else { return }
        if let at = outbox.confirmationToArm(now: uptime, recovering: isRecovering) {
            effects.append(.arm(.confirmDelivery, at: at))
        }
    }
}

/// A look at the journal that waits for its answer (``DaemonCore/lookForUnconfirmed()``).
struct LookInFlight: Sendable, Equatable {
    var isWaiting = false
    /// A look was asked for while one waited: made as soon as the answer comes.
    var isAskedAgain = false
}
