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
        timersAwaited = true
        effects.append(.readTimers(services))
    }

    mutating func takeTimers(_ timers: [TimerSnapshot]?) {
        timersAwaited = false
        // A recovery's live units wait for the timers (``isLive(_:)``).
        defer { takeWaitingLiveInputs() }
        guard let timers else { return }
        if !timersCaughtUp {
            timersCaughtUp = true
            askMissedWhileAway(timers)
        }
        for case .claimed(let run) in timerBook.takeAll(timers) { countClaimed(run) }
        timers.forEach { noteSchedule(of: $0.name) }
    }

    /// At the first read of the timers: those that elapsed since their unit's record last resolved an elapse (it
    /// holds the timer's last trigger then) may have missed runs while lifecycled was away, which PID 1's journal
    /// tells (``FailedStartJob``).
    private mutating func askMissedWhileAway(_ timers: [TimerSnapshot]) {
        guard readsManagerJournal else { return }
        var away: [String: MissedStartQuery.Timer] = [:]
        for timer in timers {
            guard let stored = tracker.records[timer.unit]?.timers[timer.name], let known = stored.lastTrigger,
                let current = timer.lastTriggerTime, current > known
            else { continue }
            away[timer.name] = MissedStartQuery.Timer(unit: timer.unit, since: max(known, stored.lastResolved ?? known))
        }
        guard !away.isEmpty else { return }
        effects.append(.readMissedStarts(MissedStartQuery(timers: away, until: now)))
    }

    /// PID 1's failed start jobs while lifecycled was away: each a `missed` dispatch, recovered, at the job's time.
    mutating func takeMissedStarts(_ jobs: [FailedStartJob]?, for query: MissedStartQuery) {
        guard let jobs else {
            log(.warning, "PID 1's journal could not be read for the runs timers were due to start while lifecycled was away")
            return
        }
        for (name, away) in query.timers.sorted(by: { $0.key < $1.key }) {
            guard let timer = timerBook.timers[name] else { continue }
            let seen = jobs.filter { $0.time <= query.until }
            for miss in TimerBook.missedWhileAway(timer, since: away.since, jobs: seen) {
                work.append(.timerJob(.missed(miss.elapse, cause: miss.cause), recoveredAt: miss.failedAt))
            }
        }
    }

    /// A timer changed: an elapse is kept until the unit's next run, or its job's removal, resolves it. Taken in
    /// every phase, ahead of the changes a recovery holds, so that a held begin still finds the elapse it was due to.
    mutating func takeTimer(_ timer: TimerSnapshot) {
        if case .claimed(let run)? = timerBook.take(timer) { countClaimed(run) }
        noteSchedule(of: timer.name)
    }

    /// A run whose change came before its timer's: its dispatch went out without the timer's fields; the timer's
    /// totals count it.
    private mutating func countClaimed(_ run: TimedRun) {
        log(.debug, "\(run.elapse.unit): its run began before \(run.elapse.timer)'s elapse was seen; counted, without the timer's fields")
        _ = take(tracker.countRun(run, now: now))
    }

    /// A job of a watched unit was removed: the elapse it resolves, if any, is recorded in order with the unit's
    /// changes. Before tracking (a recovery holds the changes), nothing is decided: the elapse stays for the run;
    /// except for a recovery's live unit, tracked as it goes (``LiveUnits``), its jobs with its changes.
    mutating func takeJobRemoved(unit: String, jobID: UInt32, result: String, unitResult: String?) {
        let isLive = isLive(unit)
        guard phase == .tracking || isLive,
            let outcome = timerBook.jobRemoved(jobID, of: unit, result: result, unitResult: unitResult)
        else { return }
        if isLive {
            liveWork.append(.timerJob(outcome, recoveredAt: nil))
        } else {
            work.append(.timerJob(outcome, recoveredAt: nil))
        }
    }

    /// Records what became of an elapse; `recoveredAt`, the time PID 1 failed its job, for one lifecycled was away for.
    mutating func recordTimerJob(_ outcome: TimerJobOutcome, recoveredAt: Milliseconds?) {
        let schedule = timerBook.timers[outcome.elapse.timer]
        _ = take(tracker.record(outcome, schedule: schedule, now: now, uptime: uptime, recoveredAt: recoveredAt))
        if case .missed(let elapse, let cause) = outcome {
            let away = recoveredAt == nil ? "" : " while lifecycled was away"
            log(.notice, "\(elapse.unit): the run \(elapse.timer) was due to start never began (\(cause))\(away)")
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
