// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// Drives a ``DaemonCore`` as the loop does, with no I/O: a journal that is an array, answers given at once or held
/// back by the test, a clock the test sets.
struct CoreHarness {
    static let unit = "web.service"
    static let utc = TimeZoneRules.utc
    /// 2026-03-01T10:00:00Z, in ms.
    static let t0: Milliseconds = 1_772_359_200_000

    var core: DaemonCore
    /// The wall clock. The monotonic clock moves with it, except by ``wallStep``: what the wall clock was stepped by
    /// (`date -s`), which no deadline follows. Timers are kept in ``armed`` as the wall-clock times they fire at.
    var now: Milliseconds = t0
    var wallStep: Milliseconds = 0
    var uptime: Uptime { Uptime(milliseconds: now - wallStep) }
    /// What reached the journal, in order.
    var journal: [PendingDispatch] = []
    var saved: [UnitRecord] = []
    /// While set, the state directory takes no save, for this reason.
    var unwritable: StateDirectoryProblem?
    var replies: [ReplyToken: Result<UInt64, EventRequestError>] = [:]
    var logs: [LogLine] = []
    /// The timers armed, by the monotonic moment each fires at; ``armed`` shows them as wall-clock times.
    var armedAt: [DaemonTimer: Uptime] = [:]
    var armed: [DaemonTimer: Milliseconds] {
        get { armedAt.mapValues { $0.milliseconds + wallStep } }
        set { armedAt = newValue.mapValues { Uptime(milliseconds: $0 - wallStep) } }
    }
    /// Each metrics write: when, where and what.
    var metricsWrites: [(time: Milliseconds, path: String, text: String)] = []
    /// Version reads not answered yet, when ``holdVersions`` is set.
    /// What each run cost (by InvocationID), answered to ``DaemonEffect/readRunCost(_:)``: a run not here cost what
    /// the host cannot say, nil if it could not be read. The runs whose cost was asked, in order; with
    /// ``holdCosts``, left unanswered.
    var runCosts: [String: RunRecord?] = [:]
    var costReads: [UnitRunID] = []
    var heldCostReads: [UnitRunID] = []
    var holdCosts = false
    var heldVersionReads: [String] = []
    var holdVersions = false
    var version: String? = "1"
    /// How many further sends the journal refuses.
    var refusals = 0
    /// The recovery answer the journal gives; nil holds the query back.
    var recovery: RecoveryAnswer? = RecoveryAnswer()
    /// The reads of PID 1's journal for a history that fail, by number (the first read is 1).
    var unreadableHistoryReads: Set<Int> = []
    /// The answers to the queries for a history's later slices, in order.
    var laterSlices: [RecoveryAnswer] = []
    /// Recovery reads held unanswered, when ``holdRecoveryReads`` is set (the driver reads PID 1's journal on the
    /// journal's thread, and its answer comes as a later input); ``answerHeldRecoveryRead()`` answers the oldest.
    var holdRecoveryReads = false
    var heldRecoveryReads: [(query: RecoveryQuery, number: Int)] = []
    /// How many reads of PID 1's journal come before journald writes what PID 1 logged before the listing: such a
    /// read sees no barrier, and a read without one takes ``staleRecovery``, the history without it.
    var journaldLag = 0
    var staleRecovery: RecoveryAnswer? = RecoveryAnswer()
    /// The recovery barriers written, by number.
    var historyBarriersWritten: [UInt64] = []
    var recoveryQueries: [RecoveryQuery] = []
    /// Every unit PID 1's journal names (`UNIT=`), when set: a held recovery read then names those its
    /// ``HistoryReading`` asks for at once (``DaemonInput/journaledUnitsRead(_:)``), as the driver does long before
    /// the answer.
    var journalUnitNames: Set<String>?
    /// Where the journal ends, for ``DaemonEffect/readJournalTail``; and every position saved, in order.
    var journalTail: JournalPosition?
    var savedPositions: [JournalPosition] = []
    /// Entries the journal holds already (for look-ups), by unit and sequence ("web.service#3").
    var alreadyJournaled: Set<String> = []
    /// Entries sent but not yet written by journald (a stalled journald), by unit and sequence.
    var notYetWritten: Set<String> = []
    /// What look-ups say besides: the oldest time the journal holds, and whether PID 1's entry about this process is
    /// there (evidence that an earlier process's entries were all taken).
    var journalHeldSince: Milliseconds?
    var earlierProcessesDone = true
    var journalReadable = true
    /// False for a journald that takes entries and stores none of them (MaxLevelStore=notice, Storage=none).
    var journalStores = true
    /// Each look-up, in order.
    var lookUps: [[PendingDispatch]] = []
    /// Look-ups held unanswered, when ``holdLookUps`` is set (the driver looks on a thread of its own, and its
    /// answer comes as a later input); ``answerHeldLookUp()`` answers the oldest.
    var holdLookUps = false
    var heldLookUps: [(dispatches: [PendingDispatch], probe: UInt64?)] = []
    /// How many further look-ups find nothing new (journald stalled): each written entry shows only after them.
    var stallLookUps = 0
    /// Whether a look that finds entries gets the journal synced (``JournalCheck/synced``).
    var journalSyncs = true
    /// The probes journald wrote; while ``holdProbes`` (a stalled journald) it writes none.
    var probes: Set<UInt64> = []
    var holdProbes = false
    /// Every notification to the service manager, in order.
    var notifications: [ServiceNotification] = []
    var watched: [[UnitPattern]] = []
    /// How runs ended by PID 1's journal, by InvocationID, for ``DaemonEffect/readRunEnding(unit:invocationID:)``.
    var runEndings: [String: RunEnding] = [:]
    /// How many reads of a run's end find the journal behind (a stalled journald: neither the end nor the barrier);
    /// and every read so far.
    var journalLagReads = 0
    var endingReads = 0
    /// What the journal tells of failed runs, by InvocationID, one answer a read: each read takes the first answer
    /// left, and the last is kept for the reads after it. A run not here: the barrier seen, no killer, and a host
    /// that keeps no core dumps. Every query so far, in order.
    var runJournals: [String: [RunJournalFindings]] = [:]
    var runJournalQueries: [RunJournalQuery] = []
    /// Start-up's milestones in order: "leftovers" (the look-up of pending entries), "ready", "release" (memory).
    var milestones: [String] = []
    /// Each batch of runs whose versions were asked for ahead.
    var prefetched: [[UnitRunID]] = []
    /// Version reads, by unit, in order.
    var versionReads: [String] = []
    /// The archive: each archived unit's record; every look-up in it, in order; whether it can be read.
    var archive: [String: UnitRecord] = [:]
    var archiveReads: [[String]] = []
    var archiveReadable = true
    /// The retention cut-off each archiving was given.
    var archiveExpiredBefore: [Milliseconds?] = []
    /// The timers of the watched services, answered to ``DaemonEffect/readTimers(_:)``, and every read, in order.
    var timers: [TimerSnapshot] = []
    var timerReads: [[String]] = []
    /// PID 1's failed start jobs, answered to ``DaemonEffect/readMissedStarts(_:)``, and every query, in order.
    var failedStarts: [FailedStartJob] = []
    var missedStartQueries: [MissedStartQuery] = []
    /// Every effect performed, in order, and `exit` when the loop ended.
    var performed: [DaemonEffect] = []

