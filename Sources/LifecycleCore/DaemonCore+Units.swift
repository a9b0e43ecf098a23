// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// What systemd says about the watched units, and the work it leads to.
extension DaemonCore {
    mutating func take(_ snapshots: [UnitSnapshot]) {
        isReloading = false
        switch phase {
        case .starting(let held):
            phase = .recovering(.start, listing: snapshots, held: held)
            // A long history takes a while to read: ask systemd for more than its start timeout.
            if readsManagerJournal { extendStart(status: "Reading PID 1's journal for missed runs") }
            journalPositions.recoveredReadAt = uptime
            readRecovery(startQuery(listing: snapshots))
        case .signalsLost(let since, let held):
            recoverLostSignals(since: since, listing: snapshots, held: held)
        case .recovering(let cause, _, let held):
            // The source listed again before the journal answered: the newer listing is the one to take.
            phase = .recovering(cause, listing: snapshots, held: held)
            recoveryGap?.isListed = true
            takeLiveEntries(of: snapshots)
        case .tracking:
            if let added = unitsToRebuild {
                // The listing that follows a reload that added watched units: their runs from PID 1's whole journal
                // first, as on a first start.
                unitsToRebuild = nil
                phase = .recovering(.watchAdded(added), listing: snapshots, held: HeldInputs())
                journalPositions.recoveredReadAt = uptime
                readRecovery(RecoveryQuery(
                    history: .wholeJournal(of: added), catchUp: [], endings: [], patterns: added.patterns,
                    caughtUp: Set(tracker.records.keys), watched: watchedPatterns, barrier: nextHistoryBarrier()
                ))
                return
            }
            work.append(.resync(snapshots, isFirst: false))
            work.append(.finishRecovery(nil, watchedUnits: watchedCount(snapshots)))
        case .stopping:
            break
        }
    }

    mutating func take(_ change: BufferedChange) {
        if isLive(change.snapshot.name) {
            takeLive(change)
            return
        }
        guard !phase.hold(change), phase == .tracking else { return }
        work.append(.change(change))
    }

    /// From now until the next listing, systemd's signals may be lost: that listing is preceded by what PID 1's
    /// journal logged meanwhile, and the changes that arrive before it wait for it. While a recovery reads the journal,
    /// the gap is read once its history is recorded (``RecoveryGap``); before the first listing, the start's recovery
    /// covers it.
    mutating func loseSignals() {
        let since = UInt64(max(0, signalsLostAt ?? now)) * 1_000
        signalsLostAt = nil
        switch phase {
        case .tracking:
            phase = .signalsLost(since: since, held: HeldInputs())
            journalPositions.trackingInterrupted()
        case .recovering:
            // Lost again before the gap was read: from the first loss, once listed again.
            recoveryGap = RecoveryGap(since: recoveryGap?.since ?? since)
            journalPositions.trackingInterrupted()
        case .starting, .signalsLost, .stopping:
            break
        }
    }

    /// The units are listed after signals were lost since `since` (µs since the epoch): what PID 1's journal logged
    /// meanwhile is recorded first, then the listing, then the changes held.
    private mutating func recoverLostSignals(since: UInt64, listing: [UnitSnapshot], held: HeldInputs) {
        phase = .recovering(.signalsLost(since: since), listing: listing, held: held)
        if readsManagerJournal {
            journalPositions.recoveredReadAt = uptime
            readRecovery(RecoveryQuery(
                history: .since(microseconds: since), catchUp: [], endings: [], watched: watchedPatterns,
                barrier: nextHistoryBarrier()
            ))
        } else {
            recover(with: RecoveryAnswer())  // without PID 1's journal the listing is all there is
        }
    }

    // MARK: - Recovery

    /// How many times in a row PID 1's journal is read again when it could not be read, 1 s, 2 s, 4 s, … apart: half
    /// a minute in all, within systemd's start timeout, before the recovery goes on without the runs it holds.
    static let recoveryReadLimit = 5

    /// Asks the journal what was missed, and keeps the query to ask again.
    mutating func readRecovery(_ query: RecoveryQuery) {
        lastRecoveryQuery = query
        effects.append(.readRecovery(query))
    }

