// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// lifecycled's state and every decision it makes, without I/O, clock or concurrency: one loop hands it one
/// ``DaemonInput`` at a time with the current time, and performs the ``DaemonEffect``s it returns, in order.
///
/// Ordering is by construction:
/// - a change of a unit is applied only after what was missed before it is recorded: changes wait in the phase
///   (``DaemonPhase``) while the listing and the journal say what happened before them;
/// - a run that begins waits for its version to be read, and every input behind it waits too, so nothing (another
///   change, a D-Bus call, a reload) runs between mapping a change and applying it;
/// - manual and custom events wait until recovery is done, so they never take a lower sequence number than a run that
///   happened before them.
public struct DaemonCore: Sendable {
    /// Work that one input leads to, done in order; a begin that needs its version stops it until the version is read.
    enum Work: Sendable {
        case transition(MappedTransition)
        /// A unit's recovered transitions, not made yet; past runs read no version unless `readsPastVersions`.
        /// (Indirect: it would make every queued transition as large as itself.)
        indirect case reconciliation(UnitReconciliation, readsPastVersions: Bool)
        /// A listing taken as the state of every watched unit (the first at start is the baseline).
        case resync([UnitSnapshot], isFirst: Bool)
        case change(BufferedChange)
        /// What became of an elapse whose unit began no run, in order with the unit's changes (``TimerJobOutcome``);
        /// with the time PID 1 failed its job for one recovered from its journal.
        case timerJob(TimerJobOutcome, recoveredAt: Milliseconds?)
        /// The runs of a history slice are made: the next slice is read (``HistoryResume``).
        indirect case readNextSlice(HistoryResume)
        /// The listing is taken (after a recovery when `cause` is set): tracking goes on.
        case finishRecovery(RecoveryCause?, watchedUnits: Int)
    }

    /// What a begin waits for.
    enum AwaitedAnswer: Sendable {
        /// How the unit's previous run ended, which no signal showed: the reads so far, and the barrier written.
        case ending(of: String, before: MappedTransition, reads: Int, barrier: UInt64)
        /// The unit's version.
        case version(for: MappedTransition)
        /// The archived records of units shown for the first time, before `input`, which shows them, is taken; and
        /// how many reads in a row could not read the archive.
        case archive(of: [String], then: DaemonInput, failures: Int)
        /// What the run that `end` ends cost, before the end is recorded.
        case cost(of: MappedTransition)
        /// What the journal tells of the failed run that `end` ends (``RunJournalQuery``), and the reads so far.
        case runJournal(of: MappedTransition, query: RunJournalQuery, reads: Int)

        /// The unit whose begin waits; nil for an archive look-up.
        var unit: String? {
            switch self {
            case .ending(_, let transition, _, _), .version(let transition), .cost(let transition),
                .runJournal(let transition, _, _):
                transition.unit
            case .archive: nil
            }
        }
    }