    init(
        records: [UnitRecord] = [], pattern: String = "web*.service", autotracking: Bool = true,
        metricsFile: String? = nil, archiveAfterMinutes: Int = LifecycleConfiguration.defaultArchiveAfterMinutes,
        stateDirectoryProblem: StateDirectoryProblem? = nil
    ) throws {
        let rule = WatchRule(pattern: try UnitPattern(pattern), autotrackingEnabled: autotracking)
        let configuration = LifecycleConfiguration(
            watch: [rule], metricsFile: metricsFile, archiveAfterMinutes: archiveAfterMinutes
        )
        let tracker = UnitTracker(configuration: configuration, timeZone: Self.utc, records: records)
        core = DaemonCore(
            tracker: tracker, readsJournal: true, readsManagerJournal: true, stateDirectoryProblem: stateDirectoryProblem
        )
    }

    /// Hands `input` to the core and performs its effects, answering what can be answered at once.
    mutating func send(_ input: DaemonInput) {
        // The daemon's loop, with this harness's journal, bus and files.
        let goesOn = DaemonLoop.run(input, handle: { core.handle($0, now: now, uptime: uptime) }) { effect in
            performed.append(effect)
            return perform(effect)
        }
        if !goesOn { performed.append(.exit) }
    }

    private mutating func perform(_ effect: DaemonEffect) -> DaemonInput? {
        switch effect {
        case .save(let record):
            if let unwritable { return .saved(unit: record.unit, failure: unwritable) }
            saved.append(record)
            return .saved(unit: record.unit, failure: nil)
        case .send(let batch):
            for (index, dispatch) in batch.enumerated() {
                if refusals > 0 {
                    refusals -= 1
                    return .sent(count: index, refused: true)
                }
                journal.append(dispatch)
                if !journalStores { notYetWritten.insert("\(dispatch.unit)#\(dispatch.sequence)") }
            }
            return .sent(count: batch.count, refused: false)
        case .writeProbe(let number, _):
            if !holdProbes, journalStores { probes.insert(number) }
        case .lookUp(let dispatches, let probe, _):
            if !milestones.contains("leftovers") { milestones.append("leftovers") }
            lookUps.append(dispatches)
            if holdLookUps {
                heldLookUps.append((dispatches, probe))
                return nil
            }
            return lookedUp(dispatches, probe: probe)
        case .prefetchVersions(let runs): prefetched.append(runs)
        case .readVersion(let unit, _, _):
            versionReads.append(unit)
            if holdVersions {
                heldVersionReads.append(unit)
                return nil
            }
            return .versionRead(unit: unit, version: version)
        case .readRunCost(let run):
            costReads.append(run)
            if holdCosts {
                heldCostReads.append(run)
                return nil
            }
            return .runCostRead(run, runCosts[run.invocationID] ?? RunRecord())
        case .readTimers(let units):
            timerReads.append(units)
            return .timersRead(timers)
        case .readMissedStarts(let query):
            missedStartQueries.append(query)
            return .missedStartsRead(query, failedStarts.filter { job in query.units[job.unit].map { job.time > $0 } ?? false })
        case .readRunEnding(let unit, let id, _):
            endingReads += 1
            let caughtUp = endingReads > journalLagReads
            return .runEndingRead(
                unit: unit, invocationID: id, ending: caughtUp ? runEndings[id] : nil, barrierSeen: caughtUp
            )
        case .readRunJournal(let query):
            runJournalQueries.append(query)
            let id = query.run.invocationID
            let answers = runJournals[id] ?? [
                RunJournalFindings(barrierSeen: true, coreDump: query.coreDumpSpan.map { _ in .unavailable })
            ]
            if answers.count > 1 { runJournals[id]?.removeFirst() }
            return .runJournalRead(query, answers[0])
        case .readRecovery(let query):
            recoveryQueries.append(query)
            if holdRecoveryReads {
                heldRecoveryReads.append((query, recoveryQueries.count))
                return journaledUnits(for: query).map(DaemonInput.journaledUnitsRead)
            }
            return recoveryAnswer(to: query, number: recoveryQueries.count)
        case .watch(let patterns): watched.append(patterns)
        case .publishManager: return .managerPublished(true)
        case .reply(let token, let result): replies[token] = result
        case .writeMetrics(let path, let text): metricsWrites.append((now, path, text))
        case .arm(let timer, let at): armedAt[timer] = at
        case .log(let line): logs.append(line)
        case .notify(let notifications):
            self.notifications += notifications
            if notifications.contains(.ready) { milestones.append("ready") }
        case .releaseMemory: milestones.append("release")
        case .trimHeap: milestones.append("trim")
        case .readJournalTail: return .journalTailRead(journalTail)
        case .readArchive(let units):
            archiveReads.append(units)
            return .archiveRead(archiveReadable ? units.compactMap { archive[$0] } : nil)
        case .archive(let records, let expiredBefore):
            archiveExpiredBefore.append(expiredBefore)
            for record in records {
                archive[record.unit] = record
            }
        case .saveJournalPosition(let position):
            if let unwritable { return .journalPositionSaved(position, failure: unwritable) }
            savedPositions.append(position)
            return .journalPositionSaved(position, failure: nil)
        case .markTracking, .exit: break
        }
        return nil
    }

