// SPDX-License-Identifier: Apache-2.0

/// Turns the snapshots systemd sends for watched units into run transitions (docs/engine-semantics.md §10, "Runs of a
/// systemd unit"): one begin and at most one end per InvocationID.
///
/// Decisions key on ActiveState, Result and InvocationID, never on SubState strings alone, except to recognise a pending
/// automatic restart (`auto-restart`, and the `*-before-auto-restart` / `auto-restart-queued` states of systemd 254+)
/// and an `ExecCondition=` check under way (`condition`: not a run until it passes).
/// Reloads, duplicate snapshots, reset-failed and re-announcements after daemon-reload/daemon-reexec yield nothing,
/// because each run's begin and end are remembered; the first sighting of a unit is a baseline, not an event.
/// A snapshot older than the last one seen for its unit (by `StateChangeTimestampMonotonic`) is ignored: a listing
/// read during a burst of changes must not take a unit back in time.
///
/// A run can show only over: while its bus connection is busy, PID 1 holds back its unit signals and then sends each
/// unit's state as it is by then (docs/systemd.md, "Coalesced changes"). A snapshot that shows a run over whose
/// InvocationID was never seen, and that left the inactive state after everything known of the unit (by PID 1's
/// monotonic clock, `InactiveExitTimestampMonotonic`), is that run, begun then; a stale snapshot of an earlier run is
/// not, nor a start `ExecCondition=` skipped or the start limit refused. Only a signal shows such a run: a listing
/// shows how things stand, and what ended before lifecycled listened, or while its signals were lost, is PID 1's
/// journal's to tell.
public struct SystemdUnitMapper: Sendable {
    private struct RunMemory: Sendable {
        var begun: String?
        var ended: String?
        var isFrozen = false
        /// The newest `StateChangeTimestampMonotonic` seen.
        var lastStateChange: UInt64 = 0
        /// The newest PID 1 monotonic time of a transition ``note(_:)`` took (this boot's): a run that left the
        /// inactive state before it is no run between two snapshots.
        var notedUntil: UInt64 = 0
        /// Runs that ``note(_:)`` learned were followed by another: a snapshot of one is older than what is known.
        /// Only the newest few are kept (a late snapshot shows the run before the newest, not one from long ago), so
        /// that a history of thousands of runs recovered at start is not remembered for the life of the process.
        var superseded: [String] = []
        /// When the run ``begun`` began, as the journal said it (``note(_:)``) or the snapshot that showed it
        /// running: a snapshot whose state changed before that cannot end it, nor one with no state change at all (a
        /// fresh unit's first signal carries its new run's id before its state moves, and may come after a listing).
        /// By the monotonic clock too when known (0: not known), as the wall clock may step.
        var begunAt: Milliseconds?
        var begunAtMonotonic: UInt64 = 0
        /// The run whose `ExecCondition=` check was seen under way: not a run yet, but a failure of the check
        /// itself (not a skip) is a failed start.
        var checking: String?

        /// The run ``begun`` is followed by another: a snapshot of it that comes later is older than what is known.
        mutating func supersede() {
            guard let previous = begun, !superseded.contains(previous) else { return }
            superseded.append(previous)
            if superseded.count > SystemdUnitMapper.supersededKept { superseded.removeFirst() }
        }

        /// Whether `snapshot` shows a run that began and ended since everything known of the unit: over, with an
        /// InvocationID not seen, and out of the inactive state after every snapshot seen, every transition noted
        /// and the begin of the run known last, by PID 1's monotonic clock.
        func isUnseenRun(_ snapshot: UnitSnapshot) -> Bool {
            let id = snapshot.invocationID
            guard begun != id, checking != id, snapshot.hasEnded, !snapshot.isSkipped, !snapshot.isRefusedStart else {
                return false
            }
            return snapshot.inactiveExitMonotonic > max(lastStateChange, notedUntil, begunAtMonotonic)
        }
    }

    private var units: [String: RunMemory] = [:]
    /// How many superseded runs each unit remembers.
    public static let supersededKept = 8

    public init() {}

    /// How many superseded runs of `unit` are remembered (at most ``supersededKept``).
    public func rememberedSupersededRuns(of unit: String) -> Int { units[unit]?.superseded.count ?? 0 }

    /// True when the unit has been seen, as a baseline or through a transition.
    public func knows(_ unit: String) -> Bool { units[unit] != nil }

    /// True when a run of the unit has been seen (an InvocationID): a unit seen only loaded and never started since
    /// (no InvocationID) is not, so that its first run still finds its archived record.
    public func knowsRun(of unit: String) -> Bool { units[unit]?.begun != nil }

    /// Forgets what is known of `unit`, which systemd no longer has loaded: a snapshot of it that comes later is a
    /// first sighting (one of a run that has ended shows no transition).
    public mutating func forget(_ unit: String) { units.removeValue(forKey: unit) }

