// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// The daemon's bookkeeping without its I/O: which units are watched, what systemd's snapshots mean for them, and
/// what each transition does to a unit's record.
///
/// It returns effects instead of performing them, in the order they must happen: a record is persisted before its
/// dispatch is sent, so that after a crash of lifecycled a dispatch can be re-sent with the same sequence number but
/// never lost (docs/guarantees.md, "Reliability").
public struct UnitTracker: Sendable {
    /// What the daemon must do, in order.
    public enum Effect: Sendable, Equatable {
        /// Write the unit's record to its state file.
        case persist(UnitRecord)
        /// Send a dispatch to the journal: `entry` is what the record holds as pending.
        case dispatch(
            unit: String, dispatch: Dispatch, kind: DispatchKind, invocationID: String?, sequence: UInt64,
            entry: DispatchJournalEntry
        )
        /// The engine refused an autotracked event (the reference swallows these); worth a debug line.
        case refused(unit: String, event: LifecycleEvent, error: LifecycleError)
    }

    public private(set) var configuration: LifecycleConfiguration
    public internal(set) var records: [String: UnitRecord]
    private(set) var calendar: LocalCalendar
    private var mapper = SystemdUnitMapper()
    /// For units that start fresh although the journal holds dispatches of theirs (see ``catchUp(with:)``): the time
    /// of the newest one, before which no run is missed.
    var freshSince: [String: Milliseconds] = [:]

