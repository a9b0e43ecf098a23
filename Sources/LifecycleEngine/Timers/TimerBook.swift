// SPDX-License-Identifier: Apache-2.0

/// The timers of the watched units and the elapses not yet resolved, with the rules that resolve them: each elapse
/// becomes exactly one of a run (the next run of its unit that begins at or after it), a miss (its start job removed
/// with a result other than `done`), a skip or a coalesced elapse (its job `done` without a run). Pure: the daemon's
/// core feeds it timer snapshots, run begins and ends, job ids and removed jobs, in the order systemd sent them
/// (docs/journal.md, "Timers").
public struct TimerBook: Sendable, Equatable {
    /// The last snapshot of each followed timer, by timer name.
    public private(set) var timers: [String: TimerSnapshot] = [:]
    /// Elapses not resolved yet, by timer: a newer elapse of the same timer replaces one never resolved.
    public private(set) var pending: [String: TimerElapse] = [:]
    /// The last run seen of each unit a followed timer starts (of those only, so that what the book holds grows with
    /// the timers, not with every unit that ever ran): when it began and ended (PID 1's monotonic µs; 0 when
    /// unknown), to tell an elapse while a run goes on from a skipped start.
    private var runs: [String: RunSpan] = [:]

    private struct RunSpan: Sendable, Equatable {
        var began: UInt64
        var beganAt: Milliseconds
        var ended: UInt64?
        /// Whether an elapse started it.
        var isClaimed = false
    }

    public init() {}

    /// Whether a followed timer starts `unit`.
    public func isActivated(_ unit: String) -> Bool {
        timers.values.contains { $0.unit == unit }
    }

    /// Whether an elapse of a timer that starts `unit` waits to be resolved.
    public func isPending(_ unit: String) -> Bool {
        pending.values.contains { $0.unit == unit }
    }

    /// Takes a timer's state. A `LastTriggerUSec` later than the one known is an elapse: kept until resolved, or, when
    /// the unit's last run began at or after it and no elapse claimed that run, that run's (PID 1 sent the run's change
    /// first: it sends the changes it queued last first when it flushes several at once). The first snapshot of a
    /// timer is its baseline (what it elapsed before is not this process's to resolve).
    ///
    /// - Returns: the elapse it shows, if any.
    @discardableResult
    public mutating func take(_ snapshot: TimerSnapshot) -> ElapseSeen? {
        let previous = timers.updateValue(snapshot, forKey: snapshot.name)
        guard let previous, snapshot.lastTrigger > previous.lastTrigger, let due = snapshot.lastTriggerTime else {
            return nil
        }
        let elapse = TimerElapse(
            timer: snapshot.name, unit: snapshot.unit, due: due, dueMonotonic: snapshot.lastTriggerMonotonic
        )
        if let run = runs[snapshot.unit], !run.isClaimed,
            let lateness = Self.lateness(of: elapse, time: run.beganAt, monotonic: run.began)
        {
            runs[snapshot.unit]?.isClaimed = true
            return .claimed(TimedRun(elapse: elapse, latenessSeconds: lateness))
        }
        pending[snapshot.name] = elapse
        return .pending(elapse)
    }

    /// What a timer's new elapse is.
    public enum ElapseSeen: Sendable, Hashable {
        /// Waiting for its run, or its job's removal.
        case pending(TimerElapse)
        /// The run that began before the elapse was seen: its launch or wake went out without the timer's fields;
        /// the timer's totals count it.
        case claimed(TimedRun)

        public var elapse: TimerElapse {
            switch self {
            case .pending(let elapse): elapse
            case .claimed(let run): run.elapse
            }
        }
    }

    /// Takes every followed timer's state at once (after each listing): timers no longer named are forgotten with
    /// their pending elapses.
    ///
    /// - Returns: the elapses they show.
    public mutating func takeAll(_ snapshots: [TimerSnapshot]) -> [ElapseSeen] {
        let names = Set(snapshots.map(\.name))
        timers = timers.filter { names.contains($0.key) }
        pending = pending.filter { names.contains($0.key) }
        let units = Set(snapshots.map(\.unit))
        runs = runs.filter { units.contains($0.key) }
        return snapshots.sorted { $0.name < $1.name }.compactMap { take($0) }
    }

