// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

/// One unit on one machine in `lifecyclectl status --directory`: the unit's summary as its dispatches in the collected
/// journal tell it (``UnitSummary/init(dispatches:now:crashLoop:)``), and the machine that sent them.
struct FleetRow: Sendable, Equatable {
    /// The sender's hostname (`_HOSTNAME`, which journald adds and systemd-journal-remote keeps); `-` when absent.
    var machine: String
    /// The sender's `_MACHINE_ID`, which tells machines apart when hostnames repeat.
    var machineID: String
    var summary: UnitSummary

    var unit: String { summary.unit }

    /// The rows that `dispatches` (of any units and machines, in any order) make: one per machine and unit, sorted by
    /// machine, then unit.
    static func rows(from dispatches: [JournaledDispatch], now: Milliseconds, crashLoop: CrashLoopRule) -> [FleetRow] {
        let groups = Dictionary(grouping: dispatches) { ($0.machineID ?? "") + "\u{0}" + $0.unit }
        return groups.values.map { group in
            let newest = group.max { $0.sequence < $1.sequence }
            return FleetRow(
                machine: newest?.hostname ?? "-",
                machineID: newest?.machineID ?? "",
                summary: UnitSummary(dispatches: group, now: now, crashLoop: crashLoop)
            )
        }
        .sorted { ($0.machine, $0.machineID, $0.unit) < ($1.machine, $1.machineID, $1.unit) }
    }
}