    public internal(set) var phase: DaemonPhase = .starting(held: HeldInputs())
    public internal(set) var tracker: UnitTracker
    public internal(set) var dispatchCount = 0
    var outbox: Outbox
    /// Whether a look at the journal (``DaemonEffect/lookUp(_:probe:sync:)``) waits for its answer, and whether
    /// another was asked for meanwhile: the driver looks on a thread of its own, one look at a time.
    var look = LookInFlight()
    var work = Queue<Work>()
    /// Inputs that came while work was waiting, in order.
    var deferred = Queue<DaemonInput>()
    /// While recovering: the units whose changes are applied as they come (``LiveUnits``), nil until the journal
    /// named its units; their changes that came while work waited, and the work they lead to, both taken before the
    /// recovery's own work.
    var liveUnits: LiveUnits?
    var liveInputs = Queue<DaemonInput>()
    var liveWork = Queue<Work>()
    /// When a live unit's change or job last came during this recovery (``recoveryRound``).
    var liveChangeCameAt: Uptime?
    /// The begin waiting for an answer before it can be applied, and since when (each answer, a retry's too, moves it).
    var awaited: AwaitedAnswer? {
        didSet { awaitedSince = awaited == nil ? nil : uptime }
    }
    var awaitedSince: Uptime?
    var isReloading = false
    /// Runs rebuilt from the whole journal at the first start, whose begins read no version.
    var unversionedRuns: Set<String> = []
    var readiness = Readiness.starting
    var statusText = "Starting"
    /// Units whose state file could not be read at start: they start fresh, numbered after their last dispatch.
    let unitsSetAside: Set<String>
    /// Whether lifecycled's own journal entries can be read and trusted (only root's are, and only root reads all).
    let readsJournal: Bool
    /// Whether PID 1's journal entries are read for missed runs (the system manager, as root).
    let readsManagerJournal: Bool
    /// Why the state directory could not be written at start: degraded until a save goes through.
    let stateDirectoryProblem: StateDirectoryProblem?
    /// What the state directory did not take, tried again on a timer.
    var unsaved = UnsavedState()
    /// The two clocks as the input came: the wall clock dates what happens, the monotonic one times what waits
    /// (``Uptime``).
    var now: Milliseconds = 0
    var uptime = Uptime.zero
    var effects: [DaemonEffect] = []
    /// lifecycled's own figures for the metrics file, counted since this process started.
    public internal(set) var health: DaemonHealth
    /// When the metrics file is written next.
    var metricsSchedule = MetricsSchedule()
    /// The health and the path of the last metrics write: a difference is a change to write.
    var metricsHealth: DaemonHealth?
    var metricsPath: String?
    /// A record changed since the last metrics write.
    var haveRecordsChanged = false
    /// The runs a recovery begins, and how many it has recorded: shown while it takes long.
    var recoveryProgress: RecoveryProgress?
    /// The metrics timer fired and has not been planned for yet (an answer was awaited).
    var isMetricsTimerDue = false
    /// How far PID 1's journal is taken into account, and when that is saved.
    var journalPositions = JournalPositionKeeper()
    /// The units systemd unloaded, archived once gone long enough.
    var goneUnits = GoneUnits()
    /// Units the archive was found not to hold, which later inputs do not ask it about again (``awaitsArchive``).
    var notArchived = NotArchivedUnits()
    /// Whether systemd can tell what a run cost, per unit and for the host, so that a host whose cgroups account
    /// nothing pays no round trip a run.
    var costAccounting = CostAccounting()
    /// When a loss of systemd's signals was first noticed, if it is not taken yet (it may wait behind work): the
    /// history after it is read from then, not from when it is taken.
    var signalsLostAt: Milliseconds?
    /// Signals were lost while the recovery under way read PID 1's journal: the gap is read before it ends.
    var recoveryGap: RecoveryGap?
    /// The recovery whose end waits for a gap's (``RecoveryGap``): its end's duties (READY, the bus interface) are
    /// done when the gap's recovery ends.
    var recoveryBeforeGap: RecoveryCause?
    /// The recovery's last query, asked again when PID 1's journal could not be read, and how many times in a row it
    /// could not.
    var lastRecoveryQuery: RecoveryQuery?
    var recoveryReadFailures = 0
    /// The barriers written for run endings so far (``JournalBarrier``).
    var journalBarriers: UInt64 = 0
    /// How many reads of the recovery under way found its barrier not in the journal yet.
    var historyBarrierReads = 0
    /// The units a reload began to watch, rebuilt from PID 1's journal at the next listing (``noteAddedPatterns``).
    var unitsToRebuild: UnitSelection?
    /// Launches and wakes waiting for their run's start-up.
    var startingRuns = StartingRuns()
    /// The timers of the watched services and their elapses not yet resolved.
    var timerBook = TimerBook()
    /// Whether the timers' misses while lifecycled was away were asked for: once, at the first read of the timers.
    var timersCaughtUp = false
    /// Whether the timers read after the last listing have not answered yet.
    var timersAwaited = false

    public init(
        tracker: UnitTracker, unitsSetAside: Set<String> = [], readsJournal: Bool, readsManagerJournal: Bool,
        stateDirectoryProblem: StateDirectoryProblem? = nil
    ) {
        self.tracker = tracker
        self.stateDirectoryProblem = stateDirectoryProblem
        self.unitsSetAside = unitsSetAside
        self.readsJournal = readsJournal
        self.readsManagerJournal = readsManagerJournal && readsJournal
        self.outbox = Outbox(confirms: readsJournal)
        self.health = DaemonHealth(startTime: 0, bus: tracker.configuration.bus.rawValue)
    }

