// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleSystemd
import Logging

/// Looks for dispatches in the journal, and has it synced, on a thread of its own (`lifecycled-journal`): the loop
/// takes the changes that come meanwhile. A look reads the journal's index for every dispatch not confirmed yet, and
/// its sync waits for journald's fsync, 3.5 ms at the median and up to 13 ms on a disk; on the loop, a state change
/// that came during one waited for it (docs/PERFORMANCE.md, "Per run: no copy of every unit's memory, less of each
/// signal parsed"). The core makes one look at a time and takes its answer as an input (docs/architecture.md, "Rules
/// the core keeps"), so a look never runs beside another. A recovery's reads run on the same thread, between looks
/// (JournalLooker+Recovery.swift).
actor JournalLooker {
    /// The thread the looks run on; the loop's own when a thread of its own could not be started.
    nonisolated let thread: BusThread
    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }
    let logger: Logger
    /// Makes the journal's files durable before a look counts what it found as delivered (docs/journal.md, "A power
    /// cut").
    private let synchronizer = JournalSynchronizer(directories: JournalSynchronizer.persistentDirectories())
    /// How the last synchronization went, so that a failure, or journald's lack of the call, is said once.
    private var lastSync: JournalSynchronizer.Outcome?
    /// The files journald writes to now (``JournalReader/onlineFiles()``), as the last look opened them, while the
    /// looks that follow within ``keptFor`` use them: a look asks them first, and the whole journal only for what
    /// they do not hold. During a day-one history a look comes every few milliseconds, and each opened the whole
    /// journal, mapping every file's header, hash tables and entry arrays afresh (docs/PERFORMANCE.md, "Looks that
    /// read the newest entries"). A look that misses anything lets them go, so that the next one, which may take a
    /// missing entry as dropped, opens them afresh (files kept open do not include one journald opened since).
    private var kept: OpenedJournal?
    /// Whether a look found PID 1's entries about this process's run (``ownRunQuery``): then it is not asked again,
    /// and the newest files, where it is not once journald rotated past it, answer the looks alone.
    private var earlierProcessesShown = false
    private var closing: BusTimerID?
    static let keptFor: Duration = .milliseconds(100)

    init(thread: BusThread, logger: Logger) {
        self.thread = thread
        self.logger = logger
    }

    /// Whether the journal holds `dispatches` and probe `probe`, how far back it goes, and whether it shows that an
    /// earlier lifecycled's entries were all taken (PID 1's entries about this process's run, by its `INVOCATION_ID`).
    ///
    /// The journal grows while it is read, so the evidence is asked for first and the dispatches newest first: an
    /// entry found then proves that every entry sent before it was taken before the look at them, and a missing one
    /// beside it was dropped. Asked the other way round, an entry written between two looks seems dropped.
    func check(_ dispatches: [PendingDispatch], probe: UInt64?, sync: Bool) -> JournalCheck? {
        var queries: [[String]] = []
        if let probe { queries.append(JournalProbeEntry.query(number: probe, pid: getpid())) }
        // Once shown, it stays shown: the entries were taken before the look that found it.
        let evidence = earlierProcessesShown ? nil : Self.ownRunQuery
        if let evidence { queries.append(evidence) }
        let recent = dispatches.reversed().map {
            RecentEntryQuery(walked: $0.journalUnitMatches, held: $0.journalIdentity)
        }
        let holdings: JournalHoldings
        cancelClosing()
        do {
            // The probe and the evidence only decide what became of a dispatch the look misses: when the newest files
            // hold every dispatch, they are not asked of the whole journal. A probe written just before the look
            // and not taken by journald yet made most looks of a day-one history open every file, and find it there
            // only because journald had taken it meanwhile (docs/PERFORMANCE.md, "Looks that open every file").
            holdings = try JournalReader(logging: logger).holdings(
                of: queries, recent: recent, newestFiles: JournalReader.onlineFiles(), keeping: &kept,
                queriesOnlyBesideMissing: true
            )
        } catch {
            logger.warning("Failed to read the journal", metadata: ["error": "\(error)"])
            return nil
        }
        let found = holdings.found
        if evidence != nil, found[probe == nil ? 0 : 1] { earlierProcessesShown = true }
        if Self.keepsJournal(after: holdings, probeAsked: probe != nil) {
            closing = thread.schedule(after: Self.keptFor) { [weak self] in
                self?.assumeIsolated { $0.letKeptJournalGo() }
            }
        } else {
            kept = nil
        }
        let dispatchesFound = Array(holdings.recentFound.reversed())
        // Looked, then synced: what the look found was in journald's files before the sync was asked for, so the
        // sync covers it. Synced first, an entry journald wrote between the sync and the look would be found and
        // counted delivered while still only in memory. No sync when nothing was found: nothing is to be counted.
        let synced = sync && dispatchesFound.contains(true) ? syncJournal() : true
        return JournalCheck(
            found: dispatchesFound, heldSince: holdings.oldest.map { Milliseconds($0 / 1_000) },
            earlierProcessesDone: earlierProcessesShown,
            probeFound: probe != nil && found[0], synced: synced
        )
    }

    /// Closes the journal the last look kept open, if any.
    func letKeptJournalGo() {
        kept = nil
        cancelClosing()
    }

    private func cancelClosing() {
        if let closing { thread.cancel(closing) }
        closing = nil
    }

    /// Whether the journal of a look that found `holdings` is kept for the next: only when the kept files answered
    /// everything (after a rotation the new file is not among them), found every dispatch, and the probe when one was
    /// asked first.
    static func keepsJournal(after holdings: JournalHoldings, probeAsked: Bool) -> Bool {
        holdings.askedWhole == 0 && !holdings.recentFound.contains(false)
            && !(probeAsked && holdings.found.first == false)
    }

    /// Asks journald to sync and fsyncs its files (``JournalSynchronizer``): whether what a look found may be counted
    /// delivered. A failure, journald's lack of the call and each return to normal are logged once.
    private func syncJournal() -> Bool {
        let start = BusThread.monotonicMicroseconds()
        let outcome = synchronizer.synchronize()
        let took = BusThread.monotonicMicroseconds() - start
        defer { lastSync = outcome }
        switch outcome {
        case .synced:
            logger.debug("Synced the journal in \(took) µs")
            if case .failed? = lastSync {
                logger.notice("journald syncs its files again: dispatches found in the journal are delivered")
            }
            return true
        case .unaskable(let reason):
            if lastSync != outcome {
                let message = "journald cannot be asked to sync its files (\(reason)): a dispatch found in the "
                    + "journal counts as delivered once lifecycled has fsync'd the journal's files itself"
                logger.notice("\(message)")
            }
            return true
        case .volatile:
            if lastSync != outcome {
                let message = "The journal is volatile (no /var/log/journal/MACHINE-ID): a power cut takes it whole, "
                    + "so journald is not asked to sync"
                logger.info("\(message)")
            }
            return true
        case .failed(let reason):
            if case .failed? = lastSync {
                logger.debug("Failed to sync the journal: \(reason) (\(took) µs)")
            } else {
                let message = "Failed to sync the journal (\(reason)): dispatches found in the journal are kept as "
                    + "pending and looked for again until journald syncs them"
                logger.warning("\(message)")
            }
            return false
        }
    }

    /// PID 1's entries about this process's run of lifecycled.service (`_PID=1 INVOCATION_ID=…`); nil when systemd did
    /// not start this process (no `$INVOCATION_ID`).
    private static let ownRunQuery: [String]? = {
        guard let id = getenv("INVOCATION_ID").map({ String(cString: $0) }), id.count == 32,
            id.allSatisfy(\.isHexDigit)
        else { return nil }
        return ["_PID=1", "INVOCATION_ID=\(id)"]
    }()
}