    /// The journal's answer to the recovery's `query`, the `number`th read (the first is 1), as the harness's journal
    /// stands now; nil holds it back.
    private mutating func recoveryAnswer(to query: RecoveryQuery, number: Int) -> DaemonInput? {
        if let barrier = query.barrier, barrier.write { historyBarriersWritten.append(barrier.number) }
        if journaldLag > 0 {
            journaldLag -= 1
            if query.barrier != nil { return .recovered(.barrierNotSeen) }
            return staleRecovery.map(DaemonInput.recovered)
        }
        if unreadableHistoryReads.contains(number) {
            var unreadable = RecoveryAnswer()
            unreadable.isHistoryUnreadable = true
            unreadable.isContinuation = { if case .resuming = query.history { true } else { false } }()
            return .recovered(unreadable)
        }
        if case .resuming = query.history, !laterSlices.isEmpty {
            var slice = laterSlices.removeFirst()
            slice.isContinuation = true
            return .recovered(slice)
        }
        return recovery.map(DaemonInput.recovered)
    }

    /// What the journal names (``journalUnitNames``) for `query`, when its reading asks (the barrier seen).
    private func journaledUnits(for query: RecoveryQuery) -> JournaledUnits? {
        guard let names = journalUnitNames else { return nil }
        var reading = HistoryReading(query, kernelBoot: nil)
        if case .barrier = reading.next { reading.take(.barrier(seen: true)) }
        if case .tail = reading.next { reading.take(.tail(journalTail)) }
        guard case .journaledUnits(let watched)? = reading.next else { return nil }
        return JournaledUnits(logged: names.filter { name in watched.contains { $0.matches(name) } }, dispatched: [])
    }