    public init(configuration: LifecycleConfiguration, timeZone: TimeZoneRules, records: [UnitRecord]) {
        self.configuration = configuration
        self.calendar = LocalCalendar(timeZone: timeZone)
        self.records = Dictionary(records.map { ($0.unit, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Takes a new configuration; stored records are kept as they are.
    public mutating func reconfigure(_ configuration: LifecycleConfiguration, timeZone: TimeZoneRules) {
        self.configuration = configuration
        self.calendar = LocalCalendar(timeZone: timeZone)
    }

    /// Takes a listing of the watched units (at start, and after every resync). In the first listing a unit is a
    /// baseline (its first sighting). In a later one the listing is one more snapshot, so a change missed while the bus
    /// was away or systemd reloaded still becomes a transition (a stale snapshot is ignored), and a unit seen for the
    /// first time that is running began while lifecycled was not looking.
    public mutating func resync(_ snapshots: [UnitSnapshot], isFirstListing: Bool) -> [MappedTransition] {
        var transitions: [MappedTransition] = []
        for snapshot in snapshots where configuration.isWatched(snapshot.name) {
            if mapper.knows(snapshot.name) || !isFirstListing {
                let mapped = mapper.map(snapshot, listed: true)
                transitions += withoutRecordedRun(mapped, of: snapshot.name)
            } else {
                mapper.baseline(snapshot)
            }
        }
        return transitions
    }

    /// The run transitions a snapshot shows. While systemd reloads, a unit it announces that was never seen is a
    /// baseline (a re-announcement), not a new run.
    public mutating func transitions(for snapshot: UnitSnapshot, whileReloading: Bool) -> [MappedTransition] {
        guard configuration.isWatched(snapshot.name) else { return [] }
        if whileReloading, !mapper.knows(snapshot.name) {
            mapper.baseline(snapshot)
            return []
        }
        // Mapped first: as the argument of a method of `self`, the mapping would mutate the mapper while the call
        // holds a copy of `self`, and every signal would copy the mapper's memory of every unit (docs/PERFORMANCE.md,
        // "Per run: no copy of every unit's memory, less of each signal parsed").
        let mapped = mapper.map(snapshot)
        return withoutRecordedRun(mapped, of: snapshot.name)
    }

    /// `transitions` less the begin of the run the unit's record already holds, and its end when the record has it
    /// ended: a mapper that knows nothing of the unit (its record came back from the archive) takes a snapshot of that
    /// run for a run seen only over (``SystemdUnitMapper``).
    private func withoutRecordedRun(_ transitions: [MappedTransition], of unit: String) -> [MappedTransition] {
        guard let record = records[unit], let recorded = record.invocationID, !recorded.isEmpty else { return transitions }
        return transitions.filter { transition in
            guard transition.invocationID == recorded else { return true }
            if transition.transition == .began { return false }
            return !(transition.transition.endsRun && record.runEnded)
        }
    }

    /// Whether neither a record nor a run of `unit` is known: what systemd shows of it next is a first sighting, before
    /// which its archived record, if any, is restored. A unit seen only without an InvocationID (loaded again after a
    /// daemon-reexec or after it was archived, not started since) counts as unknown: its archive was not asked yet.
    public func isUnknown(_ unit: String) -> Bool { records[unit] == nil && !mapper.knowsRun(of: unit) }

    /// Whether a snapshot of `unit` was seen (its record aside): the mapper remembers its runs.
    public func hasSeen(_ unit: String) -> Bool { mapper.knows(unit) }

    /// Forgets `unit`, which systemd no longer has loaded: its record (returned, for the archive) and its runs.
    public mutating func forget(_ unit: String) -> UnitRecord? {
        mapper.forget(unit)
        freshSince.removeValue(forKey: unit)
        return records.removeValue(forKey: unit)
    }

    /// Takes back a record from the archive, unless the unit has one already.
    ///
    /// - Returns: whether it was taken.
    public mutating func restore(_ record: UnitRecord) -> Bool {
        guard records[record.unit] == nil else { return false }
        records[record.unit] = record
        return true
    }

    /// Applies one transition to its unit's record.
    ///
    /// - Parameters:
    ///   - version: the unit's version when a run begins (nil when unknown or for other transitions).
    ///   - now: the wall clock, used when systemd reported no time for the transition.
    ///   - timedRun: for a begin, the timer's elapse that started the run (``TimerBook``): its launch or wake carries
    ///     the timer's fields, and the timer's totals count the run.
    public mutating func apply(
        _ transition: MappedTransition, version: String?, now: Milliseconds, timedRun: TimedRun? = nil
    ) -> [Effect] {
        let unit = transition.unit
        if transition.isReconciled { mapper.note(transition) }
        let stored = records[unit] ?? UnitRecord(unit: unit)
        var record = stored
        let observation: UnitObservation
        switch transition.transition {
        case .began:
            observation = .runBegan(version: version)
            record.invocationID = transition.invocationID
            record.runEnded = false
        case .endedCleanly, .endedUnknown: observation = .runEnded
        case .failed(let details): observation = .runFailed(details: details.data)
        case .frozen: observation = .frozen
        case .thawed: observation = .thawed
        }
        let engine = engine(for: unit)
        let result = Autotracker(engine: engine).observe(observation, at: transition.time ?? now, state: &record.state)

        var effects: [Effect] = []
        var dispatch: Dispatch?
        var kind = DispatchKind.custom
        switch result {
        case .tracked(let event, let tracked):
            dispatch = tracked
            if event == .sleep, transition.transition == .endedCleanly || transition.transition == .endedUnknown {
                record.runEnded = true
            }
            if let tracked { kind = DispatchKind(dispatch: tracked, isCrashNotice: false) }
        case .crashNotice(let notice):
            dispatch = notice
            kind = .crash
            record.runEnded = true
            record.noteCrash(notice)
        case .refused(let event, let error): effects.append(.refused(unit: unit, event: event, error: error))
        case .ignored: break
        }
        if transition.isReconciled { dispatch?.customData[DispatchField.PayloadKey.reconciled] = .bool(true) }
        // The run's record goes with its end, the sleep or the crash notice (a freeze's sleep ends no run), and into
        // the unit's totals once, when the end is recorded. The launch or wake carries what its begin knows of the
        // run: its start-up, when the run is active already or was recovered, counted in the totals at once.
        let run = transition.endedRun
        if transition.transition.endsRun, record.runEnded, !stored.runEnded {
            record.runTotals.add(run, of: transition.invocationID)
        }
        if transition.transition == .began, dispatch != nil, let startup = run.startupSeconds {
            record.runTotals.addStartup(startup, of: transition.invocationID)
        }
        if transition.transition.endsRun || transition.transition == .began, let tracked = dispatch {
            dispatch?.customData = tracked.customData.merging(run.payload) { own, _ in own }
        }
        if transition.transition == .began, let timedRun {
            dispatch?.customData.merge(timedRun.payload) { own, _ in own }
            record.timers[timedRun.elapse.timer, default: TimerTotals()].countRun(
                latenessSeconds: timedRun.latenessSeconds, at: transition.time ?? now
            )
        }
        // LIFECYCLE_RUN_END=unknown: a sleep whose time is only the last moment the run was known to be going.
        if transition.transition == .endedUnknown {
            dispatch?.customData[DispatchField.PayloadKey.runEnd] = .string(DispatchField.unknownRunEnd)
        }
        effects += commit(record, replacing: stored, dispatch: dispatch, kind: kind, invocationID: transition.invocationID)
        return effects
    }

    /// The journal holds dispatch `sequence` of `unit`: it is no longer pending.
    ///
    /// - Returns: whether the record held it.
    @discardableResult
    public mutating func markDelivered(unit: String, sequence: UInt64) -> Bool {
        // The record is looked up once and changed where it lies in the dictionary.
        guard let recordIndex = records.index(forKey: unit) else { return false }
        let number = String(sequence)
        guard let index = records.values[recordIndex].pendingDispatches.firstIndex(where: {
            $0.hasValue(number, forName: DispatchField.sequence)
        }) else { return false }
        records.values[recordIndex].pendingDispatches.remove(at: index)
        // An empty array without its buffer: every record's would otherwise stay allocated between the freed
        // dispatches, each pinning a page of the heap (docs/PERFORMANCE.md, resident memory).
        if records.values[recordIndex].pendingDispatches.isEmpty { records.values[recordIndex].pendingDispatches = [] }
        return true
    }

    /// The engine for `unit`: its watch rule's settings, in the configured time zone.
    func engine(for unit: String) -> LifecycleEngine {
        LifecycleEngine(settings: configuration.settings(for: unit), calendar: calendar)
    }

    /// Stores `record` and returns the effects that persist it and send `dispatch` (numbered), in that order.
    mutating func commit(
        _ record: UnitRecord,
        replacing stored: UnitRecord,
        dispatch: Dispatch?,
        kind: DispatchKind,
        invocationID: String? = nil
    ) -> [Effect] {
        var record = record
        record.countUpdate(since: stored.state)
        var effects: [Effect] = []
        var entry: DispatchJournalEntry?
        if let dispatch {
            record.sequence += 1
            let built = DispatchJournalEntry(
                unit: record.unit, dispatch: dispatch, invocationID: invocationID, sequence: record.sequence, kind: kind,
                version: record.state.version
            )
            record.pendingDispatches.append(built.journalFields)
            entry = built
        }
        if record != stored {
            records[record.unit] = record
            effects.append(.persist(record))
        }
        if let dispatch, let entry {
            effects.append(.dispatch(
                unit: record.unit, dispatch: dispatch, kind: kind, invocationID: invocationID, sequence: record.sequence,
                entry: entry
            ))
        }
        return effects
    }
}
