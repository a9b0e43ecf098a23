// SPDX-License-Identifier: Apache-2.0

import LifecycleStorage
import LifecycleSystemd
import Logging

/// One dispatch on its way to the journal.
struct PendingDispatch: Sendable {
    var unit: String
    var sequence: UInt64
    var fields: [(name: String, value: String)]
}

/// Getting every dispatch into the journal exactly once (DESIGN §9).
///
/// A unit's record, with the journal fields of each of its dispatches the journal has not taken yet, is saved before
/// the newest of them is sent. So after lifecycled dies, the dispatches that may be missing from the journal are all
/// in the records: the next start looks each up by unit and sequence number among lifecycled's own root-owned entries
/// and sends it again only if it is not there. While lifecycled runs, an entry the journal refuses waits in a queue,
/// in order, and is retried.
extension LifecycleDaemon {
    /// How often, and how long in all, to look for entries that journald may not have written yet: it reads its
    /// socket asynchronously, so a dispatch sent just before lifecycled died can appear a moment later.
    static let deliveryCheckAttempts = 5
    static let deliveryCheckInterval = Duration.milliseconds(200)

    /// At start, before anything else is sent: sends again each pending dispatch that the journal does not hold.
    func deliverPendingDispatches() async {
        var pending = tracker.records.values.sorted { $0.unit < $1.unit }.flatMap { record in
            record.pendingDispatches.compactMap { fields in
                fields["LIFECYCLE_SEQUENCE"].flatMap(UInt64.init).map {
                    PendingDispatch(unit: record.unit, sequence: $0, fields: fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
                }
            }
        }
        for attempt in 1...Self.deliveryCheckAttempts where !pending.isEmpty {
            let queries = pending.map { dispatch in
                ["SYSLOG_IDENTIFIER=\(DispatchJournalEntry.syslogIdentifier)", "_UID=0",
                 "LIFECYCLE_UNIT=\(dispatch.unit)", "LIFECYCLE_SEQUENCE=\(dispatch.sequence)"]
            }
            let found: [Bool]
            do {
                found = try JournalReader().contains(queries)
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