    /// Answers the oldest recovery read held (``holdRecoveryReads``), as the journal stands now.
    mutating func answerHeldRecoveryRead() {
        let (query, number) = heldRecoveryReads.removeFirst()
        if let answer = recoveryAnswer(to: query, number: number) { send(answer) }
    }

    /// The journal's answer to a look-up of `dispatches`, as it stands now.
    private func lookedUp(_ dispatches: [PendingDispatch], probe: UInt64?) -> DaemonInput {
        guard journalReadable else { return .lookedUp(dispatches, nil) }
        var keys = Set(journal.map { "\($0.unit)#\($0.sequence)" }).union(alreadyJournaled).subtracting(notYetWritten)
        let stalled = stallLookUps > 0 && lookUps.count % (stallLookUps + 1) != 0
        if stalled { keys = alreadyJournaled }
        return .lookedUp(dispatches, JournalCheck(
            found: dispatches.map { keys.contains("\($0.unit)#\($0.sequence)") }, heldSince: journalHeldSince,
            earlierProcessesDone: earlierProcessesDone, probeFound: !stalled && probe.map(probes.contains) == true,
            synced: journalSyncs
        ))
    }

    /// Answers the oldest look-up held (``holdLookUps``), as the journal stands now.
    mutating func answerHeldLookUp() {
        let (dispatches, probe) = heldLookUps.removeFirst()
        send(lookedUp(dispatches, probe: probe))
    }

    /// Fires `timer` at the time it is armed for (now, when it is not armed).
    mutating func fire(_ timer: DaemonTimer) {
        now = max(now, armed.removeValue(forKey: timer) ?? now)
        send(.timer(timer))
    }

