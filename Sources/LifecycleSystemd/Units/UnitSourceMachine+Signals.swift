// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Logging

/// systemd's signals, parsed by the driver.
extension UnitSourceMachine {
    /// The type interface's values (`.Service`: `Result`, `NRestarts`, `ExecMain*`) are remembered; the `.Unit` ones
    /// that follow produce the snapshot.
    mutating func propertiesChanged(_ name: String, _ values: InterfaceProperties, _ effects: inout [UnitSourceEffect]) {
        guard phase.hasConnection else { return }
        var watched: WatchedUnit
        if let known = units[name] {
            watched = known
        } else {
            guard isWatched(name) else { return }
            // Re-announced after a reload (as by daemon-reexec): loaded again, with what was known before.
            watched = parked.removeValue(forKey: name) ?? WatchedUnit()
        }
        watched.merge(values)
        units[name] = watched
        if resync?.touched.contains(name) == false {
            var current = resync
            resync = nil  // not held twice while the set grows
            current?.touched.insert(name)
            resync = current
        }
        if case .unit = values, let snapshot = watched.snapshot(name: name) {
            effects.append(.deliver(.changed(snapshot)))
        }
    }

    mutating func unitRemoved(_ name: String, _ effects: inout [UnitSourceEffect]) {
        guard phase.hasConnection, isWatched(name) else { return }
        // A reload unloads every unit and loads it again; keep what is known until the listing says.
        let removed = units.removeValue(forKey: name)
        effects.append(.forgetDetails(of: name))
        if isReloading { parked[name] = removed }
        effects.append(.deliver(.removed(name)))
    }

    mutating func jobRemoved(_ name: String, _ jobID: UInt32, _ result: String, _ effects: inout [UnitSourceEffect]) {
        guard phase.hasConnection, isWatched(name) else { return }
        effects.append(.deliver(.jobRemoved(unit: name, jobID: jobID, result: result, unitResult: units[name]?.type.result)))
    }

    mutating func reloading(_ active: Bool, _ effects: inout [UnitSourceEffect]) {
        guard phase.hasConnection else { return }
        isReloading = active
        effects.append(.deliver(.reloading(active)))
        // Unit files may have changed: every definition is read again when next needed.
        effects.append(.forgetDetails(of: nil))
        if !active {
            // Units were re-announced; a fresh listing replaces whatever was missed or doubled.
            requestResync(&effects)
        }
    }

    /// PID 1 re-registers on the bus after the bus daemon restarts or when it hits a bus limit, and forgets every
    /// `Subscribe()` when it does: subscribe again and resync, in full, once it has a new owner.
    mutating func nameOwnerChanged(_ oldOwner: String, _ newOwner: String, _ effects: inout [UnitSourceEffect]) {
        guard phase.hasConnection else { return }
        effects.append(log(.notice, "systemd's bus name changed owner", ["old_owner": oldOwner, "new_owner": newOwner]))
        if !oldOwner.isEmpty {
            effects.append(.deliver(.signalsLost))
        }
        if !newOwner.isEmpty {
            isFullReadNeeded = true
            effects.append(.forgetDetails(of: nil))
            requestResync(&effects)
        }
    }
}

/// Which units' type-interface values an input may read (``UnitSourceMachine/typeValuesUse(of:)``).
enum TypeValuesUse: Sendable, Hashable {
    case none
    case unit(String)
    case all
}

extension UnitSourceMachine {
    /// Which units' type-interface values (`Result`, `NRestarts`, `ExecMain*`, `MainPID`) `input` may read, so that
    /// the driver parses the type interface's `PropertiesChanged` it held for them first (docs/PERFORMANCE.md,
    /// "Fewer signals parsed").
    ///
    /// Only a snapshot that shows a run's end not shown before reads them (how the run ended:
    /// ``UnitSnapshot/endTransition``, a start refused by the start limit, a failed `ExecCondition=` check), a job that
    /// did not finish as `done` (why a timer's start failed), and a unit a reload parks. systemd sends every value of
    /// the type interface in each `PropertiesChanged` of it, just before the `.Unit` one, so the signal before a
    /// `.Unit` signal that shows no new end may go unparsed: the next type signal carries its values again. A resync
    /// that only checks a unit keeps its values only while its state is the one the last signal showed, and reads
    /// them otherwise, so an end never takes a value left unparsed.
    func typeValuesUse(of input: UnitSourceInput) -> TypeValuesUse {
        switch input {
        case .propertiesChanged(let name, .unit(let values)):
            let known = units[name] ?? parked[name]
            var trial = known ?? WatchedUnit()
            trial.merge(.unit(values))
            // No snapshot at all yet, or one that shows the end of a run (one without an InvocationID, a unit not
            // started yet, shows no run).
            guard let snapshot = trial.snapshot(name: name) else { return .unit(name) }
            guard snapshot.hasEnded, !snapshot.invocationID.isEmpty else { return .none }
            // A run given its InvocationID but not yet out of the inactive state (a fresh unit's first signal, every
            // timestamp 0) ended nothing.
            if snapshot.invocationID != known?.unit.invocationID, trial.unit.inactiveExitTimestampMonotonic == 0 {
                return .none
            }
            // The end shown already, and the signal changes no state (the job's removal after it, a collection):
            // the values are those the end was taken with.
            if let before = known?.snapshot(name: name), before.hasEnded, before.invocationID == snapshot.invocationID,
               before.activeState == snapshot.activeState, before.subState == snapshot.subState {
                return .none
            }
            return .unit(name)
        case .propertiesChanged(_, .type):
            return .none
        case .jobRemoved(let unit, _, let result):
            return result == "done" ? .none : .unit(unit)
        case .unitRemoved(let unit):
            // Only a reload keeps a removed unit (parked), with its values.
            return isReloading ? .unit(unit) : .none
        case .start, .stop, .connected, .connectFailed, .connectionLost, .subscribed, .listed, .propertyRead,
            .propertiesRead, .reloading, .nameOwnerChanged, .timerFired:
            return .all
        }
    }
}
