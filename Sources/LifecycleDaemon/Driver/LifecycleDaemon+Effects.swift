// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import LifecycleSystemd
import Logging

extension LifecycleDaemon {
    /// Performs one effect of the core, without waiting: an effect that waits for the bus is handed to
    /// ``performOnBus(_:)``, and its answer comes later as an input.
    ///
    /// - Returns: the answer to give the core at once, for effects that have one and can give it now.
    func perform(_ effect: DaemonEffect) -> DaemonInput? {
        switch effect {
        case .save(let record):
            do {
                try stateFiles.save(record)
            } catch {
                return .saved(unit: record.unit, failure: stateDirectoryProblem(error, saving: "the state of \(record.unit)"))
            }
            return .saved(unit: record.unit, failure: nil)
        case .readArchive(let units):
            return .archiveRead(archivedRecords(of: units))
        case .archive(let records, let expiredBefore):
            archive(records, expiredBefore: expiredBefore)
        case .send(let dispatches):
            return send(dispatches)
        case .lookUp(let dispatches, let probe, let sync):
            lookUpOffTheLoop(dispatches, probe: probe, sync: sync)
        case .writeProbe(let number, let missing):
            do {
                try journal.send(JournalProbeEntry.fields(number: number, missing: missing))
            } catch {
                logger.warning("Failed to write a probe to the journal", metadata: ["error": "\(error)"])
            }
        case .readVersion, .readRunCost, .readTimers, .watch, .publishManager, .prefetchVersions:
            performOnBus(effect)
        case .readRunEnding(let unit, let invocationID, let barrier):
            return readEnding(of: unit, invocationID: invocationID, barrier: barrier)
        case .readMissedStarts(let query):
            return .missedStartsRead(query, MissedStartReader(logger: logger).failedStarts(for: query))
        case .readRunJournal(let query):
            // The barrier first, as for a run's ending.
            let seen = query.barrier.map { lookForBarrier($0, unit: query.run.unit) } ?? false
            return .runJournalRead(query, RunJournalReader(logger: logger).findings(for: query, barrierSeen: seen))
        case .readRecovery(let query):
            readRecoveryOffTheLoop(query)
        case .readJournalTail:
            return .journalTailRead(JournalRecoveryReader(logger: logger, positionFile: positionFile).tail())
        case .saveJournalPosition(let position):
            do {
                try positionFile.save(position)
            } catch {
                return .journalPositionSaved(
                    position, failure: stateDirectoryProblem(error, saving: "how far PID 1's journal was read")
                )
            }
            return .journalPositionSaved(position, failure: nil)
        case .reply(let token, let result):
            replies.removeValue(forKey: token)?.resume(returning: result)
        case .releaseMemory:
            ProcessMemory.releaseStartupMemory()
        case .trimHeap:
            ProcessMemory.releaseFreeHeap()
        case .notify(let notifications):
            do {
                _ = try notifier.notify(message: ServiceNotification.message(
                    notifications, monotonicMicroseconds: BusThread.monotonicMicroseconds()
                ))
            } catch {
                logger.warning("Failed to notify the service manager", metadata: ["error": "\(error)"])
            }
        case .markTracking(let status):
            do {
                try journal.send(TrackingStartedEntry.fields(status: status))
            } catch {
                logger.warning("Failed to write the tracking entry to the journal", metadata: ["error": "\(error)"])
            }
        case .writeMetrics(let path, let text):
            writeMetrics(text, to: path)
        case .arm(let timer, let at):
            arm(timer, at: at)
        case .log(let line):
            logger.log(level: line.level.loggerLevel, "\(line.message)")
        case .exit:
            break
        }
        return nil
    }

    /// The state directory's fault behind a failed save, which the core reports once and retries until mended
    /// (logged here only at debug level); nil, after an error logged here, for a file refused for a reason of its own.
    private func stateDirectoryProblem(_ error: StateStoreError, saving what: String) -> StateDirectoryProblem? {
        guard case .io(let path, let operation, let code) = error else {
            logger.error("Failed to save \(what)", metadata: ["error": "\(error)"])
            return nil
        }
        logger.debug("Failed to save \(what)", metadata: ["error": "\(error)"])
        return StateDirectoryProblem(directory: store.directory, step: "\(operation) \(path)", errno: code)
    }

