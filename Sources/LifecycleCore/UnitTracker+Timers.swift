// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// What a timer's elapses do to the record of the unit it starts (docs/journal.md, "Timers").
extension UnitTracker {
    /// An elapse that began no run: a miss is a `missed` dispatch, numbered with the unit's sequence; a skip or an
    /// elapse merged into the run going on is only counted. The timer's schedule (`schedule`, as systemd shows it
    /// now) goes into the record with it. A miss lifecycled was away for (`recoveredAt`, when PID 1 failed the job) is
    /// dated then and marked reconciled.
    public mutating func record(
        _ outcome: TimerJobOutcome, schedule: TimerSnapshot?, now: Milliseconds, uptime: Uptime,
        recoveredAt: Milliseconds? = nil
    ) -> [Effect] {
        let elapse = outcome.elapse
        let stored = records[elapse.unit] ?? UnitRecord(unit: elapse.unit)
        var record = stored
        var totals = record.timers[elapse.timer] ?? TimerTotals()
        if let schedule { totals.take(schedule, now: now, uptime: uptime) }
        totals.lastResolved = max(totals.lastResolved ?? 0, recoveredAt ?? now)
        var dispatch: Dispatch?
        switch outcome {
        case .missed(_, let cause):
            totals.countMissed(cause: cause)
            var data = elapse.missedPayload(cause: cause)
            if recoveredAt != nil { data[DispatchField.PayloadKey.reconciled] = .bool(true) }
            dispatch = Dispatch(name: DispatchField.missedEvent, time: recoveredAt ?? now, lifecycle: nil, customData: data)
        case .skipped: totals.count(.skipped)
        case .coalesced: totals.count(.coalesced)
        }
        record.timers[elapse.timer] = totals
        return commit(record, replacing: stored, dispatch: dispatch, kind: .missed)
    }

    /// A run the timer started whose begin was recorded before its elapse was seen: counted in the timer's totals.
    public mutating func countRun(_ run: TimedRun, now: Milliseconds) -> [Effect] {
        guard let stored = records[run.elapse.unit] else { return [] }
        var record = stored
        record.timers[run.elapse.timer, default: TimerTotals()].countRun(latenessSeconds: run.latenessSeconds, at: now)
        return commit(record, replacing: stored, dispatch: nil, kind: .missed)
    }

    /// A followed timer's schedule, kept in its unit's record (which must exist) when it moved.
    public mutating func noteSchedule(_ timer: TimerSnapshot, now: Milliseconds, uptime: Uptime) -> [Effect] {
        guard let stored = records[timer.unit] else { return [] }
        var record = stored
        record.timers[timer.name, default: TimerTotals()].take(timer, now: now, uptime: uptime)
        return commit(record, replacing: stored, dispatch: nil, kind: .missed)
    }
}

extension TimerTotals {
    /// Takes the schedule systemd shows: the last trigger and the next elapse.
    mutating func take(_ timer: TimerSnapshot, now: Milliseconds, uptime: Uptime) {
        lastTrigger = timer.lastTriggerTime
        nextElapse = timer.nextElapse(now: now, uptime: uptime)
    }
}