    /// A history that could not be read is read again later, a few times; nothing of the answer is taken meanwhile.
    ///
    /// - Returns: whether the answer waits for another read.
    private mutating func retriesUnreadableHistory(_ answer: RecoveryAnswer) -> Bool {
        guard answer.isHistoryUnreadable else {
            recoveryReadFailures = 0
            return false
        }
        guard recoveryReadFailures < Self.recoveryReadLimit else {
            log(.error, "PID 1's journal could not be read \(recoveryReadFailures + 1) times: going on without the runs it holds since lifecycled last read it")
            recoveryReadFailures = 0
            return false
        }
        recoveryReadFailures += 1
        let delay: Milliseconds = 1_000 << (recoveryReadFailures - 1)
        log(.warning, "PID 1's journal could not be read for missed runs: reading it again in \(delay / 1_000) s (\(recoveryReadFailures) of \(Self.recoveryReadLimit))")
        if readiness == .starting { extendStart(status: "Reading PID 1's journal again in \(delay / 1_000) s") }
        effects.append(.arm(.retryRecovery, at: uptime + delay))
        return true
    }

    /// What to read at start: lifecycled's own dispatches beyond each record (and of units with none), PID 1's runs
    /// since the previous lifecycled stopped tracking, and the end of each stored run the listing no longer shows.
    private mutating func startQuery(listing: [UnitSnapshot]) -> RecoveryQuery {
        guard readsJournal else { return RecoveryQuery(history: .none, catchUp: [], endings: []) }
        let units = caughtUp(listing: listing)
        return RecoveryQuery(
            history: readsManagerJournal ? .sinceLastTracking(orWholeJournal: configuration.historyFromJournal) : .none,
            catchUp: units.sorted().map { DispatchCatchUp(unit: $0, recordedSequence: tracker.records[$0]?.sequence) },
            endings: readsManagerJournal
                ? tracker.runsToLookUp(in: listing).map { UnitRunID(unit: $0.unit, invocationID: $0.invocationID) } : [],
            patterns: watchedPatterns, watched: watchedPatterns,
            barrier: readsManagerJournal ? nextHistoryBarrier() : nil
        )
    }

    /// A new barrier for a recovery's history (``JournalBarrier``), written with its first read.
    private mutating func nextHistoryBarrier() -> JournalBarrier {
        journalBarriers += 1
        historyBarrierReads = 0
        return JournalBarrier(number: journalBarriers, write: true)
    }

    /// The journal did not show the recovery's barrier yet: PID 1's entries logged before the listing may still be on
    /// their way, so the same query is asked again (without writing the probe again) 10 ms, 20 ms … at most a
    /// second later. After ``JournalBarrier/patience`` the history is read as far as journald wrote it, and said.
    ///
    /// - Returns: whether the answer waits for another read.
    private mutating func waitsForHistoryBarrier(_ answer: RecoveryAnswer) -> Bool {
        guard !answer.barrierSeen, var query = lastRecoveryQuery, var barrier = query.barrier else { return false }
        historyBarrierReads += 1
        if historyBarrierReads >= JournalBarrier.readLimit {
            log(.warning, "The journal did not show lifecycled's barrier within \(JournalBarrier.patience / 1_000) s: "
                + "reading PID 1's journal as far as journald wrote it; a run PID 1 logged before this recovery that "
                + "journald writes later is not seen (docs/journal.md, \"Where recovery resumes\")")
            query.barrier = nil
            readRecovery(query)
            return true
        }
        barrier.write = false
        query.barrier = barrier
        lastRecoveryQuery = query
        effects.append(.arm(.retryRecovery, at: uptime + JournalBarrier.delay(afterReads: historyBarrierReads)))
        return true
    }

    /// The units a start's query catches up with: those with a record or a state file set aside, and the watched
    /// units listed.
    private func caughtUp(listing: [UnitSnapshot]) -> Set<String> {
        Set(tracker.records.keys).union(unitsSetAside).union(listing.map(\.name).filter(configuration.isWatched))
    }