    /// The archived records of `units`; nil (logged) when the archive cannot be read.
    private func archivedRecords(of units: [String]) -> [UnitRecord]? {
        do {
            return try UnitArchive(stateDirectory: store.directory).records(of: units)
        } catch {
            logger.error("Failed to read the archive", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Appends the records to the archive, then deletes their state files: a crash between the two leaves both, and
    /// the state file is the one loaded. Then compacts the shards written to that grew large.
    private func archive(_ records: [UnitRecord], expiredBefore: Milliseconds?) {
        let archive = UnitArchive(stateDirectory: store.directory)
        let sizes: [String: Int]
        do {
            sizes = try archive.append(records)
            try stateFiles.remove(records.map(\.unit))
        } catch {
            // The records are no longer in memory; their state files bring them back at the next start.
            logger.error("Failed to archive the records of \(records.count) units", metadata: ["error": "\(error)"])
            return
        }
        let compacting = sizes.filter { UnitArchive.needsCompaction(size: $0.value, lastCompacted: compactedShards[$0.key]) }
        // Tombstones stay while the journal may hold their units' dispatches.
        let heldSince = compacting.isEmpty ? nil : journalHeldSince()
        for (shard, size) in compacting.sorted(by: { $0.key < $1.key }) {
            do {
                compactedShards[shard] = try archive.compact(
                    shard: shard, expiredBefore: expiredBefore, journalHeldSince: heldSince
                )
                logger.info("Compacted the archive's \(shard): \(size) bytes to \(compactedShards[shard] ?? 0)")
            } catch {
                // Nothing is lost: the shard stays as it was, and is tried again at its next append.
                logger.warning("Failed to compact the archive", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The time of the journal's oldest entry (ms since the epoch); nil when it cannot be read (logged) or is empty.
    private func journalHeldSince() -> Milliseconds? {
        do {
            return try JournalReader(logging: logger).holdings(of: []).oldest.map { Milliseconds($0 / 1_000) }
        } catch {
            logger.warning("Failed to read the journal's oldest entry: the archive drops its tombstones", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Sends the entries in order until the journal refuses one.
    private func send(_ dispatches: [PendingDispatch]) -> DaemonInput {
        for (index, dispatch) in dispatches.enumerated() {
            do {
                let entry = dispatch.entry.journalFields
                try journal.send(entry.bytes, fields: entry.fieldRanges)
            } catch {
                logger.error("The journal refused dispatch \(dispatch.sequence) of \(dispatch.unit)", metadata: ["error": "\(error)"])
                return .sent(count: index, refused: true)
            }
        }
        return .sent(count: dispatches.count, refused: false)
    }

    /// Starts a look for `dispatches` on the looks' thread (``JournalLooker``); its answer comes as an input.
    private func lookUpOffTheLoop(_ dispatches: [PendingDispatch], probe: UInt64?, sync: Bool) {
        let looker = journalLooker()
        Task(executorPreference: looker.thread) {
            let check = await looker.check(dispatches, probe: probe, sync: sync)
            await self.take(.lookedUp(dispatches, check))
        }
    }

    /// Starts a recovery's reads on the looks' thread (``JournalLooker``); the answer comes as an input, and the loop
    /// takes the inputs that come meanwhile.
    private func readRecoveryOffTheLoop(_ query: RecoveryQuery) {
        let looker = journalLooker()
        let (positionFile, journal, loopThread) = (positionFile, journal, thread)
        Task(executorPreference: looker.thread) {
            let answer = await looker.answer(query, positionFile: positionFile, journal: journal) { units in
                // Handed over while the history is still read. Should it come after the answer, which carries the
                // units too, the core ignores it (DaemonCore.takeJournaledUnits).
                Task(executorPreference: loopThread) { await self.take(.journaledUnitsRead(units)) }
            }
            await self.take(.recovered(answer))
        }
    }

    /// How much nicer than the loop's the journal's thread is: its reads of a long history and its looks may wait, a
    /// live change may not (docs/PERFORMANCE.md, "Live changes during a day-one history, the reader niced").
    static let journalThreadNiceness: Int32 = 10

    /// The looker, with its thread started at the first use; if the thread cannot be started, the looks and reads run
    /// on the loop's thread, as one task each.
    private func journalLooker() -> JournalLooker {
        if let looker { return looker }
        var lookerThread = thread
        do {
            lookerThread = try BusThread(name: "lifecycled-journal", niceness: Self.journalThreadNiceness)
        } catch {
            logger.warning("Failed to start a thread to read the journal (\(error)): reading on the loop's")
        }
        let new = JournalLooker(thread: lookerThread, logger: logger)
        looker = new
        return new
    }

    /// Where the position in PID 1's journal that the next start recovers from is kept.
    private var positionFile: JournalPositionFile { JournalPositionFile(directory: store.directory) }

    /// How the run ended by PID 1's journal, after a look for the barrier: looked for first, since an entry of PID 1's
    /// that is written between a read that misses it and a look that finds the barrier would otherwise be missed.
    private func readEnding(of unit: String, invocationID: String, barrier: JournalBarrier) -> DaemonInput {
        let seen = lookForBarrier(barrier, unit: unit)
        let reader = JournalRecoveryReader(logger: logger, positionFile: positionFile)
        return .runEndingRead(
            unit: unit, invocationID: invocationID, ending: reader.ending(of: unit, invocationID: invocationID),
            barrierSeen: seen
        )
    }

    /// Writes the barrier's probe when asked to, and whether the journal shows it.
    private func lookForBarrier(_ barrier: JournalBarrier, unit: String) -> Bool {
        JournalBarrierLook(journal: journal, logger: logger).isSeen(
            barrier, fields: JournalProbeEntry.fields(barrier: barrier.number, unit: unit),
            query: JournalProbeEntry.query(barrier: barrier.number, pid: getpid())
        )
    }

    /// Subscribes to systemd for `patterns`, replacing the current subscription (none when `patterns` is empty).
    func watch(_ patterns: [UnitPattern]) async throws {
        let isFirst = source == nil
        await stopSource()
        guard !patterns.isEmpty else { return }
        do {
            let source = try SystemdUnitSource(
                address: options.bus(core.configuration), patterns: patterns, thread: thread, logger: logger,
                eventHandler: { [unowned self] event in
                    // On the loop's thread, as the bus relay reads each signal: to the core at once.
                    guard let next = DaemonInput(event) else { return }
                    self.assumeIsolated { $0.take(next) }
                }
            )
            try await source.start()
            self.source = source
        } catch {
            if isFirst { throw error }
            logger.error("Failed to watch the units of the new configuration", metadata: ["error": "\(error)"])
        }
    }

    func stopSource() async {
        await source?.stop()
        source = nil
    }

    private func arm(_ timer: DaemonTimer, at time: Uptime) {
        if let armed = timers[timer] { thread.cancel(armed) }
        timers[timer] = thread.schedule(after: .milliseconds(max(0, time - Self.uptime()))) { [unowned self] in
            self.assumeIsolated { $0.take(.timer(timer)) }
        }
    }

    /// The version of the unit's run by `versionSource`; nil (no update detection) when it cannot be read.
    func version(of unit: String, invocationID: String, from versionSource: VersionSource) async -> String? {
        guard let source else { return nil }
        let details: UnitDetails
        do {
            details = try await source.details(of: unit, invocationID: invocationID, reading: versionSource.detailsParts)
        } catch where error.errno == ENOENT {
            // A short-lived run (a oneshot, a transient unit) is often unloaded before its start is handled: expected.
            logger.debug("No version for \(unit): it is no longer loaded")
            return nil
        } catch {
            logger.warning("Failed to read the version of \(unit)", metadata: ["error": "\(error)"])
            return nil
        }
        let inputs = UnitVersionInputs(
            executablePath: details.mainExecutable,
            fragmentPath: details.fragmentPath,
            dropInPaths: details.dropInPaths,
            environment: details.environment
        )
        do {
            return try versions.version(of: versionSource, inputs: inputs)
        } catch {
            logger.warning("Failed to read the version of \(unit)", metadata: ["error": "\(error)"])
            return nil
        }
    }
}

extension LogLine.Level {
    var loggerLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}

extension VersionSource {
    /// What of a unit's definition the source needs: one property for the default `executable`, not all four.
    var detailsParts: UnitDetails.Parts {
        switch self {
        case .executable: .mainExecutable
        case .unitFile: .unitFiles
        case .environment: .environment
        case .none: []
        }
    }
}
