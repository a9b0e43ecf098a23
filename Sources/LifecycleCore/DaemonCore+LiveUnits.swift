// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The changes a recovery applies as they come (``LiveUnits``): those of watched units the journal held nothing of
/// when the recovery began reading it, and that have no record. What the recovery records of such a unit is its
/// listing entry alone, so its changes need not wait for PID 1's history (docs/architecture.md, "Phases"); the
/// changes of every other unit, and every D-Bus call, still wait in the phase.
extension DaemonCore {
    /// The journal named its units, ahead of the recovery's answer (or with it): the units it holds nothing of go
    /// live, and their changes held so far are taken, in order. Only the first naming of a recovery counts: a read
    /// asked again later would name this recovery's own dispatches.
    mutating func takeJournaledUnits(_ journaled: JournaledUnits) {
        guard case .recovering = phase, liveUnits == nil, recoveryGap == nil else { return }
        liveUnits = LiveUnits(journaled: journaled)
        takeWaitingLiveInputs()
    }

    /// Whether a change of `unit` is applied as it comes: while recovering, once the journal named its units, a
    /// watched unit it holds nothing of with no record (nor a state file set aside), or one taken live already; and
    /// once the timers read after the listing answered, so that a begin finds the elapse that started it as it would
    /// after the recovery.
    func isLive(_ unit: String) -> Bool {
        guard case .recovering = phase, let live = liveUnits, recoveryGap == nil, !timersAwaited,
            configuration.isWatched(unit)
        else {
            return false
        }
        if live.listed.contains(unit) { return true }
        return !live.isClosed && !live.journaled.mayHold(unit) && tracker.records[unit] == nil && !unitsSetAside.contains(unit)
    }

    /// Whether `input`, a change or a job's removal of a live unit, is taken ahead of the recovery's work and the
    /// inputs deferred behind it: when nothing deferred must come before it. Only another unit's change or job, and
    /// a D-Bus call (held until the recovery ends anyway), may be overtaken; anything else (a reload, a listing, a
    /// timer's elapse, a slice's answer, the unit's own earlier inputs) keeps the live input behind it.
    func takesLive(_ input: DaemonInput) -> Bool {
        guard let unit = liveUnit(of: input) else { return false }
        return !deferred.contains { earlier in
            if let other = Self.unit(ofChangeOrJob: earlier) { return other == unit }
            return !Self.mayBeOvertaken(earlier)
        }
    }

    /// The live inputs deferred behind the recovery's work that nothing deferred before them must precede
    /// (``takesLive(_:)``), moved to the live inputs, in order: called when a unit goes live, and when a deferred
    /// input that kept them behind it is taken (a slice's answer that came while a begin waited for its version).
    mutating func takeDeferredLiveInputs() {
        guard liveUnits != nil, isRecovering, !deferred.isEmpty else { return }
        var kept = Queue<DaemonInput>()
        var keptUnits: Set<String> = []
        var isBlocked = false
        while let input = deferred.popFirst() {
            if !isBlocked, let unit = liveUnit(of: input), !keptUnits.contains(unit) {
                liveInputs.append(input)
                continue
            }
            if let unit = Self.unit(ofChangeOrJob: input) {
                keptUnits.insert(unit)
            } else if !Self.mayBeOvertaken(input) {
                isBlocked = true
            }
            kept.append(input)
        }
        deferred = kept
    }

    /// How long the recovery's rounds stay small (``recoveryRound``) after a live unit's change or job: a unit's
    /// changes come in bursts (its start, its end seconds later).
    static let smallRoundsAfterLiveChange: Milliseconds = 5_000

