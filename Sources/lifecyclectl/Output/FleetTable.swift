// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// `lifecyclectl status --directory DIR` as a table: the columns of `lifecyclectl status` (``StatusTable``), computed
/// from each unit's dispatches in the collected journal, after MACHINE (the sender's hostname).
enum FleetTable {
    static let columns: [TextTable.Column] = [.init(title: "MACHINE", alignment: .left)] + StatusTable.columns

    /// The table, ending in a newline; `emptyMessage` when there is no row.
    static func render(
        _ rows: [FleetRow], now: Milliseconds, colour: Bool, legend: Bool, crashLoop: CrashLoopRule,
        emptyMessage: String
    ) -> String {
        if rows.isEmpty { return legend ? emptyMessage + "\n" : "" }
        var table = TextTable(columns: columns)
        for row in rows { table.append([.init(row.machine)] + StatusTable.cells(row.summary, now: now)) }
        var lines = table.lines(header: legend, colour: colour)
        if legend {
            let machines = Set(rows.map(\.machineID)).count
            lines.append("")
            lines += StatusTable.legendLines(crashLoop: crashLoop)
            lines.append("Each row: the unit's dispatches in the journal files read; MACHINE: the sender's hostname.")
            lines.append(
                "\(rows.count == 1 ? "1 unit" : "\(rows.count) units") on "
                    + "\(machines == 1 ? "1 machine" : "\(machines) machines") listed."
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