    /// The journal answered: what was missed is recorded first, then the listing, then the changes that waited. A
    /// history read in slices is recorded a slice at a time, the next slice read once the last one's runs are made;
    /// the listing is compared with the last slice only, which is the newest (the listing was taken before).
    ///
    /// The units that went live (``LiveUnits``) are left out: what the recovery records of them, their listing entry,
    /// was taken before their first change, and the dispatches the journal holds of them are their own.
    mutating func recover(with answer: RecoveryAnswer) {
        if let journaled = answer.journaledUnits { takeJournaledUnits(journaled) }
        guard case .recovering(let cause, let recoveryListing, let held) = phase else { return }
        guard !waitsForHistoryBarrier(answer), !retriesUnreadableHistory(answer) else { return }
        if !answer.isContinuation { journalPositions.recovered = answer.position }
        let isLastSlice = answer.resume == nil
        if isLastSlice { liveUnits?.isClosed = true }
        let listing = withoutLiveUnits(recoveryListing)
        var units: [UnitReconciliation]
        switch cause {
        case .start, .watchAdded:
            catchUp(with: answer.journaled.filter { !wentLive($0.key) })
            units = tracker.reconciliation(
                isLastSlice ? listing : [], endings: answer.endings, history: answer.history,
                watchedUntil: answer.watchedUntil
            )
        case .signalsLost(let since):
            // Without PID 1's journal there is nothing to add to what the listing shows.
            units = answer.history.map {
                tracker.reconciliation(
                    isLastSlice ? listing : [], endings: [:], history: $0, watchedUntil: Milliseconds(since / 1_000)
                )
            } ?? []
        }
        if liveUnits?.listed.isEmpty == false { units.removeAll { wentLive($0.unit) } }
        let runs = units.reduce(0) { $0 + $1.beginsLeft }
        let more = isLastSlice ? "" : " (so far: PID 1's journal is read in slices)"
        let level: LogLine.Level = answer.isContinuation ? .info : .notice
        if answer.isWholeJournal {
            log(level, "Rebuilding \(runs) runs of \(units.count) watched units from PID 1's journal\(more)")
        } else if !units.isEmpty {
            let when = cause == .start ? "while lifecycled was not running" : "while the bus was away"
            log(level, "Recovering what happened to \(units.count) units \(when): \(runs) runs began\(more)")
        }
        // Each unit's first run now, so that the versions of the runs the listing shows begin are read in one batch;
        // the rest when its turn comes.
        var first: [MappedTransition] = []
        for var unit in units {
            let transitions = nextRecovered(of: &unit, runs: 1, readsPastVersions: !answer.isWholeJournal)
            first += transitions
            work.append(contentsOf: transitions.lazy.map(Work.transition))
            if !unit.isDone { work.append(.reconciliation(unit, readsPastVersions: !answer.isWholeJournal)) }
        }
        prefetchVersions(for: first)
        if answer.isContinuation, var progress = recoveryProgress {
            progress.total += runs
            recoveryProgress = progress
        } else {
            recoveryProgress = RecoveryProgress(total: runs, reportedAt: uptime)
        }
        if let resume = answer.resume {
            // A long history: the start's code and heap are done with, and would count beside the journal's pages
            // the slices to come map (docs/PERFORMANCE.md, "A day-one history's memory, looked at again").
            if !answer.isContinuation, readiness == .starting { effects.append(.releaseMemory) }
            work.append(.readNextSlice(resume))
            return
        }
        if recoveryGap != nil {
            // The listing and the changes held come after the gap's runs (``RecoveryGap``).
            work.append(.finishRecovery(cause, watchedUnits: watchedCount(recoveryListing)))
            return
        }
        // After a gap's recovery, the listing is still the start's first (``RecoveryGap``).
        work.append(.resync(listing, isFirst: (recoveryBeforeGap ?? cause) == .start))
        work.append(contentsOf: held.changes.lazy.map(Work.change))
        work.append(.finishRecovery(cause, watchedUnits: watchedCount(recoveryListing)))
    }

    /// Asks for the next slice of the history, once the last one's runs are made: the units they made records for
    /// are caught up with already.
    private mutating func readNextSlice(_ resume: HistoryResume) {
        guard case .recovering(let cause, let listing, _) = phase else { return }
        readRecovery(RecoveryQuery(
            history: .resuming(resume), catchUp: [], endings: [],
            patterns: caughtUpPatterns(cause),
            caughtUp: caughtUp(listing: listing)
        ))
    }

    /// The patterns whose units a history's slices catch up with: those watched at start, those a reload added.
    private func caughtUpPatterns(_ cause: RecoveryCause) -> [UnitPattern] {
        switch cause {
        case .start: watchedPatterns
        case .watchAdded(let added): added.patterns
        case .signalsLost: []
        }
    }

