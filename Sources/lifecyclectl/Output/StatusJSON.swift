// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage

/// `lifecyclectl status --json`: one compact JSON object with sorted keys, followed by a newline.
///
/// This is an interface for scripts and integration tests; fields are added, never renamed or removed. Every key is
/// always present, with `null` when there is no value:
///
/// ```
/// {"daemon": {"pid": 412, "running": true},
///  "units": [{"counts": {"crashes": 1, "launches": 2, "sleeps": 2, "wakes": 3},
///             "days_since_launch": 1,
///             "invocation_id": "0123456789abcdef0123456789abcdef",
///             "last_event": "sleep",
///             "last_event_time": "2026-03-02T11:00:00.000Z",
///             "sequence": 7,
///             "total_seconds_awake": 7200,
///             "unit": "nginx.service",
///             "version": "1.25.3"}]}
/// ```
///
/// - `daemon.running`: true or false, or null when the process table is hidden from the caller; `daemon.pid`: the
///   process id when running, else null.
/// - `units`: one object per state file, sorted by unit name; empty when no unit has been tracked yet.
/// - `counts`: lifetime totals of launches, wakes (every start, launches included), sleeps and crashes.
/// - `last_event`: "launch", "wake", "sleep" or null; `last_event_time`: its RFC 3339 UTC time with milliseconds.
/// - `total_seconds_awake`: whole seconds awake over the unit's history, the running period included when the last
///   event is a launch or wake.
/// - `days_since_launch`: complete 24-hour periods since the first launch, or null.
/// - `version`: the full stored version (never shortened), or null; `invocation_id`: systemd's InvocationID of the
///   current or last run, or null; `sequence`: the number of the unit's last dispatch.
enum StatusJSON {
    /// The JSON document for `records` at `now`.
    ///
    /// - Parameters:
    ///   - records: the state files' records, in any order.
    ///   - now: the instant the time awake and days are computed for.
    ///   - timeZone: the zone of the engine's local calendar (no field depends on it today).
    ///   - daemon: whether lifecycled runs.
    static func render(_ records: [UnitRecord], now: Milliseconds, timeZone: TimeZoneRules, daemon: DaemonStatus) -> String {
        let units = UnitSummary.summaries(records, now: now, timeZone: timeZone).map(object)
        let document = JSONValue.object(["daemon": daemonObject(daemon), "units": .array(units)])
        var writer = JSONWriter()
        writer.value(document)
        writer.byte(UInt8(ascii: "\n"))
        return writer.string
    }

    static func daemonObject(_ daemon: DaemonStatus) -> JSONValue {
        .object([
            "running": daemon.isRunning.map(JSONValue.bool) ?? .null,
            "pid": daemon.pid.map { .int(Int64($0)) } ?? .null,
        ])
    }

    private static func object(_ unit: UnitSummary) -> JSONValue {
        .object([
            "unit": .string(unit.unit),
            "last_event": unit.lastEvent.map { .string($0.rawValue) } ?? .null,
            "last_event_time": unit.lastEventTime.map { .string(LifecycleDateFormat.iso8601Milliseconds.string($0)) }
                ?? .null,
            "counts": .object([
                "launches": .int(Int64(unit.launches)),
                "wakes": .int(Int64(unit.wakes)),
                "sleeps": .int(Int64(unit.sleeps)),
                "crashes": .int(Int64(unit.crashes)),
            ]),
            "total_seconds_awake": .int(unit.totalSecondsAwake),
            "days_since_launch": unit.daysSinceLaunch.map(JSONValue.int) ?? .null,
            "version": unit.version.map(JSONValue.string) ?? .null,
            "invocation_id": unit.invocationID.map(JSONValue.string) ?? .null,
            "sequence": .int(Int64(clamping: unit.sequence)),
        ])
    }
}
