// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// `lifecyclectl status --json`: one compact JSON object with sorted keys, followed by a newline.
///
/// This is an interface for scripts and integration tests; fields are added, never renamed or removed. Every key is
/// always present, with `null` when there is no value:
///
/// ```
/// {"daemon": {"pid": 412, "running": true},
///  "units": [{"counts": {"crashes": 1, "launches": 2, "sleeps": 2, "wakes": 3},
///             "crash_looping": false,
///             "days_since_launch": 1,
///             "invocation_id": "0123456789abcdef0123456789abcdef",
///             "last_event": "sleep",
///             "last_event_time": "2026-03-02T11:00:00.000Z",
///             "result": null,
///             "sequence": 7,
///             "state": "stopped",
///             "status": null,
///             "total_seconds_awake": 7200,
///             "unit": "nginx.service",
///             "version": "1.25.3"}]}
/// ```
///
/// - `daemon.running`: true or false, or null when the process table is hidden from the caller; `daemon.pid`: the
///   process id when running, else null.
/// - `units`: one object per state file, sorted by unit name; empty when no unit has been tracked yet.
/// - `state`: "running", "stopped" (the last run slept) or "failed" (it ended with a crash notice), as lifecycled
///   recorded it; null before the first event. `result`: systemd's Result of the failed run ("exit-code", "signal",
///   "timeout", …) when `state` is "failed", else null; `status`: its exit status ("7") or signal ("9/KILL"), null
///   when unknown. `crash_looping`: true when the unit failed at least `crash_loop_crashes` times within the last
///   `crash_loop_minutes` (configuration; 3 in 10 minutes by default).
/// - `counts`: lifetime totals of launches, wakes (every start, launches included), sleeps and crashes (the failed
///   last run included, which the journal's `lifecycle_totalcrashcount` counts only at the next launch).
/// - `last_event`: "launch", "wake", "sleep" or null; `last_event_time`: its RFC 3339 UTC time with milliseconds.
/// - `total_seconds_awake`: whole seconds awake in the runs that ended with a sleep, plus the running one; a failed
///   run adds nothing (the reference adds time awake only at a sleep).
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
    ///   - crashLoop: when failures make a crash loop.
    static func render(
        _ records: [UnitRecord],
        now: Milliseconds,
        timeZone: TimeZoneRules,
        daemon: DaemonStatus,
        crashLoop: CrashLoopRule = CrashLoopRule()
    ) -> String {
        let units = UnitSummary.summaries(records, now: now, timeZone: timeZone, crashLoop: crashLoop).map(object)
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

    /// One unit's object, the same for a state file and for a collected journal (``FleetJSON`` adds the machine).
    static func object(_ unit: UnitSummary) -> JSONValue {
        .object([
            "unit": .string(unit.unit),
            "state": unit.runState.map { .string($0.rawValue) } ?? .null,
            "result": unit.failure.map { .string($0.result) } ?? .null,
            "status": unit.failure?.statusText.map(JSONValue.string) ?? .null,
            "crash_looping": .bool(unit.isCrashLooping),
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
