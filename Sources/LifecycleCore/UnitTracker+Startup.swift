// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// A launch that waited for its run's start-up (``StartingRuns``) gets it.
extension UnitTracker {
    /// The entry of `launch` of `unit` made again with the run's start-up (`LIFECYCLE_RUN_STARTUP_SECONDS`) in place of
    /// the one the record holds pending, and the start-up counted in the unit's totals.
    ///
    /// - Returns: the record to save and the entry to send; nil when the record no longer holds the launch pending.
    mutating func completeStartup(
        of launch: StartingRuns.Launch, unit: String, seconds: Double
    ) -> (record: UnitRecord, entry: DispatchJournalEntry)? {
        let number = String(launch.sequence)
        guard var record = records[unit],
            let index = record.pendingDispatches.firstIndex(where: { $0[DispatchField.sequence] == number })
        else { return nil }
        var dispatch = launch.dispatch
        dispatch.customData.merge(RunRecord(startupSeconds: seconds).payload) { own, _ in own }
        let entry = DispatchJournalEntry(
            unit: unit, dispatch: dispatch, invocationID: launch.invocationID, sequence: launch.sequence,
            kind: launch.kind, version: launch.version
        )
        record.pendingDispatches[index] = entry.journalFields
        if !(record.runEnded && record.invocationID == launch.invocationID) {
            record.runTotals.addStartup(seconds, of: launch.invocationID)
        }
        records[unit] = record
        return (record, entry)
    }
}
