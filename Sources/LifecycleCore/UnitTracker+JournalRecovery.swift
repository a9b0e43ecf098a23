// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// Bringing the records up to lifecycled's own journal at start, so that nothing is dispatched twice and no number is
/// used twice (docs/guarantees.md, "Reliability"). The journal can be ahead of a record: when its state file could not
/// be written (a full file system) or was set aside as corrupt, or deleted.
extension UnitTracker {
    /// Takes, for each unit, the dispatches the journal holds beyond its record, oldest first: those numbered above
    /// the record's sequence, or all of them for a unit with no record.
    ///
    /// - A record behind the journal gets those dispatches applied to its state, as the engine applied them when they
    ///   were sent, and is saved.
    /// - A unit with no record (its state file set aside as corrupt, or deleted) is rebuilt the same way from an empty
    ///   record, and numbered on after its newest dispatch; no run before that dispatch is taken as missed, even if
    ///   the journal lost the oldest dispatches.
    ///
    /// - Returns: the records to save.
    public mutating func catchUp(with journaled: [String: [JournaledDispatch]]) -> [Effect] {
        var effects: [Effect] = []
        for (unit, dispatches) in journaled.sorted(by: { $0.key < $1.key }) {
            guard let newest = dispatches.last else { continue }
            let stored = records[unit]
            var record = stored ?? UnitRecord(unit: unit)
            if stored == nil { freshSince[unit] = newest.time }
            for dispatch in dispatches where dispatch.sequence > record.sequence {
                replay(dispatch, into: &record)
            }
            if record != stored {
                records[unit] = record
                effects.append(.persist(record))
            }
        }
        return effects
    }

    /// Applies `dispatch` to the record as when it was sent; its kind says what the engine decided then.
    private func replay(_ dispatch: JournaledDispatch, into record: inout UnitRecord) {
        let engine = engine(for: record.unit)
        let wasRunEnded = record.runEnded
        let event: LifecycleEvent? = switch dispatch.kind {
        case .launch: .launch
        case .wake: .wake
        case .sleep: .sleep
        case .crash, .custom, .missed: nil
        }
        if dispatch.isAutotracked, event != .sleep, let id = dispatch.invocationID {
            // A run began (launch or wake), or ended with a crash notice.
            if record.invocationID != id { record.state.hasLaunchedInRun = false }
            record.invocationID = id
            record.runEnded = dispatch.kind == .crash
            if let failure = dispatch.failure { record.noteFailure(failure) }  // as apply's noteCrash did
        }
        if let event {
            // Autotracked origin: the event is replayed, not asked for, so the manual-tracking rule does not apply.
            let before = record.state
            _ = engine.track(event, at: dispatch.time, state: &record.state, version: dispatch.version, origin: .autotracked)
            record.countUpdate(since: before)
        }
        if dispatch.isAutotracked, event == .sleep, dispatch.invocationID == record.invocationID {
            record.runEnded = true
        }
        replayTotals(dispatch, into: &record, wasRunEnded: wasRunEnded)
        record.sequence = dispatch.sequence
    }

    /// Counts the run `dispatch` carries in the unit's totals as its sending did (``apply(_:)``): the run it ends once,
    /// the start-up of one it begins, and a timer's run or miss. A record rebuilt from its dispatches then keeps its
    /// Prometheus counters; a timer's skipped and coalesced elapses, which nothing dispatches, start again from 0.
    private func replayTotals(_ dispatch: JournaledDispatch, into record: inout UnitRecord, wasRunEnded: Bool) {
        if dispatch.kind == .missed, let timer = dispatch.timer {
            record.timers[timer, default: TimerTotals()].countMissed(cause: dispatch.missedCause ?? "failed")
        }
        guard dispatch.isAutotracked, let id = dispatch.invocationID else { return }
        switch dispatch.kind {
        case .sleep, .crash:
            if record.runEnded, !wasRunEnded { record.runTotals.add(dispatch.run, of: id) }
        case .launch, .wake:
            if let startup = dispatch.run.startupSeconds { record.runTotals.addStartup(startup, of: id) }
            if let timer = dispatch.timer {
                record.timers[timer, default: TimerTotals()].countRun(
                    latenessSeconds: dispatch.timerLatenessSeconds ?? 0, at: dispatch.time
                )
            }
        case .custom, .missed:
            break
        }
    }
}
