// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Logging

/// Applying a resync's `Get` replies, in arrival order relative to signals.
extension UnitSourceMachine {
    mutating func propertyRead(
        _ id: Int, _ read: PropertyRead, _ answer: PropertyReadAnswer, _ effects: inout [UnitSourceEffect]
    ) {
        guard var current = resync, current.id == id else { return }
        if case .reading(let checked) = current.step, checked.contains(read.unit), !answer.isCallFailure {
            // A check. Unchanged: nothing to apply. Moved (or unreadable): read in full next. A read PID 1 refused
            // is a failed read, below.
            if answer.unitValues?.stateChangeTimestampMonotonic != units[read.unit]?.unit.stateChangeTimestampMonotonic {
                resync = nil  // not held twice while the set grows
                current.stale.insert(read.unit)
                resync = current
            }
            return
        }
        guard var watched = units[read.unit] else { return }
        switch answer {
        case .failed(let error):
            // The unit was unloaded after the listing.
            effects.append(log(.debug, "Failed to read a unit property", [
                "unit": read.unit, "property": read.name, "error": "\(error)",
            ]))
            if read.interface == SystemdNames.unitInterface { markFailed(read.unit, in: &current) }
        case .unparsable(let error):
            effects.append(log(.warning, "Failed to parse a unit property", [
                "unit": read.unit, "property": read.name, "error": "\(error)",
            ]))
            markFailed(read.unit, in: &current)
        case .value(let values):
            watched.merge(values)
            units[read.unit] = watched
        }
    }

    private mutating func markFailed(_ unit: String, in current: inout UnitSourceResync) {
        resync = nil
        current.failed.insert(unit)
        resync = current
    }
}

extension PropertyReadAnswer {
    var isCallFailure: Bool {
        if case .failed = self { true } else { false }
    }

    /// The `.Unit` values read, nil for another interface's or a failure.
    var unitValues: UnitProperties? {
        if case .value(.unit(let values)) = self { values } else { nil }
    }
}

extension PropertyRead {
    /// What a snapshot needs besides the listing (see ``UnitProperties`` for why never `GetAll`): the type
    /// interface's values only when the listed state may use them (``TypeProperties/areUsed(inState:)``).
    static func fullReads(of entry: ListedUnit) -> [PropertyRead] {
        var reads = UnitProperties.readNames.map {
            PropertyRead(unit: entry.name, path: entry.path, interface: SystemdNames.unitInterface, name: $0)
        }
        if let typeInterface = SystemdNames.typeInterface(forUnit: entry.name),
            TypeProperties.areUsed(inState: entry.activeState)
        {
            reads += TypeProperties.readNames(of: typeInterface).map {
                PropertyRead(unit: entry.name, path: entry.path, interface: typeInterface, name: $0)
            }
        }
        return reads
    }
}