    /// "SEQUENCE EVENT INVOCATION[ reconciled]" of each dispatch of `unit` in the journal.
    func dispatches(of unit: String = unit) -> [String] {
        journal.filter { $0.unit == unit }.map { dispatch in
            let fields = Dictionary(dispatch.entry.fields.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
            let id = fields["LIFECYCLE_INVOCATION_ID"].map { " " + $0.prefix(1) } ?? ""
            let reconciled = fields["LIFECYCLE_RECONCILED"] == "true" ? " reconciled" : ""
            let unknown = fields["LIFECYCLE_RUN_END"] == "unknown" ? " unknown" : ""
            return "\(dispatch.sequence) \(fields["LIFECYCLE_EVENT"] ?? "?")\(id)\(reconciled)\(unknown)"
        }
    }

    // MARK: - Fixtures

    /// A run id made of one repeated letter, so that dispatch listings stay readable.
    /// The first start on a machine whose PID 1 journal holds 30 clean runs of web.service, read in slices of 25
    /// entries, each read held until the test answers it (``holdRecoveryReads``); after `listing`.
    static func slicedDayOne(listing: [UnitSnapshot] = []) throws -> CoreHarness {
        var h = try CoreHarness()
        var answers = DaemonCoreDeliveryTests.slices(
            of: historyEntries(DaemonCoreDeliveryTests.cleanRunList(30)), entriesPerSlice: 25
        )
        h.recovery = answers.removeFirst()
        h.laterSlices = answers
        h.holdRecoveryReads = true
        h.send(.start)
        h.send(.listing(listing))
        return h
    }

    static func run(_ letter: Character) -> String { String(repeating: letter, count: 32) }

    /// A snapshot of web.service; `second` is both its realtime (after ``t0``) and monotonic state-change time.
    static func snapshot(
        _ state: String, _ run: Character, second: UInt64, result: String = "success", unit: String = unit
    ) -> UnitSnapshot {
        UnitSnapshot(
            name: unit, activeState: ActiveState(state), subState: state == "active" ? "running" : "dead",
            invocationID: Self.run(run), result: result, execMainCode: 1, execMainStatus: result == "success" ? 0 : 3,
            stateChangeTimestamp: (UInt64(t0) + second * 1_000) * 1_000, stateChangeTimestampMonotonic: second * 1_000_000
        )
    }

    /// PID 1's journal entries for runs of web.service: each run begins at `began` and, when `ended` is set, ends
    /// cleanly or with `failure` (a Result) at that second.
    static func history(_ runs: [(run: Character, began: Int64, ended: Int64?, failure: String?)], unit: String = unit) -> RunHistory {
        RunHistory(entries: historyEntries(runs, unit: unit))
    }

    /// PID 1's entries about `runs`, oldest first.
    /// PID 1's entry `messageID` about run `run` of `unit`, at `second` after ``t0``, with `extra` fields.
    static func entry(
        _ messageID: String, of run: Character, second: Int64, _ extra: [String: String] = [:], unit: String = unit
    ) -> RunEnding.Entry {
        let fields = ["UNIT": unit, "INVOCATION_ID": Self.run(run)]
        return RunEnding.Entry(
            messageID: messageID, time: t0 + second * 1_000, fields: fields.merging(extra) { own, _ in own }
        )
    }

    static func historyEntries(
        _ runs: [(run: Character, began: Int64, ended: Int64?, failure: String?)], unit: String = unit
    ) -> [RunEnding.Entry] {
        var entries: [RunEnding.Entry] = []
        for run in runs {
            entries.append(entry(RunEnding.MessageID.unitStarted, of: run.run, second: run.began, unit: unit))
            guard let ended = run.ended else { continue }
            if let failure = run.failure {
                entries.append(entry(
                    RunEnding.MessageID.unitProcessExit, of: run.run, second: ended,
                    ["EXIT_CODE": "exited", "EXIT_STATUS": "3"], unit: unit
                ))
                entries.append(entry(
                    RunEnding.MessageID.unitFailureResult, of: run.run, second: ended, ["UNIT_RESULT": failure],
                    unit: unit
                ))
            } else {
                entries.append(entry(RunEnding.MessageID.unitSuccess, of: run.run, second: ended, unit: unit))
            }
        }
        return entries.sorted { $0.time < $1.time }
    }
}
