// SPDX-License-Identifier: Apache-2.0

import LifecycleSchema

/// Which machine's dispatches `lifecyclectl runs --directory` reads: a unit's runs are told by one machine's dispatch
/// numbers, so dispatches of several machines must not be mixed.
enum MachineChoice {
    /// Why no single machine could be chosen.
    enum Problem: Error, Equatable, CustomStringConvertible {
        /// `--machine` matched no machine that holds the unit; the machines that do.
        case noMatch(String, available: [String])
        /// Several machines hold the unit and none was chosen; their hostnames.
        case ambiguous([String])

        var description: String {
            switch self {
            case .noMatch(let wanted, let available):
                "No machine \(wanted) holds dispatches of this unit"
                    + (available.isEmpty ? "." : "; machines: \(available.joined(separator: ", ")).")
            case .ambiguous(let machines):
                "Several machines hold dispatches of this unit (\(machines.joined(separator: ", "))); "
                    + "choose one with --machine."
            }
        }
    }

    /// The dispatches of the one machine meant: the one whose `_HOSTNAME` or `_MACHINE_ID` is `wanted`, or, without
    /// `wanted`, the only machine there is. Machines are told apart by `_MACHINE_ID`, as hostnames may repeat.
    static func dispatches(
        _ dispatches: [JournaledDispatch],
        machine wanted: String?
    ) throws(Problem) -> [JournaledDispatch] {
        let byMachine = Dictionary(grouping: dispatches) { $0.machineID ?? "" }
        let names = byMachine.values.map { hostname(of: $0) }.sorted()
        guard let wanted else {
            guard byMachine.count <= 1 else { throw .ambiguous(names) }
            return dispatches
        }
        let chosen = byMachine.filter { id, entries in id == wanted || hostname(of: entries) == wanted }
        guard chosen.count == 1, let entries = chosen.first?.value else {
            throw chosen.isEmpty ? .noMatch(wanted, available: names) : .ambiguous(chosen.values.map(hostname).sorted())
        }
        return entries
    }

    /// A machine's name for messages: its last `_HOSTNAME`, else its machine id.
    private static func hostname(of dispatches: [JournaledDispatch]) -> String {
        dispatches.last?.hostname ?? dispatches.last?.machineID ?? "-"
    }
}
