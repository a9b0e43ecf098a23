// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// `lifecyclectl status --directory DIR --json` (and `--file`): one compact JSON object with sorted keys, followed by
/// a newline.
///
/// `{"units": [{…}, …]}`, sorted by machine, then unit: each unit's object has every key of `status --json`
/// (``StatusJSON``) with the same meaning, computed from the unit's dispatches in the collected journal
/// (``UnitSummary/init(dispatches:now:crashLoop:)``), plus `"machine"` (the sender's hostname, `-` when unknown) and
/// `"machine_id"`.
enum FleetJSON {
    static func render(_ rows: [FleetRow]) -> String {
        var writer = JSONWriter()
        writer.value(.object(["units": .array(rows.map(object))]))
        writer.byte(UInt8(ascii: "\n"))
        return writer.string
    }

    private static func object(_ row: FleetRow) -> JSONValue {
        guard case .object(var members) = StatusJSON.object(row.summary) else { return .null }
        members["machine"] = .string(row.machine)
        members["machine_id"] = .string(row.machineID)
        return .object(members)
    }
}