    public var configuration: LifecycleConfiguration { tracker.configuration }
    /// Every watched pattern.
    var watchedPatterns: [UnitPattern] { configuration.watch.map(\.pattern) }
    /// Dispatches made but not yet taken by the journal.
    public var undeliveredCount: Int { outbox.undeliveredCount }

    /// Takes one input at wall-clock time `now` (ms since the epoch) and monotonic time `uptime`, and returns what to
    /// do, in order.
    public mutating func handle(_ input: DaemonInput, now: Milliseconds, uptime: Uptime) -> [DaemonEffect] {
        self.now = now
        self.uptime = uptime
        if input.losesSignals, signalsLostAt == nil { signalsLostAt = now }
        noteLiveChange(input)
        if isBusy, input.waitsForWork {
            if takesLive(input) { liveInputs.append(input) } else { deferred.append(input) }
            // SIGTERM waits for the work in hand, not for good: an answer that never comes must not hold it.
            if input == .stop { effects.append(.arm(.stopDeadline, at: uptime + Self.stopPatience)) }
        } else if case .recovered = input, awaited != nil {
            // A slice of PID 1's history answered while an input that came before it waits for the archive (the
            // slice was asked for in the same round): taken first once that answer is in, never in its place.
            deferred.prepend(contentsOf: [input])
        } else {
            process(input)
        }
        drain()
        if let batch = outbox.takeBatch() { effects.append(.send(batch)) }
        // A save's answer comes before the effects after the save (a send, say): the file is planned after those,
        // unless the answer changed what is degraded.
        if !input.isSaveAnswer || health.degradations != metricsHealth?.degradations {
            planMetrics(timerFired: input == .timer(.writeMetrics))
        }
        defer { effects = [] }
        return effects.coalescingSaves()
    }

    /// True while work or earlier inputs wait.
    var isBusy: Bool {
        awaited != nil || !work.isEmpty || !deferred.isEmpty || !liveWork.isEmpty || !liveInputs.isEmpty
    }

    /// True while the journal's answers to a recovery are awaited: work waits for them, not only changes.
    var isRecovering: Bool {
        if case .recovering = phase { true } else { false }
    }

    private mutating func drain() {
        while awaited == nil, phase != .stopping {
            if let item = liveWork.popFirst() {
                // A live unit's change does not wait for the recovery's rounds (``LiveUnits``).
                liveWork.prepend(contentsOf: perform(item))
            } else if let input = liveInputs.popFirst() {
                process(input)
            } else if !work.isEmpty {
                // A long history is recorded in rounds: the state files hold at most a round's dispatches.
                if isRecovering, recoveryWaitsForJournal { return }
                if let item = work.popFirst() { work.prepend(contentsOf: perform(item)) }
            } else if let input = deferred.popFirst() {
                process(input)
                // The input may have kept live inputs behind it (``takeDeferredLiveInputs()``).
                takeDeferredLiveInputs()
            } else {
                return
            }
        }
    }

