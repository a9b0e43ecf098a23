// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// `lifecyclectl runs UNIT --json`: one compact JSON object with sorted keys, followed by a newline.
///
/// `{"runs": [{"began_at": "2026-03-02T11:55:00.000Z", "begin": "launch", "duration_seconds": 3,
/// "end": "crash", "ended_at": "2026-03-02T11:55:03.000Z", "exit_status": "9/KILL",
/// "invocation_id": "…", "reconciled": false, "result": "signal", "version": "1.25.3"}, …],
/// "unit": "nginx.service"}`, newest run first; every key is always present, `null` where unknown.
enum RunsJSON {
    static func render(unit: String, runs: [UnitRun]) -> String {
        let document = JSONValue.object(["unit": .string(unit), "runs": .array(runs.map(object))])
        var writer = JSONWriter()
        writer.value(document)
        writer.byte(UInt8(ascii: "\n"))
        return writer.string
    }

    private static func object(_ run: UnitRun) -> JSONValue {
        func time(_ value: Milliseconds?) -> JSONValue {
            value.map { .string(LifecycleDateFormat.iso8601Milliseconds.string($0)) } ?? .null
        }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return .object([
            "invocation_id": text(run.invocationID),
            "begin": text(run.begin?.rawValue),
            "began_at": time(run.beganAt),
            "end": text(run.end),
            "ended_at": time(run.endedAt),
            "duration_seconds": run.durationSeconds.map(JSONValue.int) ?? .null,
            "result": text(run.result),
            "exit_status": text(run.exitStatus),
            "version": text(run.version),
            "reconciled": .bool(run.reconciled),
        ])
    }
}
