// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
import LifecycleStorage
import LifecycleSystemd
import Logging

extension LifecycleDaemon {
    /// How far before the last sign of life of the previous lifecycled (or the loss of the bus connection) the journal
    /// is searched for missed runs (µs): a run that began just before may not have reached lifecycled. Widening the
    /// search is safe: a unit's runs are taken only after the run its record holds (or its newest dispatch, for a
    /// unit that starts fresh).
    static let historyMargin: UInt64 = 10_000_000

    /// At start, records what happened to watched units while lifecycled was not running: from systemd's listing,
    /// PID 1's own journal entries for the stored runs no longer listed, and every run PID 1 logged since the
    /// previous lifecycled stopped tracking.
    func reconcile(with snapshots: [UnitSnapshot], from source: SystemdUnitSource) async {
        let history = missedHistory()
        // Every unit a dispatch may already be in the journal for, so that none is sent or numbered twice.
        let seen = (snapshots.map(\.name) + (history.map { Array($0.units) } ?? [])).filter(configuration.isWatched)
        catchUpWithJournal(units: Set(tracker.records.keys).union(unitsSetAside).union(seen))
        var endings: [String: RunEnding] = [:]
        // A stored run that ended within the history needs no journal lookup of its own.
        for (unit, invocationID) in tracker.runsToLookUp(in: snapshots)
        where history?.run(of: unit, invocationID)?.ending == nil {
            endings[unit] = ending(of: unit, invocationID: invocationID)
        }
        let transitions = tracker.reconcile(snapshots, endings: endings, history: history)
        if !transitions.isEmpty {
            logger.notice("Recovering \(transitions.count) transitions that happened while lifecycled was not running")
        }
        await apply(transitions, from: source)
    }

    /// After a reconnection to the bus, before the new listing is applied: records the runs PID 1 logged while
    /// lifecycled could not hear its signals (since `since`, in µs since the epoch, less the margin), also runs that
    /// began and ended meanwhile.
    func reconcile(with snapshots: [UnitSnapshot], lostSince since: UInt64, from source: SystemdUnitSource) async {
        guard options.bus(configuration) == .system else { return }
        let history = readHistory(since: since)
        let transitions = tracker.reconcile(snapshots, endings: [:], history: history)
        if !transitions.isEmpty {
            logger.notice("Recovering \(transitions.count) transitions that happened while the bus was away")
        }
        await apply(transitions, from: source)
    }

    /// Brings the records of `units` up to lifecycled's own dispatches in the journal (see
    /// ``UnitTracker/catchUp(with:)``): reads each unit's dispatches numbered above its record's sequence, or the newest
    /// one of a unit with no record.
    private func catchUpWithJournal(units: Set<String>) {
        let units = units.sorted()
        let floors = units.map { tracker.records[$0]?.sequence }
        var journaled: [String: [JournaledDispatch]] = [:]
        var newestTaken = Set<Int>()
        do {
            let found = try JournalReader().newestEntries(
                for: units.map {
                    ["SYSLOG_IDENTIFIER=\(DispatchJournalEntry.syslogIdentifier)", "_UID=0", "LIFECYCLE_UNIT=\($0)"]
                },
                fields: JournaledDispatch.fields,
                while: { index, entry in
                    guard let floor = floors[index] else { return newestTaken.insert(index).inserted }
                    return entry.fields["LIFECYCLE_SEQUENCE"].flatMap { UInt64($0) }.map { $0 > floor } ?? false
                }
            )
            for (unit, entries) in zip(units, found) {
                let dispatches = entries.reversed().compactMap { JournaledDispatch(fields: $0.fields) }
                if !dispatches.isEmpty { journaled[unit] = dispatches }
            }
        } catch {
            logger.warning("Failed to read lifecycled's dispatches from the journal", metadata: ["error": "\(error)"])
            return
        }
        for (unit, dispatches) in journaled {
            if let record = tracker.records[unit] {
                logger.notice(
                    "The state of \(unit) (dispatch \(record.sequence)) is \(dispatches.count) dispatches behind the journal: catching up"
                )
            } else {
                let newest = dispatches.last?.sequence ?? 0
                logger.notice("\(unit) has no state; it starts fresh, numbered after its dispatch \(newest) in the journal")
            }
        }
        perform(tracker.catchUp(with: journaled))
    }