    mutating func process(_ input: DaemonInput) {
        if awaitsArchive(before: input) { return }
        switch input {
        case .start: start()
        case .listing(let snapshots):
            noteLoaded(snapshots)
            take(snapshots)
            readTimers(of: snapshots)
        case .changed(let snapshot):
            if goneUnits.returned(snapshot.name) { haveRecordsChanged = true }
            timerBook.noteJob(snapshot.jobID, of: snapshot.name)
            take(BufferedChange(snapshot: snapshot, whileReloading: isReloading))
        case .jobRemoved(let unit, let jobID, let result, let unitResult):
            takeJobRemoved(unit: unit, jobID: jobID, result: result, unitResult: unitResult)
        case .timerChanged(let timer): takeTimer(timer)
        case .timersRead(let timers): takeTimers(timers)
        case .missedStartsRead(let query, let jobs): takeMissedStarts(jobs, for: query)
        case .unitRemoved(let unit): unitRemoved(unit)
        case .reloading(let active):
            isReloading = active
            // A reload may turn accounting on or off: what was learned of it is learned again.
            if !active { costAccounting.reloaded() }
        case .signalsLost:
            log(.notice, "systemd left the bus: what happens until it is back is read from its journal")
            loseSignals()
        case .connectionLost(let reason):
            log(.warning, "Lost the bus connection, reconnecting: \(reason)")
            health.busReconnects += 1
            if readiness == .ready { readiness = .readyInterfaceLost }
            loseSignals()
            effects.append(.notify([.status(shown("Reconnecting to the bus: \(reason)"))]))
        case .recovered(let answer): recover(with: answer)
        case .journaledUnitsRead(let units): takeJournaledUnits(units)
        case .versionRead(let unit, let version): takeVersion(version, of: unit)
        case .runCostRead(let run, let cost): takeRunCost(cost, of: run)
        case .runEndingRead(let unit, let id, let ending, let seen):
            takeEnding(ending, of: unit, invocationID: id, barrierSeen: seen)
        case .runJournalRead(let query, let findings): takeRunJournal(findings, for: query)
        case .saved(let unit, let failure): saved(unit: unit, failure: failure)
        case .journalPositionSaved(let position, let failure): journalPositionSaved(position, failure: failure)
        case .sent(let count, let refused): sent(count: count, refused: refused)
        case .lookedUp(let dispatches, let check): lookedUp(dispatches, check: check)
        case .journalTailRead(let position): takeJournalTail(position)
        case .archiveRead(let records): takeArchive(records)
        case .managerPublished: becomeReady()
        case .request(let request, let token): handle(request, token: token, input: input)
        case .reloaded(let result): reload(result)
        case .timer(let timer): fire(timer)
        case .stop: stop()
        }
    }

    // MARK: - Start and stop

    private mutating func start() {
        health.startTime = now
        if let problem = stateDirectoryProblem { cannotWrite(problem) }
        if readsJournal { adoptLeftovers() }
        let patterns = watchedPatterns
        guard !patterns.isEmpty else {
            log(.notice, "No units are watched: add patterns to \"watch\" in the configuration")
            statusText = "Watching no units"
            phase = .tracking
            effects.append(.publishManager)
            return
        }
        effects.append(.watch(patterns))
    }

    mutating func stop() {
        // A D-Bus call held for a recovery that will not finish is answered, not left to its caller's timeout.
        for case .request(_, let token) in phase.held?.requests ?? [] {
            effects.append(.reply(token, .failure(.stopping)))
        }
        phase = .stopping
        // A launch waiting for its start-up is written now, without: lifecycled may not start again.
        releaseAllLaunches()
        let flushed = outbox.takeBatch()
        if let flushed { effects.append(.send(flushed)) }
        effects.append(.notify([.stopping]))
        let refused = outbox.undeliveredCount - (flushed?.count ?? 0)
        if refused > 0 {
            log(.warning, "Stopping with \(refused) dispatches the journal refused; they are sent at the next start")
        } else if outbox.unconfirmedCount > 0 {
            log(.info, "Stopping with \(outbox.unconfirmedCount) dispatches the journal has not shown yet; the next start looks for them")
        }
        if !unsaved.units.isEmpty {
            log(.warning, "Stopping with \(unsaved.units.count) records the state directory did not take; the next "
                + "start catches them up from the journal")
        }
        log(.info, "Stopped after \(dispatchCount) dispatches")
        effects.append(.exit)
    }

    /// READY=1 once the first recovery is done and the D-Bus interface is published (or given up on).
    private mutating func becomeReady() {
        guard readiness == .starting else { return }
        readiness = .ready
        effects.append(.notify([.ready, .status(shown(statusText))]))
        // The tracking entry says it in the journal ("Tracking: Watching N loaded units"): no second log line.
        effects.append(.markTracking(status: statusText))
        // Loading, the journal checks and the first listing are over: what they freed can go.
        effects.append(.releaseMemory)
    }

    /// Shows `status` in `systemctl status` (once READY=1 was sent; until then it waits for READY=1).
    mutating func report(status: String) {
        guard status != statusText else { return }
        statusText = status
        if readiness != .starting { effects.append(.notify([.status(shown(status))])) }
    }

    /// Shows the status again: what is degraded changed.
    mutating func showStatusAgain() {
        if readiness != .starting { effects.append(.notify([.status(shown(statusText))])) }
    }

    /// `status` as `systemctl status` shows it: what is degraded comes first, whatever else is going on.
    func shown(_ status: String) -> String {
        health.degradations.shown(status)
    }

    // MARK: - Requests, reloads, timers

