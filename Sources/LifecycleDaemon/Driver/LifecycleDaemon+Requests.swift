// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleStorage

extension LifecycleDaemon: LifecycleRequests {
    /// Records and dispatches a manual or custom event at the current time, in turn with everything else the loop
    /// handles.
    ///
    /// - Returns: the dispatch's sequence number, or 0 when the event was counted but is not in
    ///   `tracked_lifecycle_events`.
    public func send(_ request: EventRequest) async -> Result<UInt64, EventRequestError> {
        // Once the loop is done nothing would take it, and the replies still waiting may already be answered.
        guard !isLoopDone else { return .failure(.stopping) }
        lastReplyID += 1
        let token = ReplyToken(lastReplyID)
        return await withCheckedContinuation { continuation in
            replies[token] = continuation
            take(.request(request, reply: token))
        }
    }

    /// The stored record of `unit`, nil when it has none; without its pending dispatches, which are the delivery's
    /// bookkeeping rather than the unit's state.
    public func record(of unit: String) -> UnitRecord? { core.tracker.records[unit].map(Self.withoutPending) }

    /// Every stored record, sorted by unit name, as ``record(of:)`` gives it.
    public func records() -> [UnitRecord] {
        core.tracker.records.values.sorted { $0.unit < $1.unit }.map(Self.withoutPending)
    }

    /// What is degraded now, and since when, as `systemctl status` shows it.
    public func degradations() -> Degradations { core.health.degradations }

    private static func withoutPending(_ record: UnitRecord) -> UnitRecord {
        var record = record
        record.pendingDispatches = []
        return record
    }
}