    private mutating func catchUp(with journaled: [String: [JournaledDispatch]]) {
        for (unit, dispatches) in journaled.sorted(by: { $0.key < $1.key }) {
            if let record = tracker.records[unit] {
                log(.notice, "The state of \(unit) (dispatch \(record.sequence)) is \(dispatches.count) dispatches behind the journal: catching up")
            } else {
                let newest = dispatches.last?.sequence ?? 0
                log(.notice, "\(unit) has no state: rebuilt from its \(dispatches.count) dispatches in the journal, numbered after \(newest)")
            }
        }
        _ = take(tracker.catchUp(with: journaled))
    }

    private mutating func finishRecovery(_ cause: RecoveryCause?, watchedUnits: Int) {
        if readsGap(after: cause) { return }
        let cause = recoveryBeforeGap ?? cause
        recoveryBeforeGap = nil
        // The changes held were queued as work with the recovery; the requests run now.
        deferred.prepend(contentsOf: phase.held?.requests ?? [])
        phase = .tracking
        liveUnits = nil
        recoveryProgress = nil
        health.watchedUnits = watchedUnits
        report(status: "Watching \(watchedUnits) loaded units")
        if cause != nil { saveRecoveredJournalPosition() }
        if cause == .start {
            effects.append(.publishManager)
        } else if cause != nil, readiness == .readyInterfaceLost {
            // The bus came back (dbus-daemon restarted): the old connection's name and object are gone.
            readiness = .ready
            effects.append(.publishManager)
        }
    }

    /// The recovery's history is recorded, and signals were lost while it was read (``RecoveryGap``): the gap is read
    /// now, or once the units are listed again, with the listing and the changes held; the recovery's end waits for it.
    ///
    /// - Returns: whether a gap is read.
    private mutating func readsGap(after cause: RecoveryCause?) -> Bool {
        guard let gap = recoveryGap, case .recovering(_, let listing, let held) = phase else { return false }
        recoveryGap = nil
        if let cause, recoveryBeforeGap == nil { recoveryBeforeGap = cause }
        log(.notice, "systemd's signals were lost while PID 1's journal was read: reading what it logged since then \(gap.isListed ? "now" : "once systemd is back")")
        // The live units' signals may have been lost too: the gap's recovery reads their runs like any other unit's.
        liveUnits = nil
        if gap.isListed {
            recoverLostSignals(since: gap.since, listing: listing, held: held)
        } else {
            phase = .signalsLost(since: gap.since, held: held)
        }
        return true
    }

    /// While a long recovery runs: its progress in `systemctl status`, and more time from systemd before READY.
    mutating func reportRecoveryProgress() {
        guard var progress = recoveryProgress, uptime - progress.reportedAt >= RecoveryProgress.interval else { return }
        progress.reportedAt = uptime
        recoveryProgress = progress
        let status = "Recovering \(progress.done) of \(progress.total) runs"
        if readiness != .starting {
            report(status: status)
        } else {
            extendStart(status: status)
        }
    }

    /// Before READY: `status` in `systemctl status`, and more time before systemd's start timeout.
    private mutating func extendStart(status: String) {
        effects.append(.notify([.status(shown(status)), .extendTimeout(RecoveryProgress.timeoutExtension)]))
    }

    private func watchedCount(_ snapshots: [UnitSnapshot]) -> Int {
        snapshots.filter { configuration.isWatched($0.name) }.count
    }

    // MARK: - Work

    /// Performs one item of work.
    ///
    /// - Returns: the work it leads to, to do before anything queued after it.
    mutating func perform(_ item: Work) -> [Work] {
        switch item {
        case .transition(let transition):
            if transition.transition == .began, transition.isReconciled { recoveryProgress?.done += 1 }
            applyWhenKnown(transition)
        case .resync(let snapshots, let isFirst):
            if !startingRuns.isEmpty { snapshots.forEach { noteStarted($0) } }
            let transitions = tracker.resync(snapshots, isFirstListing: isFirst)
            prefetchVersions(for: transitions)
            return transitions.map(Work.transition)
        case .reconciliation(var unit, let readsPastVersions):
            // A round's worth of runs at a time: the rest stays in the history until its turn.
            let transitions = nextRecovered(of: &unit, runs: recoveryRound, readsPastVersions: readsPastVersions)
            prefetchVersions(for: transitions)
            let rest: [Work] = unit.isDone ? [] : [.reconciliation(unit, readsPastVersions: readsPastVersions)]
            return transitions.map(Work.transition) + rest
        case .change(let change):
            noteStarted(change.snapshot)
            let transitions = tracker.transitions(for: change.snapshot, whileReloading: change.whileReloading)
            if let begun = transitions.first(where: \.wasSeenOnlyOver) {
                log(.info, "\(begun.unit): run \(begun.invocationID) was seen only over (PID 1 sent its changes together, late): recorded as begun when it left the inactive state")
            }
            return transitions.map(Work.transition)
        case .timerJob(let outcome, let recoveredAt):
            recordTimerJob(outcome, recoveredAt: recoveredAt)
        case .readNextSlice(let resume):
            readNextSlice(resume)
        case .finishRecovery(let cause, let watchedUnits):
            finishRecovery(cause, watchedUnits: watchedUnits)
        }
        return []
    }