    private mutating func handle(_ request: EventRequest, token: ReplyToken, input: DaemonInput) {
        // Held until the recovery is done; stopping, a request is refused.
        guard phase == .tracking else {
            if !phase.hold(request: input) { effects.append(.reply(token, .failure(.stopping))) }
            return
        }
        let result = switch request.event {
        case .lifecycle(let event): tracker.manual(event, unit: request.unit, data: request.data, now: now)
        case .custom(let name): tracker.custom(name, unit: request.unit, data: request.data, now: now)
        }
        effects.append(.reply(token, result.map { take($0) }))
    }

    private mutating func reload(_ result: Result<ReloadedConfiguration, ConfigurationReloadError>) {
        effects.append(.notify([.reloading]))
        defer { effects.append(.notify([.ready])) }
        switch result {
        case .failure(let error):
            log(.error, "Failed to reload the configuration, keeping the previous one: \(error)")
            effects.append(.notify([.status(shown("Configuration reload failed: \(error)"))]))
        case .success(let reloaded):
            let previous = configuration
            let loaded = reloaded.configuration
            tracker.reconfigure(loaded, timeZone: reloaded.timeZone)
            health.bus = loaded.bus.rawValue
            log(.notice, "Reloaded the configuration; watching \(loaded.patterns)")
            if loaded.patterns != previous.patterns || loaded.bus != previous.bus {
                effects.append(.watch(loaded.watch.map(\.pattern)))
                noteAddedPatterns(loaded, previous: previous)
            }
            // A shorter archive_after_minutes may make gone units due sooner than the timer is armed for.
            planArchiving()
        }
    }

    /// Patterns a reload added: with `history_from_journal`, the units they add are rebuilt from PID 1's whole journal
    /// at the listing that follows, as on a first start (docs/configuration.md, `history_from_journal`).
    private mutating func noteAddedPatterns(_ loaded: LifecycleConfiguration, previous: LifecycleConfiguration) {
        let before = previous.watch.map(\.pattern)
        let added = loaded.watch.map(\.pattern).filter { !before.contains($0) }
        guard loaded.historyFromJournal, readsManagerJournal, phase == .tracking, loaded.bus == previous.bus, !added.isEmpty
        else { return }
        unitsToRebuild = UnitSelection(patterns: added, excluded: before)
    }

    private mutating func fire(_ timer: DaemonTimer) {
        switch timer {
        case .watchdog:
            pingWatchdog()
        case .retryDelivery:
            health.journalRetries += 1
            outbox.retryDue()
        case .confirmDelivery:
            lookForUnconfirmed()
        case .writeMetrics:
            break  // planMetrics, after every input, decides
        case .advanceJournalPosition:
            readJournalTail()
        case .archiveGoneUnits:
            archiveGoneUnits()
        case .retryRunEnding:
            readRunEndingAgain()
        case .retryRunJournal:
            readRunJournalAgain()
        case .startupPatience:
            releaseOverdueLaunches()
        case .retrySaves:
            retrySaves()
        case .stopDeadline:
            stopWithoutWaiting()
        case .retryRecovery:
            if case .recovering = phase, let query = lastRecoveryQuery { readRecovery(query) }
        case .retryArchive:
            readArchiveAgain()
        }
    }

    mutating func log(_ level: LogLine.Level, _ message: String) {
        effects.append(.log(LogLine(level, message)))
    }
}

extension DaemonInput {
    /// Whether the input is the answer to a save, which the loop gives for every save.
    var isSaveAnswer: Bool {
        switch self {
        case .saved, .journalPositionSaved: true
        default: false
        }
    }

    /// Whether the input says systemd's signals are lost from now on.
    var losesSignals: Bool {
        switch self {
        case .signalsLost, .connectionLost: true
        default: false
        }
    }

    /// Whether the input waits behind earlier work: everything that can change a record. Answers to the core's own
    /// effects and timers cannot wait, or the work they unblock would never go on.
    var waitsForWork: Bool {
        switch self {
        case .versionRead, .runCostRead, .runEndingRead, .runJournalRead, .sent, .lookedUp, .managerPublished, .timer, .recovered,
            .journaledUnitsRead, .journalTailRead, .archiveRead, .saved, .journalPositionSaved, .timersRead, .missedStartsRead:
            false
        default: true
        }
    }
}
