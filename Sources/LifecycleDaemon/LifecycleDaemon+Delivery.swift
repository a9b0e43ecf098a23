// SPDX-License-Identifier: Apache-2.0

import LifecycleStorage
import LifecycleSystemd
import Logging

/// Getting every dispatch into the journal exactly once (DESIGN §9).
///
/// A unit's record, with the journal fields of its last dispatch, is saved before that dispatch is sent. So after
/// lifecycled dies, each unit has at most one dispatch that may be missing from the journal: its last one, which the
/// next start looks up by unit and sequence number among lifecycled's own root-owned entries and sends again only if
/// it is not there. While lifecycled runs, an entry the journal refuses waits in a queue, in order, and is retried.
extension LifecycleDaemon {
    /// How often, and how long in all, to look for entries that journald may not have written yet: it reads its
    /// socket asynchronously, so a dispatch sent just before lifecycled died can appear a moment later.
    static let deliveryCheckAttempts = 5
    static let deliveryCheckInterval = Duration.milliseconds(200)

    /// At start, before anything else is sent: sends again each unit's last dispatch that the journal does not hold.
    func deliverLastDispatches() async {
        var pending = tracker.records.values.sorted { $0.unit < $1.unit }.filter { $0.lastDispatch != nil }
        for attempt in 1...Self.deliveryCheckAttempts where !pending.isEmpty {
            let queries = pending.map { record in
                ["SYSLOG_IDENTIFIER=\(DispatchJournalEntry.syslogIdentifier)", "_UID=0",
                 "LIFECYCLE_UNIT=\(record.unit)", "LIFECYCLE_SEQUENCE=\(record.sequence)"]
            }
            let found: [Bool]
            do {
                found = try JournalReader().contains(queries)
            } catch {
                // Sending blindly could duplicate entries; without the journal there is no telling, so do nothing.
                logger.warning("Failed to check the journal for undelivered dispatches", metadata: ["error": "\(error)"])
                return
            }
            pending = zip(pending, found).filter { !$0.1 }.map(\.0)
            if attempt < Self.deliveryCheckAttempts, !pending.isEmpty {
                try? await Task.sleep(for: Self.deliveryCheckInterval)
            }
        }
        for record in pending {
            guard let fields = record.lastDispatch else { continue }
            logger.notice("Sending again dispatch \(record.sequence) of \(record.unit), which the journal does not hold")
            deliver(fields.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
        }
    }

    /// Sends one journal entry, or queues it behind those the journal refused earlier.
    func deliver(_ fields: [(name: String, value: String)]) {
        if undelivered.isEmpty {
            do {
                try journal.send(fields)
                dispatchCount += 1
                return
            } catch {
                logger.error("The journal refused a dispatch; it is kept and sent again", metadata: ["error": "\(error)"])
            }
        }
        undelivered.append(fields)
        if retryTask == nil {
            retryTask = Task { await self.retryUndelivered() }
        }
    }

    /// Sends the queued entries in order, once a second, until the journal takes them all.
    private func retryUndelivered() async {
        defer { retryTask = nil }
        var delivered = 0
        while !undelivered.isEmpty {
            do {
                try await Task.sleep(for: .seconds(1))
            } catch {
                return  // shutdown: the last dispatch of each unit is in its record and is checked at the next start
            }
            while let fields = undelivered.first {
                guard (try? journal.send(fields)) != nil else { break }
                undelivered.removeFirst()
                dispatchCount += 1
                delivered += 1
            }
        }
        logger.notice("The journal took the \(delivered) dispatches it had refused")
    }
}
