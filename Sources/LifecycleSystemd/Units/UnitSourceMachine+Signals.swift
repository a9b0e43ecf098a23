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
