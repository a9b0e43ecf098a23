// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// The journal's answers about dispatches (see ``Outbox``).
extension DaemonCore {
    mutating func sent(count: Int, refused: Bool) {
        let (delivered, retryAt) = outbox.sent(count: count, refused: refused, now: now)
        for dispatch in delivered {
            tracker.markDelivered(unit: dispatch.unit, sequence: dispatch.sequence)
        }
        dispatchCount += delivered.count
        countDelivered(delivered)
        if let retryAt {
            health.journalRefusals += 1
            log(.error, "The journal refused a dispatch; it is kept and sent again")
            effects.append(.arm(.retryDelivery, at: retryAt))
        } else if let count = outbox.takeRecoveredCount() {
            log(.notice, "The journal took the \(count) dispatches it had refused")
        }
        armConfirmation()
    }

    mutating func lookedUp(_ dispatches: [PendingDispatch], purpose: LookUpPurpose, found: [Bool]?) {
        guard let found else {
            switch purpose {
            case .leftovers:
                // Sending blindly could duplicate entries; without the journal there is no telling, so do nothing.
                log(.warning, "Failed to check the journal for undelivered dispatches")
            case .confirmation:
                log(.warning, "Failed to check that the journal holds \(dispatches.count) dispatches")
            }
            return
        }
        var missing: [PendingDispatch] = []
        for (dispatch, isThere) in zip(dispatches, found) {
            if !isThere {
                missing.append(dispatch)
            } else if purpose == .leftovers {
                tracker.markDelivered(unit: dispatch.unit, sequence: dispatch.sequence)
            }
        }
        guard !missing.isEmpty else { return }
        switch purpose {
        case .leftovers:
            for dispatch in missing {
                log(.notice, "Sending again dispatch \(dispatch.sequence) of \(dispatch.unit), which the journal does not hold")
            }
        case .confirmation:
            health.journalDrops += missing.count
            log(.warning, "The journal dropped \(missing.count) dispatches it had accepted (journald's rate limit?); sending them again")
        }
        for dispatch in missing { outbox.enqueue(dispatch) }
    }

    mutating func armConfirmation() {
        if let at = outbox.confirmationToArm() { effects.append(.arm(.confirmDelivery, at: at)) }
    }
}
