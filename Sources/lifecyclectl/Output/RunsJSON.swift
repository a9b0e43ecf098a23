// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// `lifecyclectl runs UNIT --json`: one compact JSON object with sorted keys, followed by a newline.
///
/// `{"runs": [{"began_at": "2026-03-02T11:55:00.000Z", "begin": "launch", "coredump": {"cursor": "s=…",
/// "signal": 11}, "cpu_seconds": 0.42, "duration_seconds": 3, "end": "crash", "ended_at": "2026-03-02T11:55:03.000Z",
/// "exit_status": "11/SEGV", "invocation_id": "…", "io_read_bytes": null, "io_write_bytes": null,
/// "memory_peak_bytes": 12950000, "oom": null, "reconciled": false, "result": "core-dump", "startup_seconds": 1.02,
/// "version": "1.25.3"}, …], "unit": "nginx.service"}`, newest run first; every key is always present, `null` where
/// unknown (the run's record, from its end: `null` while it goes on and wherever the host could not say, never `0`).
/// `oom` is `"kernel"` or `"oomd"`; `coredump` is `null` or an object whose `signal` and `cursor` are always present.
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
            "startup_seconds": run.record.startupSeconds.map(JSONValue.double) ?? .null,
            "cpu_seconds": run.record.cpuSeconds.map(JSONValue.double) ?? .null,
            "memory_peak_bytes": bytes(run.record.memoryPeakBytes),
            "io_read_bytes": bytes(run.record.ioReadBytes),
            "io_write_bytes": bytes(run.record.ioWriteBytes),
            "oom": text(run.record.oom?.rawValue),
            "coredump": run.record.coredump.map(coredump) ?? .null,
        ])
    }

    private static func bytes(_ value: UInt64?) -> JSONValue {
        value.map { .int(Int64(clamping: $0)) } ?? .null
    }

    private static func coredump(_ dump: CoreDump) -> JSONValue {
        .object([
            "signal": dump.signal.map { .int(Int64($0)) } ?? .null,
            "cursor": dump.cursor.map(JSONValue.string) ?? .null,
        ])
    }
}