    /// The runs a round of the recovery makes, and the dispatches it leaves unconfirmed before it waits for the
    /// journal: ``Outbox/recoveryBound``, or ``Outbox/liveRecoveryBound`` for ``smallRoundsAfterLiveChange`` after a
    /// live unit's change or job came. A live dispatch waits in journald behind the entries of the round sent
    /// before it: four of them, not sixteen (docs/PERFORMANCE.md, "Live changes during a day-one history, the reader
    /// niced"). A history without live changes keeps the large rounds, and its READY.
    var recoveryRound: Int {
        guard let came = liveChangeCameAt, uptime < came + Self.smallRoundsAfterLiveChange else {
            return Outbox.recoveryBound
        }
        return Outbox.liveRecoveryBound
    }

    /// Notes when a live unit's change or job comes (``recoveryRound``).
    mutating func noteLiveChange(_ input: DaemonInput) {
        if liveUnit(of: input) != nil { liveChangeCameAt = uptime }
    }

    /// The unit of a change or a job's removal of a live unit; nil for any other input.
    private func liveUnit(of input: DaemonInput) -> String? {
        guard let unit = Self.unit(ofChangeOrJob: input), isLive(unit) else { return nil }
        return unit
    }

    private static func unit(ofChangeOrJob input: DaemonInput) -> String? {
        switch input {
        case .changed(let snapshot): snapshot.name
        case .jobRemoved(let unit, _, _, _): unit
        default: nil
        }
    }

    /// Whether a deferred input may be overtaken by a live unit's (besides another unit's change or job): a D-Bus call,
    /// which waits for the recovery's end anyway.
    private static func mayBeOvertaken(_ input: DaemonInput) -> Bool {
        if case .request = input { true } else { false }
    }

    /// The work of a live unit's change: its listing entry first, the first time (as the recovery's end takes the
    /// listing before the changes it held), then the change.
    mutating func takeLive(_ change: BufferedChange) {
        let unit = change.snapshot.name
        if liveUnits?.listed.insert(unit).inserted == true,
            case .recovering(let cause, let listing, _) = phase,
            let listed = listing.first(where: { $0.name == unit })
        {
            liveWork.append(.resync([listed], isFirst: cause == .start))
        }
        liveWork.append(.change(change))
    }

    /// A newer listing while recovering: the live units' entries in it are taken now (an older snapshot than the
    /// changes seen gives nothing); the recovery's end takes the rest. Not after a loss of systemd's signals: what a
    /// live unit did meanwhile is read from PID 1's journal with the gap (``RecoveryGap``), each run at its own time
    /// and marked reconciled, before the listing.
    mutating func takeLiveEntries(of snapshots: [UnitSnapshot]) {
        guard recoveryGap == nil, let listed = liveUnits?.listed, !listed.isEmpty else { return }
        let entries = snapshots.filter { listed.contains($0.name) }
        if !entries.isEmpty { liveWork.append(.resync(entries, isFirst: false)) }
    }

    /// The changes the phase held of units that are live now, out of the phase and taken, in order.
    private mutating func takeHeldLiveChanges() {
        guard liveUnits != nil, let held = phase.held?.changes, !held.isEmpty else { return }
        var units: Set<String> = []
        for change in held where isLive(change.snapshot.name) { units.insert(change.snapshot.name) }
        guard !units.isEmpty else { return }
        for change in phase.releaseChanges(of: units) { takeLive(change) }
    }

    /// A unit may have gone live: its changes held in the phase, then those deferred, are taken.
    mutating func takeWaitingLiveInputs() {
        takeHeldLiveChanges()
        takeDeferredLiveInputs()
    }

    /// Whether `unit` went live in this recovery: the recovery's history, catch-up and listing leave it out.
    func wentLive(_ unit: String) -> Bool {
        liveUnits?.listed.contains(unit) == true
    }

    /// `snapshots` less the live units, whose entries were taken already.
    func withoutLiveUnits(_ snapshots: [UnitSnapshot]) -> [UnitSnapshot] {
        guard let listed = liveUnits?.listed, !listed.isEmpty else { return snapshots }
        return snapshots.filter { !listed.contains($0.name) }
    }
}
