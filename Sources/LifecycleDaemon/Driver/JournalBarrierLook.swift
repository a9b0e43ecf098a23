// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleSystemd
import Logging

/// Writes a barrier's probe when asked to and says whether the journal shows it (``JournalBarrier``): on the loop's
/// thread for a run's ending, on the journal's for a recovery's history (``JournalLooker``).
struct JournalBarrierLook: Sendable {
    let journal: JournalSink
    let logger: Logger

    /// Writes the probe `fields` when the barrier asks to, and whether the journal shows the entry `query` finds. A
    /// probe the journal refuses counts as seen: journald takes nothing now (stopped, its socket full), so there is
    /// nothing on its way to wait for, and the read goes on at once.
    func isSeen(_ barrier: JournalBarrier, fields: [(name: String, value: String)], query: [String]) -> Bool {
        if barrier.write {
            do {
                try journal.send(fields)
            } catch {
                logger.warning("The journal refused a probe: reading it without waiting", metadata: ["error": "\(error)"])
                return true
            }
        }
        do {
            return try JournalReader(logging: logger).contains([query])[0]
        } catch {
            logger.warning("Failed to read the journal", metadata: ["error": "\(error)"])
            return false
        }
    }
}
