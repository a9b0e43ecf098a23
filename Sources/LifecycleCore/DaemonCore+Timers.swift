// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// The timers of the watched services (docs/journal.md, "Timers"): read after each listing, followed by their
/// changes, and each elapse resolved by ``TimerBook`` into the run it started, a `missed` dispatch, a skip or an
/// elapse merged into the run going on.
extension DaemonCore {
    /// After each listing: the timers of the watched services, read again (`TriggeredBy` changes only with a reload,
    /// after which systemd is listed again).
    mutating func readTimers(of snapshots: [UnitSnapshot]) {
        let services = snapshots.map(\.name).filter { $0.hasSuffix(".service") && configuration.isWatched($0) }
        guard !services.isEmpty else { return }
        effects.append(.readTimers(services))
    }

    mutating func takeTimers(_ timers: [TimerSnapshot]?) {
        guard let timers else { return }
        _ = timerBook.takeAll(timers)
        timers.forEach { noteSchedule(of: $0.name) }
    }

    /// A timer changed: an elapse is kept until the unit's next run, or its job's removal, resolves it. Taken in
    /// every phase, ahead of the changes a recovery holds, so that a held begin still finds the elapse it was due to.
    mutating func takeTimer(_ timer: TimerSnapshot) {
        timerBook.take(timer)
        noteSchedule(of: timer.name)
    }

    /// A job of a watched unit was removed: the elapse it resolves, if any, is recorded in order with the unit's
    /// changes. Before tracking (a recovery holds the changes), nothing is decided: the elapse stays for the run.
    mutating func takeJobRemoved(unit: String, jobID: UInt32, result: String, unitResult: String?) {
        guard phase == .tracking,
            let outcome = timerBook.jobRemoved(jobID, of: unit, result: result, unitResult: unitResult)
        else { return }
        work.append(.timerJob(outcome))
    }

    mutating func recordTimerJob(_ outcome: TimerJobOutcome) {
        let schedule = timerBook.timers[outcome.elapse.timer]
        _ = take(tracker.record(outcome, schedule: schedule, now: now, uptime: uptime))
        if case .missed(let elapse, let cause) = outcome {
            log(.notice, "\(elapse.unit): the run \(elapse.timer) was due to start never began (\(cause))")
        }
    }

    /// Notes a live transition's run in the book (a recovered one is past: no elapse pending is its).
    ///
    /// - Returns: for a begin, the elapse that started the run, with its lateness; nil when no timer did.
    mutating func noteRun(_ transition: MappedTransition) -> TimedRun? {
        guard !transition.isReconciled else { return nil }
        switch transition.transition {
        case .began:
            return timerBook.runBegan(
                unit: transition.unit, time: transition.time ?? now, monotonic: transition.monotonicMicroseconds
            )
        case .endedCleanly, .failed, .endedUnknown:
            timerBook.runEnded(unit: transition.unit, monotonic: transition.monotonicMicroseconds)
        case .frozen, .thawed:
            break
        }
        return nil
    }

    /// Keeps a timer's schedule in its unit's record while tracking, for `lifecyclectl timers` and the metrics; a
    /// unit without a record gets one with its first run or miss.
    mutating func noteSchedule(of name: String) {
        guard phase == .tracking, let timer = timerBook.timers[name], tracker.records[timer.unit] != nil else { return }
        _ = take(tracker.noteSchedule(timer, now: now, uptime: uptime))
    }
}