    /// Applies a transition once what it needs is known; everything else waits meanwhile. A run's end that a signal
    /// showed waits for what the run cost (``takeRunCost(_:of:)``) when nothing else is waiting, and a failed run's
    /// for what the journal tells of it (``applyWithJournal(_:)``). Before a run begins, the end of the unit's
    /// previous run is read from PID 1's journal when no signal showed it, then the new run's version.
    private mutating func applyWhenKnown(_ transition: MappedTransition) {
        // A run's cost is worth a round trip, not a backlog's worth of them: under a burst of changes (a churn of
        // units, the queue after a stalled bus) it is left unknown, so that the burst is not slowed.
        if transition.transition.endsRun, transition.transition != .endedUnknown, !transition.isReconciled,
            work.isEmpty, deferred.isEmpty, costAccounting.readsCost(ofEndOf: transition.unit)
        {
            awaited = .cost(of: transition)
            effects.append(.readRunCost(UnitRunID(unit: transition.unit, invocationID: transition.invocationID)))
            return
        }
        guard transition.transition == .began, unversionedRuns.remove(transition.invocationID) == nil else {
            applyWithJournal(transition)
            return
        }
        if !transition.isReconciled, let previous = tracker.unendedRun(of: transition.unit, before: transition.invocationID) {
            guard readsManagerJournal else {
                endUnknown(previous, before: transition)
                readVersion(transition)
                return
            }
            journalBarriers += 1
            awaited = .ending(of: previous, before: transition, reads: 1, barrier: journalBarriers)
            effects.append(.readRunEnding(
                unit: transition.unit, invocationID: previous,
                barrier: JournalBarrier(number: journalBarriers, write: true)
            ))
            return
        }
        readVersion(transition)
    }

    /// The next `runs` recovered runs of `unit`. Unless `readsPastVersions`, the runs that are over read no version:
    /// runs rebuilt on the first start are past, and their versions are not known (the unit's files are today's).
    private mutating func nextRecovered(
        of unit: inout UnitReconciliation, runs: Int, readsPastVersions: Bool
    ) -> [MappedTransition] {
        let transitions = unit.next(runs: runs)
        if !readsPastVersions {
            let running = unit.runningInvocationID
            let past = transitions.lazy.filter { $0.transition == .began && $0.invocationID != running }
            unversionedRuns.formUnion(past.map(\.invocationID))
        }
        return transitions
    }

    /// Asks for the versions of the runs among `transitions` that will read one, in one batch, when there are
    /// several: each begin then finds its version at hand instead of waiting for a round trip of its own.
    private mutating func prefetchVersions(for transitions: [MappedTransition]) {
        let runs = transitions.filter { transition in
            guard transition.transition == .began, !unversionedRuns.contains(transition.invocationID) else { return false }
            if case .none = configuration.versionSource(for: transition.unit) { return false }
            return true
        }
        guard runs.count > 1 else { return }
        effects.append(.prefetchVersions(runs.map { UnitRunID(unit: $0.unit, invocationID: $0.invocationID) }))
    }

    private mutating func readVersion(_ transition: MappedTransition) {
        let source = configuration.versionSource(for: transition.unit)
        if case .none = source {
            apply(transition, version: nil)
            return
        }
        awaited = .version(for: transition)
        effects.append(.readVersion(unit: transition.unit, invocationID: transition.invocationID, source: source))
    }