    /// Sends the entry that marks this instance as tracking (see ``TrackingStartedEntry``).
    func markTrackingStarted(status: String) {
        do {
            try journal.send(TrackingStartedEntry.fields(status: status))
        } catch {
            logger.warning("Failed to write the tracking entry to the journal", metadata: ["error": "\(error)"])
        }
    }

    /// How a run ended according to PID 1's journal (trusted entries only: `_PID=1`); nil when it does not say.
    /// The user manager logs under other field names, so this looks only at the system manager's runs.
    private func ending(of unit: String, invocationID: String) -> RunEnding? {
        guard options.bus(configuration) == .system else { return nil }
        do {
            let entries = try JournalReader().entries(
                matching: ["_PID=1", "UNIT=\(unit)", "INVOCATION_ID=\(invocationID)"],
                fields: RunEnding.fields
            )
            return RunEnding(entries: entries.compactMap(Self.runEntry))
        } catch {
            logger.warning("Failed to read the journal about \(unit)", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The runs PID 1 logged since the previous lifecycled was last seen tracking; nil on its first start, for the
    /// user manager, or when the journal cannot be read.
    private func missedHistory() -> RunHistory? {
        guard options.bus(configuration) == .system else { return nil }
        let lastSeen: UInt64?
        do {
            lastSeen = try lastSignOfTracking(JournalReader())
        } catch {
            logger.warning("Failed to read the journal for runs missed while lifecycled was down", metadata: ["error": "\(error)"])
            return nil
        }
        guard let lastSeen else {
            logger.info("No earlier lifecycled tracked units here: runs before this start are not looked for")
            return nil
        }
        return readHistory(since: lastSeen)
    }

    /// PID 1's runs since `since` (µs since the epoch) less ``historyMargin``; nil when the journal cannot be read.
    private func readHistory(since: UInt64) -> RunHistory? {
        let start = since > Self.historyMargin ? since - Self.historyMargin : 0
        do {
            let entries = try JournalReader().entries(
                matching: ["_PID=1"] + RunEnding.MessageID.all.map { "MESSAGE_ID=\($0)" },
                fields: RunHistory.fields,
                since: start
            )
            logger.debug("Read \(entries.count) of PID 1's journal entries since \(start / 1_000_000) to reconcile")
            return RunHistory(entries: entries.compactMap(Self.runEntry))
        } catch {
            logger.warning("Failed to read PID 1's journal for missed runs", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// The time (µs since the epoch) of the last entry of the newest earlier lifecycled that tracked units.
    private func lastSignOfTracking(_ reader: JournalReader) throws(SystemdError) -> UInt64? {
        let own = (pid: String(getpid()), boot: JournalReader.currentBootID)
        let ownEntries = ["SYSLOG_IDENTIFIER=\(DispatchJournalEntry.syslogIdentifier)", "_UID=0"]
        let identity = ["_PID", "_BOOT_ID"]
        guard let marker = try reader.newestEntry(
            matching: ownEntries + ["MESSAGE_ID=\(TrackingStartedEntry.messageID)"], fields: identity,
            where: { $0.fields["_PID"] != own.pid || $0.fields["_BOOT_ID"] != own.boot }
        ), let pid = marker.fields["_PID"], let boot = marker.fields["_BOOT_ID"]
        else { return nil }
        let last = try reader.newestEntry(matching: ownEntries + ["_PID=\(pid)", "_BOOT_ID=\(boot)"], fields: [])
        return last?.realtimeMicroseconds ?? marker.realtimeMicroseconds
    }

    private static func runEntry(_ entry: JournalEntry) -> RunEnding.Entry? {
        entry.fields["MESSAGE_ID"].map {
            RunEnding.Entry(messageID: $0, time: Milliseconds(entry.realtimeMicroseconds / 1_000), fields: entry.fields)
        }
    }
}
