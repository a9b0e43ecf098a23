// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// `lifecyclectl status --directory DIR` as a table, one row per machine and unit: MACHINE (the sender's hostname),
/// UNIT, STATE (from the newest dispatch: running, stopped, failed, or `-` after a custom event), LAST EVENT and
/// WHEN, LAUNCHES and CRASHES (the payload's lifetime totals), RESULT of a crash, and VERSION.
enum FleetTable {
    static let columns: [TextTable.Column] = [
        .init(title: "MACHINE", alignment: .left),
        .init(title: "UNIT", alignment: .left),
        .init(title: "STATE", alignment: .left),
        .init(title: "LAST EVENT", alignment: .left),
        .init(title: "WHEN", alignment: .left),
        .init(title: "LAUNCHES", alignment: .right),
        .init(title: "CRASHES", alignment: .right),
        .init(title: "RESULT", alignment: .left),
        .init(title: "VERSION", alignment: .left),
    ]

    /// The table, ending in a newline; `emptyMessage` when there is no row.
    static func render(_ rows: [FleetRow], now: Milliseconds, colour: Bool, legend: Bool, emptyMessage: String)
        -> String
    {
        if rows.isEmpty { return legend ? emptyMessage + "\n" : "" }
        var table = TextTable(columns: columns)
        for row in rows { table.append(cells(row, now: now)) }
        var lines = table.lines(header: legend, colour: colour)
        if legend {
            let machines = Set(rows.map(\.machineID)).count
            lines.append("")
            lines.append("STATE and LAST EVENT: each unit's newest dispatch in the journal files read.")
            lines.append(
                "\(rows.count == 1 ? "1 unit" : "\(rows.count) units") on "
                    + "\(machines == 1 ? "1 machine" : "\(machines) machines") listed."
            )
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func cells(_ row: FleetRow, now: Milliseconds) -> [TextTable.Cell] {
        let style: TextStyle? =
            switch row.state {
            case "failed": .red
            case "running": .green
            default: nil
            }
        return [
            .init(row.machine),
            .init(row.unit),
            .init(row.state ?? "-", style: style),
            .init(row.event),
            .init(row.eventAt.map { Humanize.relativeTime($0, now: now) } ?? "-"),
            .init(row.count("lifecycle_totallaunchcount").map(String.init) ?? "-"),
            .init(row.count("lifecycle_totalcrashcount").map(String.init) ?? "-"),
            .init(row.result ?? "-", style: row.result == nil ? nil : .red),
            .init(row.version.map(Humanize.version) ?? "-"),
        ]
    }
}
