// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

/// Launches and wakes that wait for their run's start-up (``StartingRuns``).
extension DaemonCore {
    /// Holds back the launch or wake among `trackerEffects`, made for `transition`, a run still activating.
    mutating func holdLaunch(of transition: MappedTransition, in trackerEffects: [UnitTracker.Effect]) {
        for case .dispatch(let unit, let dispatch, let kind, _, let sequence, let entry) in trackerEffects
        where kind == .launch || kind == .wake {
            startingRuns.hold(
                StartingRuns.Launch(
                    invocationID: transition.invocationID, sequence: sequence, dispatch: dispatch, kind: kind,
                    version: entry.journalFields[DispatchField.version], deadline: uptime + StartingRuns.patience
                ),
                of: unit
            )
            planStartupPatience()
        }
    }

    /// A snapshot of a unit whose launch waits: once it shows the run active, the start-up is known.
    mutating func noteStarted(_ snapshot: UnitSnapshot) {
        guard let launch = startingRuns[snapshot.name], launch.invocationID == snapshot.invocationID,
            let seconds = snapshot.beginRecord.startupSeconds
        else { return }
        releaseLaunch(of: snapshot.name, startup: seconds)
    }

    /// Before `transition` is applied: a launch waiting for the run it ends goes out with the start-up the end tells
    /// (a oneshot's activation; none for a start that failed), and one of an earlier run, which is over, without.
    mutating func releaseLaunch(before transition: MappedTransition) {
        guard let launch = startingRuns[transition.unit] else { return }
        if transition.invocationID != launch.invocationID {
            releaseLaunch(of: transition.unit, startup: nil)
        } else if transition.transition.endsRun {
            releaseLaunch(of: transition.unit, startup: transition.run.startupSeconds)
        }
    }

    /// `unit`'s launch goes to the outbox, with `startup` when known, and the unit's dispatches held behind it.
    mutating func releaseLaunch(of unit: String, startup: Double?) {
        guard var launch = startingRuns.remove(unit) else { return }
        if let startup, let (record, entry) = tracker.completeStartup(of: launch, unit: unit, seconds: startup),
            let index = launch.held.firstIndex(where: { $0.sequence == launch.sequence })
        {
            effects.append(.save(record))
            launch.held[index].entry = entry
        }
        for dispatch in launch.held { outbox.enqueue(dispatch) }
    }

    /// The timer fired: a launch that waited ``StartingRuns/patience`` goes out without its start-up.
    mutating func releaseOverdueLaunches() {
        startingRuns.armedAt = nil
        for unit in startingRuns.overdue(at: uptime) {
            let id = startingRuns[unit]?.invocationID ?? ""
            log(.info, "\(unit): run \(id) is still starting after \(StartingRuns.patience / 1_000) s: its \(startingRuns[unit]?.kind.rawValue ?? "launch") is written without its start-up, which its end carries")
            releaseLaunch(of: unit, startup: nil)
        }
        planStartupPatience()
    }

    /// Stopping: every launch waiting goes out without its start-up.
    mutating func releaseAllLaunches() {
        for unit in startingRuns.launches.keys.sorted() { releaseLaunch(of: unit, startup: nil) }
    }

    private mutating func planStartupPatience() {
        guard let next = startingRuns.nextDeadline, startingRuns.armedAt.map({ $0 > next }) ?? true else { return }
        startingRuns.armedAt = next
        effects.append(.arm(.startupPatience, at: next))
    }
}