    /// A change of `unit` shows a queued job: the first one after an elapse is the elapse's start job.
    public mutating func noteJob(_ jobID: UInt32, of unit: String) {
        guard jobID != 0 else { return }
        for (timer, elapse) in pending where elapse.unit == unit && elapse.jobID == nil {
            pending[timer]?.jobID = jobID
        }
    }

    /// A run of `unit` began at `time` (ms) and `monotonic` (µs, 0 when unknown): the earliest elapse pending for
    /// it at or before the begin started it. A run that began before every pending elapse (a manual start, say) is
    /// no timer's.
    public mutating func runBegan(unit: String, time: Milliseconds, monotonic: UInt64) -> TimedRun? {
        guard isActivated(unit) else { return nil }
        runs[unit] = RunSpan(began: monotonic, beganAt: time, ended: nil)
        let candidates = pending.values.filter { elapse in
            elapse.unit == unit && Self.lateness(of: elapse, time: time, monotonic: monotonic) != nil
        }
        guard let elapse = candidates.min(by: { ($0.due, $0.timer) < ($1.due, $1.timer) }),
            let lateness = Self.lateness(of: elapse, time: time, monotonic: monotonic)
        else { return nil }
        pending.removeValue(forKey: elapse.timer)
        runs[unit]?.isClaimed = true
        return TimedRun(elapse: elapse, latenessSeconds: lateness)
    }

    /// A run of `unit` ended at `monotonic` (µs, 0 when unknown).
    public mutating func runEnded(unit: String, monotonic: UInt64) {
        runs[unit]?.ended = monotonic
    }

    /// systemd removed job `jobID` of `unit` with `result`; `unitResult` is the unit's `Result` as it stood then.
    /// An elapse of the unit whose job it was (or whose job is not known) is resolved: missed unless `done`; `done`
    /// with a run going at the due time is coalesced, else a condition skipped the start.
    public mutating func jobRemoved(
        _ jobID: UInt32, of unit: String, result: String, unitResult: String?
    ) -> TimerJobOutcome? {
        let candidates = pending.values.filter { $0.unit == unit && ($0.jobID == nil || $0.jobID == jobID) }
        guard let elapse = candidates.min(by: { ($0.due, $0.timer) < ($1.due, $1.timer) }) else { return nil }
        pending.removeValue(forKey: elapse.timer)
        guard result == "done" else {
            return .missed(elapse, cause: Self.cause(jobResult: result, unitResult: unitResult))
        }
        return isRunGoing(of: unit, at: elapse) ? .coalesced(elapse) : .skipped(elapse)
    }

    /// A failed job says only that it failed; the unit's Result says why when the start was refused before any run
    /// (`start-limit-hit`, `resources`).
    static func cause(jobResult: String, unitResult: String?) -> String {
        guard jobResult == "failed", let unitResult, !unitResult.isEmpty, unitResult != "success" else {
            return jobResult
        }
        return unitResult
    }

    private func isRunGoing(of unit: String, at elapse: TimerElapse) -> Bool {
        guard let run = runs[unit], elapse.dueMonotonic > 0, run.began > 0 else {
            return runs[unit].map { $0.ended == nil } ?? false
        }
        return run.began <= elapse.dueMonotonic && (run.ended.map { $0 == 0 || $0 >= elapse.dueMonotonic } ?? true)
    }

    /// The run's lateness in seconds when it began at or after the elapse, else nil. PID 1's monotonic clock when
    /// both times have it (a stepped wall clock changes nothing), else the wall clock.
    static func lateness(of elapse: TimerElapse, time: Milliseconds, monotonic: UInt64) -> Double? {
        if elapse.dueMonotonic > 0, monotonic > 0 {
            guard monotonic >= elapse.dueMonotonic else { return nil }
            return Double(monotonic - elapse.dueMonotonic) / 1_000_000
        }
        guard time >= elapse.due else { return nil }
        return Double(time - elapse.due) / 1_000
    }
}