    mutating func takeEnding(_ ending: RunEnding?, of unit: String, invocationID: String, barrierSeen: Bool) {
        guard case .ending(let previous, let transition, let reads, _)? = awaited, transition.unit == unit,
            previous == invocationID
        else {
            log(.debug, "Ignored an ending of \(unit) that was not asked for")
            return
        }
        if ending == nil, !barrierSeen, reads < JournalBarrier.readLimit {
            // journald has not caught up with the change yet: slow, not silent.
            effects.append(.arm(.retryRunEnding, at: uptime + JournalBarrier.delay(afterReads: reads)))
            return
        }
        awaited = nil
        if let ending {
            // Seen while tracking, only too late: a plain end at PID 1's time, not a recovered one.
            let (end, time): (RunTransition, Milliseconds) = switch ending {
            case .endedCleanly(let time): (.endedCleanly, time)
            case .failed(let details, let time): (.failed(details), time)
            }
            apply(MappedTransition(unit: unit, transition: end, invocationID: previous, time: time, monotonicMicroseconds: 0), version: nil)
        } else {
            let why = barrierSeen ? "" : " (the journal did not catch up within \(JournalBarrier.patience / 1_000) s)"
            log(.info, "\(unit): no end of run \(previous) in PID 1's journal before run \(transition.invocationID): its end is unknown\(why)")
            endUnknown(previous, before: transition)
        }
        readVersion(transition)
    }

    /// The retry timer fired: the run's end is read again, looking for the barrier written at the first read.
    mutating func readRunEndingAgain() {
        guard case .ending(let previous, let transition, let reads, let barrier)? = awaited else { return }
        awaited = .ending(of: previous, before: transition, reads: reads + 1, barrier: barrier)
        effects.append(.readRunEnding(
            unit: transition.unit, invocationID: previous, barrier: JournalBarrier(number: barrier, write: false)
        ))
    }

    /// Run `previous` is over, since `next` began, but no source says how: a sleep marked unknown, never a crash, at
    /// the time the next run began (systemd sent both in one change).
    private mutating func endUnknown(_ previous: String, before next: MappedTransition) {
        let end = MappedTransition(
            unit: next.unit, transition: .endedUnknown, invocationID: previous, time: next.time,
            monotonicMicroseconds: next.monotonicMicroseconds
        )
        apply(end, version: nil)
    }

    /// The cost of a run that ended: recorded with its end. A unit whose cost systemd answered without knowing any
    /// of it is not asked again, nor, after a few such units, the host (``CostAccounting``); one that could not be
    /// read at all is asked at its next end.
    mutating func takeRunCost(_ cost: RunRecord?, of run: UnitRunID) {
        guard case .cost(var end)? = awaited, end.unit == run.unit, end.invocationID == run.invocationID else {
            log(.debug, "Ignored a cost of \(run.unit) that was not asked for")
            return
        }
        awaited = nil
        costAccounting.took(cost, of: run.unit)
        end.run = end.run.merging(cost ?? RunRecord())
        applyWithJournal(end)
    }

    mutating func takeVersion(_ version: String?, of unit: String) {
        guard case .version(let transition)? = awaited, transition.unit == unit else {
            log(.debug, "Ignored a version of \(unit) that was not asked for")
            return
        }
        awaited = nil
        apply(transition, version: version)
    }

    /// Applies a transition to its unit's record. A launch that waits for its run's start-up is written first when the
    /// transition ends that run (with the start-up the end tells) or begins another; a launch or wake of a run still
    /// activating waits for its start-up (``StartingRuns``).
    mutating func apply(_ transition: MappedTransition, version: String?) {
        releaseLaunch(before: transition)
        let timedRun = noteRun(transition)
        let trackerEffects = tracker.apply(transition, version: version, now: now, timedRun: timedRun)
        if transition.transition == .began, transition.awaitsStartup, transition.run.startupSeconds == nil {
            holdLaunch(of: transition, in: trackerEffects)
        }
        _ = take(trackerEffects)
        if let timedRun { noteSchedule(of: timedRun.elapse.timer) }
    }

    /// Turns the tracker's effects into the core's: saves at once, dispatches into the outbox.
    ///
    /// - Returns: the sequence number of the last dispatch, 0 when there was none.
    mutating func take(_ trackerEffects: [UnitTracker.Effect]) -> UInt64 {
        var sequence: UInt64 = 0
        for effect in trackerEffects {
            switch effect {
            case .persist(let record):
                effects.append(.save(record))
            case .dispatch(let unit, _, _, _, let number, let entry):
                let pending = PendingDispatch(unit: unit, sequence: number, entry: entry)
                if !startingRuns.hold(pending) { outbox.enqueue(pending) }
                sequence = number
            case .refused(let unit, let event, let error):
                log(.debug, "Ignored \(event) of \(unit): \(error)")
            }
        }
        return sequence
    }
}
