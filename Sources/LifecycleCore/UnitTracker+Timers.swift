// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// What a timer's elapses do to the record of the unit it starts (docs/journal.md, "Timers").
extension UnitTracker {
    /// An elapse that began no run: a miss is a `missed` dispatch, numbered with the unit's sequence; a skip or an
    /// elapse merged into the run going on is only counted. The timer's schedule (`schedule`, as systemd shows it
    /// now) goes into the record with it.
    public mutating func record(
        _ outcome: TimerJobOutcome, schedule: TimerSnapshot?, now: Milliseconds, uptime: Uptime
    ) -> [Effect] {
        let elapse = outcome.elapse
        let stored = records[elapse.unit] ?? UnitRecord(unit: elapse.unit)
        var record = stored
        var totals = record.timers[elapse.timer] ?? TimerTotals()
        if let schedule { totals.take(schedule, now: now, uptime: uptime) }
        var dispatch: Dispatch?
        switch outcome {
        case .missed(_, let cause):
            totals.countMissed(cause: cause)
            dispatch = Dispatch(
                name: DispatchField.missedEvent, time: now, lifecycle: nil, customData: elapse.missedPayload(cause: cause)
            )
        case .skipped: totals.count(.skipped)
        case .coalesced: totals.count(.coalesced)
        }
        record.timers[elapse.timer] = totals
        return commit(record, replacing: stored, dispatch: dispatch, kind: .missed)
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