    /// Records `snapshot` as what is already true (initial state, re-announcements): no transition.
    public mutating func baseline(_ snapshot: UnitSnapshot) {
        var memory = RunMemory()
        let id = snapshot.invocationID
        if !id.isEmpty {
            memory.begun = id
            if snapshot.hasEnded || !snapshot.isRunning {
                memory.ended = id
            } else {
                memory.begunAt = snapshot.stateChangeTime
                memory.begunAtMonotonic = snapshot.stateChangeTimestampMonotonic
            }
        }
        memory.isFrozen = snapshot.freezerState == "frozen"
        memory.lastStateChange = snapshot.stateChangeTimestampMonotonic
        units[snapshot.name] = memory
    }

    /// Takes a transition found elsewhere (at lifecycled's start, in the journal) as seen, so that a later snapshot
    /// of its run gives no second begin or end. The journal can be newer than the listing that follows.
    public mutating func note(_ transition: MappedTransition) {
        var memory = units[transition.unit] ?? RunMemory()
        let id = transition.invocationID
        if let previous = memory.begun, previous != id {
            memory.supersede()
            memory.ended = nil
            memory.isFrozen = false
        }
        if memory.begun != id {
            memory.begunAt = nil
            memory.begunAtMonotonic = 0
        }
        memory.begun = id
        memory.notedUntil = max(memory.notedUntil, transition.monotonicMicroseconds)
        switch transition.transition {
        case .began:
            memory.begunAt = transition.time
            memory.begunAtMonotonic = transition.monotonicMicroseconds
        case .endedCleanly, .failed, .endedUnknown: memory.ended = id
        case .frozen: memory.isFrozen = true
        case .thawed: memory.isFrozen = false
        }
        units[transition.unit] = memory
    }

    /// The transitions `snapshot` shows for its unit, in order (a stop followed by a new run gives two).
    ///
    /// - Parameter listed: whether the snapshot is from a listing rather than a signal: it shows no run seen only
    ///   over.
    public mutating func map(_ snapshot: UnitSnapshot, listed: Bool = false) -> [MappedTransition] {
        var memory = units[snapshot.name] ?? RunMemory()
        defer { units[snapshot.name] = memory }
        let id = snapshot.invocationID
        guard !id.isEmpty, !memory.superseded.contains(id) else { return [] }
        // 0 means systemd reported no time: such a snapshot cannot be ordered, so it is taken as it comes.
        let stateChange = snapshot.stateChangeTimestampMonotonic
        guard stateChange == 0 || stateChange >= memory.lastStateChange else { return [] }
        let isUnseenRun = !listed && memory.isUnseenRun(snapshot)
        memory.lastStateChange = max(memory.lastStateChange, stateChange)
        var transitions: [RunTransition] = []

        if memory.begun != id, snapshot.isCheckingCondition { memory.checking = id }
        // The check itself failed (an exit status of 255, a signal), which is not a skip: the start failed, as one
        // that fails in ExecStartPre= does.
        var failedCheck = false
        if memory.checking == id, snapshot.hasEnded, case .failed = snapshot.endTransition { failedCheck = true }
        if memory.begun != id, (snapshot.isRunning && !snapshot.isRestartPending) || failedCheck || isUnseenRun {
            memory.checking = nil
            memory.supersede()
            memory.begun = id
            // A run seen only over began when it left the inactive state; any other, by its state change.
            memory.begunAtMonotonic = isUnseenRun ? snapshot.inactiveExitMonotonic : stateChange
            memory.begunAt = snapshot.time(ofMonotonic: memory.begunAtMonotonic)
            memory.ended = nil
            memory.isFrozen = false
            transitions.append(.began)
        }
        if memory.begun == id, memory.ended != id, snapshot.hasEnded,
            !snapshot.predates(memory.begunAt, monotonic: memory.begunAtMonotonic)
        {
            memory.ended = id
            transitions.append(snapshot.endTransition)
        }
        if memory.begun == id, memory.ended != id, let freezer = snapshot.freezerState {
            if freezer == "frozen", !memory.isFrozen {
                memory.isFrozen = true
                transitions.append(.frozen)
            } else if freezer == "running", memory.isFrozen {
                memory.isFrozen = false
                transitions.append(.thawed)
            }
        }
        return transitions.map {
            // A run seen only over began when it left the inactive state.
            let begunEarlier = $0 == .began && isUnseenRun
            var transition = MappedTransition(
                unit: snapshot.name,
                transition: $0,
                invocationID: id,
                time: begunEarlier ? snapshot.time(ofMonotonic: snapshot.inactiveExitMonotonic) : snapshot.stateChangeTime,
                monotonicMicroseconds: begunEarlier ? snapshot.inactiveExitMonotonic : snapshot.stateChangeTimestampMonotonic,
                run: $0.endsRun ? snapshot.runRecord : $0 == .began ? snapshot.beginRecord : RunRecord(),
                awaitsStartup: $0 == .began && snapshot.isActivating
            )
            transition.wasSeenOnlyOver = begunEarlier
            return transition
        }
    }
}
