// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// `lifecyclectl status --directory DIR --json`: one compact JSON object with sorted keys, followed by a newline.
///
/// `{"units": [{"last_event": "launch", "last_event_at": "2026-03-02T11:55:00.000Z", "machine": "web-1",
/// "machine_id": "…", "payload": {…}, "result": null, "sequence": 12, "state": "running",
/// "unit": "nginx.service", "version": "1.25.3"}, …]}`, sorted by machine, then unit; every key is always present,
/// `null` where unknown. `payload` is the newest dispatch's LIFECYCLE_PAYLOAD as an object.
enum FleetJSON {
    static func render(_ rows: [FleetRow]) -> String {
        var writer = JSONWriter()
        writer.value(.object(["units": .array(rows.map(object))]))
        writer.byte(UInt8(ascii: "\n"))
        return writer.string
    }

    private static func object(_ row: FleetRow) -> JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return .object([
            "machine": .string(row.machine),
            "machine_id": .string(row.machineID),
            "unit": .string(row.unit),
            "state": text(row.state),
            "last_event": .string(row.event),
            "last_event_at": text(row.eventAt.map { LifecycleDateFormat.iso8601Milliseconds.string($0) }),
            "sequence": row.sequence.map { JSONValue.int(Int64(clamping: $0)) } ?? .null,
            "version": text(row.version),
            "result": text(row.result),
            "payload": row.payload ?? .null,
        ])
    }
}
