// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// A timer's fields in a dispatch: payload keys `timer`, `timer_due_time`, `timer_lateness_seconds` and
/// `missed_cause`, which become `LIFECYCLE_TIMER`, `LIFECYCLE_TIMER_DUE_TIME`, `LIFECYCLE_TIMER_LATENESS_SECONDS` and
/// `LIFECYCLE_MISSED_CAUSE` (docs/journal.md, "Timers").
extension TimerElapse {
    /// The timer and its due time (RFC 3339 UTC with milliseconds).
    public var payload: [String: JSONValue] {
        [
            DispatchField.PayloadKey.timer: .string(timer),
            DispatchField.PayloadKey.timerDueTime: .string(LifecycleDateFormat.iso8601Milliseconds.string(due)),
        ]
    }

    /// The payload of the `missed` dispatch of this elapse, whose run never began for `cause`.
    public func missedPayload(cause: String) -> [String: JSONValue] {
        payload.merging([
            DispatchField.PayloadKey.missedCause: .string(cause),
            DispatchField.PayloadKey.autotracked: .bool(true),
        ]) { own, _ in own }
    }
}

extension TimedRun {
    /// The timer, its due time, and the lateness in seconds with microseconds (systemd's resolution).
    public var payload: [String: JSONValue] {
        elapse.payload.merging([
            DispatchField.PayloadKey.timerLatenessSeconds: .double((latenessSeconds * 1_000_000).rounded() / 1_000_000),
        ]) { own, _ in own }
    }
}
