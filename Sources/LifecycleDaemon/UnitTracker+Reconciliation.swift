// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// Recovering, at lifecycled's start, what happened to watched units while it was not running (DESIGN §9): a run
/// that ended meanwhile is a sleep or a crash notice at its real time, a run that began meanwhile a launch or wake;
/// each is marked `reconciled`. A unit that simply kept running gives nothing, so a restart of lifecycled never
/// looks like a crash.
extension UnitTracker {
    /// The stored runs whose end only the journal can tell: recorded as running, and no longer the unit's run in
    /// systemd's listing (the unit was restarted, or stopped and unloaded).
    public func runsToLookUp(in snapshots: [UnitSnapshot]) -> [(unit: String, invocationID: String)] {
        let byName = Dictionary(snapshots.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return records.values.sorted { $0.unit < $1.unit }.compactMap { record in
            guard configuration.isWatched(record.unit), let id = Self.runningInvocation(record),
                byName[record.unit]?.invocationID != id
            else { return nil }
            return (record.unit, id)
        }
    }

    /// The transitions lifecycled missed, from systemd's listing at start and the endings read from the journal for
    /// ``runsToLookUp(in:)``. Apply them before ``resync(_:isFirstListing:)`` takes the listing as the baseline.
    public func reconcile(_ snapshots: [UnitSnapshot], endings: [String: RunEnding]) -> [MappedTransition] {
        let byName = Dictionary(snapshots.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var transitions: [MappedTransition] = []
        for record in records.values.sorted(by: { $0.unit < $1.unit }) where configuration.isWatched(record.unit) {
            let snapshot = byName[record.unit]
            if let id = Self.runningInvocation(record) {
                if let snapshot, snapshot.invocationID == id {
                    if snapshot.hasEnded {
                        transitions.append(Self.reconciled(record.unit, snapshot.endTransition, id, snapshot.stateChangeTime))
                    }
                } else if let ending = endings[record.unit] {
                    switch ending {
                    case .endedCleanly(let time):
                        transitions.append(Self.reconciled(record.unit, .endedCleanly, id, time))
                    case .failed(let details, let time):
                        transitions.append(Self.reconciled(record.unit, .failed(details), id, time))
                    }
                }
            }
            if let snapshot, !snapshot.invocationID.isEmpty, snapshot.invocationID != record.invocationID,
                snapshot.isRunning, !snapshot.isRestartPending
            {
                transitions.append(Self.reconciled(record.unit, .began, snapshot.invocationID, snapshot.stateChangeTime))
            }
        }
        return transitions
    }

    /// The InvocationID of the run the record last saw begin, when the record says it is still running.
    private static func runningInvocation(_ record: UnitRecord) -> String? {
        guard !record.runEnded, record.state.lastEvent == .launch || record.state.lastEvent == .wake else { return nil }
        return record.invocationID
    }

    private static func reconciled(
        _ unit: String,
        _ transition: RunTransition,
        _ invocationID: String,
        _ time: Milliseconds?
    ) -> MappedTransition {
        MappedTransition(
            unit: unit, transition: transition, invocationID: invocationID, time: time, monotonicMicroseconds: 0,
            isReconciled: true
        )
    }
}
