// SPDX-License-Identifier: Apache-2.0

/// What a snapshot says about the unit's current run (docs/engine-semantics.md §10, "Runs of a systemd unit"): decided
/// on ActiveState and Result, and on SubState only to recognise a pending automatic restart and an `ExecCondition=`
/// check.
extension UnitSnapshot {
    /// The run is starting, running or reloading. Not while `ExecCondition=` is checked (SubState `condition`): a
    /// start the condition skips is no run, so a run begins only once the check has passed.
    public var isRunning: Bool {
        switch activeState {
        case .activating: !isCheckingCondition
        case .active, .reloading, .refreshing: true
        default: false
        }
    }

    /// Restart pending: the run is over even though ActiveState may say activating (v252: activating/auto-restart;
    /// v254+: `*-before-auto-restart`, `auto-restart-queued`).
    public var isRestartPending: Bool {
        subState == "auto-restart" || subState == "auto-restart-queued" || subState.hasSuffix("-before-auto-restart")
    }

    /// The run is starting and not active yet: its start-up is not known.
    public var isActivating: Bool { activeState == .activating && isRunning && !isRestartPending }

    /// `ExecCondition=` is being checked: the start may still be skipped.
    public var isCheckingCondition: Bool { activeState == .activating && subState == "condition" }

    /// `ExecCondition=` skipped the start (`Result=exec-condition`; systemd leaves the unit inactive, not failed).
    public var isSkipped: Bool { result == RunEnding.skippedResult }

    /// systemd refused a start because of the unit's start limit (`Result=start-limit-hit`): the unit failed, but not
    /// the run whose InvocationID it still shows, which had ended before (systemd takes a new InvocationID only once a
    /// start is allowed). How that run ended is not in this snapshot.
    public var isRefusedStart: Bool { activeState == .failed && result == RunEnding.startLimitHitResult }

    /// The run is over: inactive, failed, or waiting for an automatic restart.
    public var hasEnded: Bool {
        switch activeState {
        case .inactive, .failed: true
        default: isRestartPending
        }
    }

    /// How the run ended, for a snapshot that ``hasEnded``: cleanly only with Result=success (the exit code does not
    /// matter: a SIGTERM from systemd's stop is a success) or `exec-condition` (the start was skipped: whatever was
    /// seen of it failed nothing).
    public var endTransition: RunTransition {
        guard activeState == .failed || (result != nil && result != "success" && !isSkipped) else { return .endedCleanly }
        return .failed(
            CrashDetails(result: result ?? "failed", execMainCode: execMainCode, execMainStatus: execMainStatus, nRestarts: nRestarts)
        )
    }

    /// What the snapshot of a run's end tells of the run: its start-up, from the unit's state timestamps. A run that
    /// ended cleanly without ever becoming active is a oneshot's (any other type becomes active once started), whose
    /// start-up is its whole activation. What it cost is read apart (not in the signals).
    public var runRecord: RunRecord {
        let neverActive = activeEnterMonotonic < inactiveExitMonotonic
        let isOneshot = neverActive && endTransition == .endedCleanly
        return RunRecord(
            inactiveExitMonotonic: inactiveExitMonotonic, activeEnterMonotonic: activeEnterMonotonic,
            inactiveEnterMonotonic: inactiveEnterMonotonic, isOneshot: isOneshot,
            endedMonotonic: stateChangeTimestampMonotonic
        )
    }

    /// What the snapshot of a run's begin tells of the run: its start-up, when the run is active already (a service of
    /// `Type=simple` is active the moment it starts, and systemd's signals often show a run first when it is active).
    /// Empty while the run is still activating: its end tells the start-up then.
    public var beginRecord: RunRecord {
        guard activeState == .active || activeState == .reloading else { return RunRecord() }
        let timestamps = RunRecord(inactiveExitMonotonic: inactiveExitMonotonic, activeEnterMonotonic: activeEnterMonotonic)
        return RunRecord(startupSeconds: timestamps.startupSeconds)
    }

    /// systemd's `StateChangeTimestamp` in milliseconds, nil when it reported none.
    public var stateChangeTime: Milliseconds? {
        stateChangeTimestamp > 0 ? Milliseconds(stateChangeTimestamp / 1_000) : nil
    }

    /// The wall-clock time of a moment of the snapshot's run on PID 1's monotonic clock (`InactiveExitTimestamp`,
    /// say), counted back from its state change; the state change's time when the moment is not before it.
    public func time(ofMonotonic microseconds: UInt64) -> Milliseconds? {
        guard let time = stateChangeTime, stateChangeTimestampMonotonic >= microseconds else { return stateChangeTime }
        return time - Milliseconds((stateChangeTimestampMonotonic - microseconds) / 1_000)
    }

    /// True when the snapshot's state changed before a run that began at `began` (the time PID 1 logged the begin,
    /// from the sender's clock: `_SOURCE_REALTIME_TIMESTAMP`) did, so it cannot tell how that run ended: systemd had
    /// not started it yet (a re-announcement of the unit with the new run's id and the old run's stop, or a unit
    /// that never changed state and reports no time at all). PID 1 logs a begin in the same step as the state change
    /// or before it, so a real end is never earlier. False when `began` is unknown.
    ///
    /// With `beganMonotonic`, PID 1's monotonic clock at the begin (this boot's), the comparison is by
    /// `StateChangeTimestampMonotonic`: a wall clock stepped between the begin and the change does not change it.
    public func predates(_ began: Milliseconds?, monotonic beganMonotonic: UInt64? = nil) -> Bool {
        if let beganMonotonic, beganMonotonic > 0, stateChangeTimestampMonotonic > 0 {
            return stateChangeTimestampMonotonic < beganMonotonic
        }
        guard let began else { return false }
        guard let time = stateChangeTime else { return true }
        return time < began
    }
}
