// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// Recovering, at lifecycled's start, what happened to watched units while it was not running (docs/guarantees.md,
/// "Reliability"): a run that ended meanwhile is a sleep or a crash notice at its real time, a run that began meanwhile
/// a launch or wake; each is marked `reconciled`. A unit that simply kept running gives nothing, so a restart of
/// lifecycled never looks like a crash.
extension UnitTracker {
    /// The stored runs whose end only the journal can tell: recorded as running, and no longer the unit's run in
    /// systemd's listing (the unit was restarted, or stopped and unloaded), or shown failed by a start systemd refused
    /// after it (``UnitSnapshot/isRefusedStart``).
    public func runsToLookUp(in snapshots: [UnitSnapshot]) -> [(unit: String, invocationID: String)] {
        let byName = Dictionary(snapshots.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        return records.values.sorted { $0.unit < $1.unit }.compactMap { record in
            guard configuration.isWatched(record.unit), let id = Self.runningInvocation(record),
                byName[record.unit]?.invocationID != id || byName[record.unit]?.isRefusedStart == true
            else { return nil }
            return (record.unit, id)
        }
    }

    /// What lifecycled missed, per watched unit, from systemd's listing at start, the endings read from the journal
    /// for ``runsToLookUp(in:)``, and PID 1's `history` since lifecycled was last running (nil when unknown): each
    /// unit's transitions, given out a few runs at a time (``UnitReconciliation``). Apply them before
    /// ``resync(_:isFirstListing:)`` takes the listing as the baseline. Units with nothing to add are left out.
    ///
    /// For each watched unit, in order: the end of the stored run; then every run the history shows after it (for a
    /// unit with no record, every run in the history), each a begin and, once over, an end; then the listed run, if
    /// it is running and neither stored nor in the history. The history is read after the listing, so it can be the
    /// newer of the two: a run's end is taken from the listing only when the listing shows it over. A unit with no
    /// record whose run began before the history does is left to the baseline: lifecycled cannot tell whether it saw
    /// that run begin.
    ///
    /// A stored run that another run followed (in the listing or the history), and whose end neither the listing nor
    /// the journal shows (a unit PID 1 logs nothing of, a journal that no longer holds it), ends as unknown: a sleep,
    /// not a crash, at the last time it was known to be going: `watchedUntil` (when lifecycled last watched, nil when
    /// unknown), or its begin.
    public func reconciliation(
        _ snapshots: [UnitSnapshot], endings: [String: RunEnding], history: RunHistory? = nil,
        watchedUntil: Milliseconds? = nil
    ) -> [UnitReconciliation] {
        let byName = Dictionary(snapshots.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let units = Set(records.keys).union(history.map { Array($0.units) } ?? []).filter(configuration.isWatched)
        return units.sorted().compactMap { unit in
            let record = records[unit]
            let snapshot = byName[unit]
            let missed = history?.runs(of: unit, after: record?.invocationID, recordedUntil: recordedUntil(unit)) ?? []
            var storedEnd: MappedTransition?
            if let record, let id = Self.runningInvocation(record) {
                let listed = snapshot?.invocationID == id
                let followed = !missed.isEmpty || snapshot.map { !$0.invocationID.isEmpty && !listed } == true
                let run = history?.run(of: unit, id)
                storedEnd = UnitReconciliation.end(
                    of: id, unit: unit, began: nil, record: run?.record ?? RunRecord(), snapshot: snapshot,
                    fromJournal: run?.ending ?? (listed && snapshot?.isRefusedStart != true ? nil : endings[unit])
                )
                if storedEnd == nil, followed {
                    // Another run followed, without a word of this one's end: it was going until lifecycled stopped
                    // watching, and not after the next run began. A unit missing from the listing is no evidence
                    // (a listing during a re-execution can lack it): its next begin ends the run instead.
                    var time = max(recordedUntil(unit) ?? 0, watchedUntil ?? 0)
                    let next = missed.first?.began ?? (snapshot?.isRunning == true ? snapshot?.stateChangeTime : nil)
                    if let next { time = min(time, next) }
                    storedEnd = UnitReconciliation.reconciled(unit, .endedUnknown, id, time > 0 ? time : nil)
                }
            }
            var listedBegin: MappedTransition?
            if let record, let snapshot, !snapshot.invocationID.isEmpty, snapshot.invocationID != record.invocationID,
                !missed.contains(where: { $0.invocationID == snapshot.invocationID }),
                snapshot.isRunning, !snapshot.isRestartPending
            {
                listedBegin = UnitReconciliation.reconciled(unit, .began, snapshot.invocationID, snapshot.stateChangeTime)
                listedBegin?.run = snapshot.beginRecord
                listedBegin?.awaitsStartup = snapshot.isActivating
            }
            let reconciliation = UnitReconciliation(
                unit: unit, storedEnd: storedEnd, missed: missed, snapshot: snapshot, listedBegin: listedBegin
            )
            return reconciliation.isDone ? nil : reconciliation
        }
    }

    /// Every transition of ``reconciliation(_:endings:history:watchedUntil:)``, at once.
    public func reconcile(
        _ snapshots: [UnitSnapshot], endings: [String: RunEnding], history: RunHistory? = nil,
        watchedUntil: Milliseconds? = nil
    ) -> [MappedTransition] {
        reconciliation(snapshots, endings: endings, history: history, watchedUntil: watchedUntil).flatMap { unit in
            var unit = unit
            return unit.all()
        }
    }

    /// The time of the last event recorded for `unit`: its state's last launch, wake or sleep, or the newest
    /// dispatch the journal holds for a unit rebuilt from its dispatches; nil when nothing was recorded.
    private func recordedUntil(_ unit: String) -> Milliseconds? {
        let times = [records[unit]?.state.lastWake, records[unit]?.state.lastSleep, freshSince[unit]].compactMap { $0 }
        return times.max()
    }

    /// The run of `unit` that the record says is still going, when it is not `invocationID`: a run whose end no
    /// signal showed (systemd sends a unit's latest state only, so a failure and the restart after it can come as one
    /// change).
    public func unendedRun(of unit: String, before invocationID: String) -> String? {
        guard let record = records[unit], let id = Self.runningInvocation(record), id != invocationID else { return nil }
        return id
    }

    /// The InvocationID of the run the record last saw begin, when the record says it is still running.
    private static func runningInvocation(_ record: UnitRecord) -> String? {
        guard !record.runEnded, record.state.lastEvent == .launch || record.state.lastEvent == .wake else { return nil }
        return record.invocationID
    }
}
