// SPDX-License-Identifier: Apache-2.0

/// One elapse of a timer: its `LastTriggerUSec` moved. systemd queued a start job for the timer's unit at that
/// moment, so the elapse is the run's due time (docs/journal.md, "Timers").
public struct TimerElapse: Sendable, Hashable {
    public var timer: String
    public var unit: String
    /// `LastTriggerUSec` in ms since the epoch (`LIFECYCLE_TIMER_DUE_TIME`).
    public var due: Milliseconds
    /// `LastTriggerUSecMonotonic` (µs, PID 1's clock, 0 when unknown): runs are compared with it, so a stepped wall
    /// clock changes no lateness.
    public var dueMonotonic: UInt64
    /// The start job queued for it, once a change of the unit showed one (its `Job`); nil until then.
    public var jobID: UInt32?

    public init(timer: String, unit: String, due: Milliseconds, dueMonotonic: UInt64, jobID: UInt32? = nil) {
        self.timer = timer
        self.unit = unit
        self.due = due
        self.dueMonotonic = dueMonotonic
        self.jobID = jobID
    }
}

/// A run a timer started: the elapse it was due at, and how late it began.
public struct TimedRun: Sendable, Hashable {
    public var elapse: TimerElapse
    /// The run's begin less the due time, in seconds (never negative): a start job that waited behind a slow
    /// dependency is late by its wait.
    public var latenessSeconds: Double

    public init(elapse: TimerElapse, latenessSeconds: Double) {
        self.elapse = elapse
        self.latenessSeconds = latenessSeconds
    }
}

/// What became of an elapse whose unit began no run, once its start job was removed.
public enum TimerJobOutcome: Sendable, Hashable {
    /// The start job failed before any run began: a `missed` dispatch, with systemd's job result as its cause
    /// (`dependency`, `canceled`, `timeout`, …; a `failed` job of a unit whose Result says why, such as
    /// `start-limit-hit`, takes that Result).
    case missed(TimerElapse, cause: String)
    /// The job succeeded and no run began, none going: a condition (`Condition…=`, `ExecCondition=`) skipped the
    /// start. No run, no miss.
    case skipped(TimerElapse)
    /// The job succeeded into the run already going when the timer elapsed (systemd merges a start into a run
    /// going on). No run, no miss.
    case coalesced(TimerElapse)

    public var elapse: TimerElapse {
        switch self {
        case .missed(let elapse, _), .skipped(let elapse), .coalesced(let elapse): elapse
        }
    }
}
