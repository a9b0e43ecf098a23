// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleStorage
import LifecycleSystemd
import Logging

/// One dispatch on its way to the journal.
struct PendingDispatch: Sendable {
    var unit: String
    var sequence: UInt64
    var fields: [(name: String, value: String)]

    /// The matches that find this dispatch among lifecycled's own root-owned entries.
    var journalQuery: [String] {
        ["SYSLOG_IDENTIFIER=\(DispatchJournalEntry.syslogIdentifier)", "_UID=0", "LIFECYCLE_UNIT=\(unit)",
         "LIFECYCLE_SEQUENCE=\(sequence)"]
    }
}

/// A dispatch the journal accepted, waiting to be seen in it.
struct SentDispatch: Sendable {
    var dispatch: PendingDispatch
    var sentAt: ContinuousClock.Instant
}

/// Getting every dispatch into the journal exactly once (DESIGN §9).
///
/// A unit's record, with the journal fields of each of its dispatches the journal has not taken yet, is saved before
/// the newest of them is sent. So after lifecycled dies, the dispatches that may be missing from the journal are all
/// in the records: the next start looks each up by unit and sequence number among lifecycled's own root-owned entries
/// and sends it again only if it is not there. While lifecycled runs, an entry the journal refuses waits in a queue,
/// in order, and is retried. journald can still drop an entry it accepted (its rate limit, or no journal socket at
/// all): a few seconds after each send, lifecycled looks for the entry and sends it again if it is missing.
extension LifecycleDaemon {
    /// How often, and how long in all, to look for entries that journald may not have written yet: it reads its
    /// socket asynchronously, so a dispatch sent just before lifecycled died can appear a moment later.
    static let deliveryCheckAttempts = 5
    static let deliveryCheckInterval = Duration.milliseconds(200)
    /// How long after a send the entry is looked for: journald writes it within milliseconds unless it dropped it.
    static let confirmationDelay = Duration.seconds(3)
    /// At most this many sent dispatches wait to be confirmed; older ones are no longer looked for.
    static let maximumUnconfirmed = 20_000

    /// Only root's entries are trusted (`_UID=0`), and only root may read the whole journal: as any other user the
    /// journal cannot tell whether a dispatch reached it, so lifecycled does not look.
    static var canCheckJournal: Bool { getuid() == 0 }

    /// At start, before anything else is sent: sends again each pending dispatch that the journal does not hold.
    func deliverPendingDispatches() async {
        guard Self.canCheckJournal else { return }
        var pending = tracker.records.values.sorted { $0.unit < $1.unit }.flatMap { record in
            record.pendingDispatches.compactMap { fields in
                let sorted = fields.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
                return fields["LIFECYCLE_SEQUENCE"].flatMap(UInt64.init).map {
                    PendingDispatch(unit: record.unit, sequence: $0, fields: sorted)
                }
            }
        }
        for attempt in 1...Self.deliveryCheckAttempts where !pending.isEmpty {
            let found: [Bool]
            do {
                found = try JournalReader().contains(pending.map(\.journalQuery))
            } catch {
                // Sending blindly could duplicate entries; without the journal there is no telling, so do nothing.
                logger.warning("Failed to check the journal for undelivered dispatches", metadata: ["error": "\(error)"])
                return
            }
            for (dispatch, isThere) in zip(pending, found) where isThere {
                tracker.markDelivered(unit: dispatch.unit, sequence: dispatch.sequence)
            }
            pending = zip(pending, found).filter { !$0.1 }.map(\.0)
            if attempt < Self.deliveryCheckAttempts, !pending.isEmpty {
                try? await Task.sleep(for: Self.deliveryCheckInterval)
            }
        }
        for dispatch in pending {
            logger.notice("Sending again dispatch \(dispatch.sequence) of \(dispatch.unit), which the journal does not hold")
            deliver(dispatch)
        }
    }

    /// Sends one journal entry, or queues it behind those the journal refused earlier.
    func deliver(_ dispatch: PendingDispatch) {
        if undelivered.isEmpty {
            do {
                try journal.send(dispatch.fields)
                delivered(dispatch)
                return
            } catch {
                logger.error("The journal refused a dispatch; it is kept and sent again", metadata: ["error": "\(error)"])
            }
        }
        undelivered.append(dispatch)
        if retryTask == nil {
            retryTask = Task { await self.retryUndelivered() }
        }
    }

    private func delivered(_ dispatch: PendingDispatch) {
        tracker.markDelivered(unit: dispatch.unit, sequence: dispatch.sequence)
        dispatchCount += 1
        guard Self.canCheckJournal else { return }
        if unconfirmed.count >= Self.maximumUnconfirmed { unconfirmed.removeFirst() }
        unconfirmed.append(SentDispatch(dispatch: dispatch, sentAt: .now))
        if confirmationTask == nil {
            confirmationTask = Task { await self.confirmDelivery() }
        }
    }

    /// Looks for each sent dispatch in the journal once ``confirmationDelay`` has passed, and sends again the ones
    /// journald dropped, until none waits.
    private func confirmDelivery() async {
        defer { confirmationTask = nil }
        var lastCheck = ContinuousClock.now
        while let oldest = unconfirmed.first {
            do {
                // At most one look a second: each opens the journal, and a busy machine dispatches hundreds a second.
                try await Task.sleep(until: max(oldest.sentAt + Self.confirmationDelay, lastCheck + .seconds(1)))
            } catch {
                return  // shutdown
            }
            lastCheck = .now
            let due = lastCheck - Self.confirmationDelay
            let checked = unconfirmed.prefix { $0.sentAt <= due }.map(\.dispatch)
            unconfirmed.removeFirst(checked.count)
            let found: [Bool]
            do {
                found = try JournalReader().contains(checked.map(\.journalQuery))
            } catch {
                logger.warning(
                    "Failed to check that the journal holds \(checked.count) dispatches", metadata: ["error": "\(error)"]
                )
                continue
            }
            let dropped = zip(checked, found).filter { !$0.1 }.map(\.0)
            guard !dropped.isEmpty else { continue }
            logger.warning(
                "The journal dropped \(dropped.count) dispatches it had accepted (journald's rate limit?); sending them again"
            )
            for dispatch in dropped { deliver(dispatch) }
        }
    }

    /// Sends the queued entries in order, once a second, until the journal takes them all.
    private func retryUndelivered() async {
        defer { retryTask = nil }
        var count = 0
        while !undelivered.isEmpty {
            do {
                try await Task.sleep(for: .seconds(1))
            } catch {
                return  // shutdown: the queued dispatches are in their records and are checked at the next start
            }
            while let dispatch = undelivered.first {
                guard (try? journal.send(dispatch.fields)) != nil else { break }
                undelivered.removeFirst()
                delivered(dispatch)
                count += 1
            }
        }
        logger.notice("The journal took the \(count) dispatches it had refused")
    }
}
