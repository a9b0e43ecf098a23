// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage

/// `lifecyclectl show UNIT`: every stored value and every current data point of one unit, as `key=value` lines in
/// the manner of `systemctl show`, or as one JSON object.
///
/// Two groups of keys, in this order:
/// 1. The state file, under the file's own key names: `unit`, `invocation_id`, `sequence`, `run_ended`, the last
///    failure (`last_failure_result`, `last_failure_exit_code`, `last_failure_exit_status` as in `9/KILL`,
///    `timestamp_last_failure`) and `recent_crashes` (the times of the last failures), then the engine's stored
///    state (`app_version`, `last_event`, `has_launched_in_run`, the `timestamp_*` times, the `count_*` counters,
///    `total_seconds_awake` and `prior_seconds_awake` of the completed foreground periods). These keys are always
///    present; a value the file does not have is empty (`null` in JSON). Times are RFC 3339 in UTC with milliseconds,
///    where the file holds milliseconds since the epoch.
/// 2. The data points a dispatch would carry at `now`, under their payload names (`lifecycle_dayssincelaunch`,
///    `lifecycle_secondsawake`, …), exactly as `LifecycleEngine.currentData(at:state:)` computes them in the given
///    time zone and as the journal's `LIFECYCLE_*` fields spell them. As in a dispatch, a data point that does not
///    apply is absent.
/// 3. The runs per version from the journal, `runs.VERSION.count`, `runs.VERSION.median_startup_seconds` and
///    `runs.VERSION.median_cpu_seconds`, newest version first (``runProperties(_:)``); none when the journal holds no
///    run of the unit or could not be read.
///
/// In the text form, booleans are `yes`/`no` as with systemctl, and control characters in a value are escaped
/// (`\n`, `\x1b`) so that one line is always one property.
enum ShowProperties {
    /// The properties of `record` at `now`, then those of the runs per version, in display order.
    static func list(
        _ record: UnitRecord, now: Milliseconds, timeZone: TimeZoneRules, versions: [VersionRuns] = []
    ) -> [(key: String, value: JSONValue)] {
        let state = record.state
        func time(_ value: Milliseconds?) -> JSONValue {
            value.map { .string(LifecycleDateFormat.iso8601Milliseconds.string($0)) } ?? .null
        }
        func count(_ value: Int) -> JSONValue { .int(Int64(value)) }
        var properties: [(key: String, value: JSONValue)] = [
            ("unit", .string(record.unit)),
            ("invocation_id", record.invocationID.map(JSONValue.string) ?? .null),
            ("sequence", .int(Int64(clamping: record.sequence))),
            ("run_ended", .bool(record.runEnded)),
            ("last_failure_result", record.lastFailure.map { .string($0.result) } ?? .null),
            ("last_failure_exit_code", record.lastFailure?.exitCode.map(JSONValue.string) ?? .null),
            ("last_failure_exit_status", record.lastFailure?.statusText.map(JSONValue.string) ?? .null),
            ("timestamp_last_failure", time(record.lastFailure?.time)),
            ("recent_crashes", .array(record.recentCrashes.map(time))),
            ("app_version", state.version.map(JSONValue.string) ?? .null),
            ("last_event", state.lastEvent.map { .string($0.rawValue) } ?? .null),
            ("has_launched_in_run", .bool(state.hasLaunchedInRun)),
            ("timestamp_first_launch", time(state.firstLaunch)),
            ("timestamp_last_launch", time(state.lastLaunch)),
            ("timestamp_last_wake", time(state.lastWake)),
            ("timestamp_last_sleep", time(state.lastSleep)),
            ("timestamp_update", time(state.update)),
            ("count_launch", count(state.launchCount)),
            ("count_wake", count(state.wakeCount)),
            ("count_sleep", count(state.sleepCount)),
            ("count_total_launch", count(state.totalLaunchCount)),
            ("count_total_wake", count(state.totalWakeCount)),
            ("count_total_sleep", count(state.totalSleepCount)),
            ("count_total_crash", count(state.totalCrashCount)),
            ("total_seconds_awake", .int(state.totalSecondsAwake)),
            ("prior_seconds_awake", .int(state.priorSecondsAwake)),
        ]
        let engine = LifecycleEngine(calendar: LocalCalendar(timeZone: timeZone))
        engine.currentData(at: now, state: state).forEachField { key, field in
            properties.append((key.description, field.jsonValue))
        }
        return properties + runProperties(versions) + timerProperties(record)
    }

    /// The `key=value` lines of `record` at `now` and of the runs per version, each ending in a newline.
    static func text(
        _ record: UnitRecord, now: Milliseconds, timeZone: TimeZoneRules, versions: [VersionRuns] = []
    ) -> String {
        var text = ""
        for (key, value) in list(record, now: now, timeZone: timeZone, versions: versions) {
            text += key + "=" + plain(value) + "\n"
        }
        return text
    }

    /// The same properties as one compact JSON object with sorted keys, followed by a newline.
    static func json(
        _ record: UnitRecord, now: Milliseconds, timeZone: TimeZoneRules, versions: [VersionRuns] = []
    ) -> String {
        let properties = list(record, now: now, timeZone: timeZone, versions: versions)
        var writer = JSONWriter()
        writer.value(.object(Dictionary(properties, uniquingKeysWith: { first, _ in first })))
        writer.byte(UInt8(ascii: "\n"))
        return writer.string
    }

    /// A value as `systemctl show` prints it.
    static func plain(_ value: JSONValue) -> String {
        switch value {
        case .null: return ""
        case .bool(let flag): return flag ? "yes" : "no"
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let string): return escapingControlCharacters(string)
        case .array, .object:
            var writer = JSONWriter()
            writer.value(value)
            return writer.string
        }
    }

    private static func escapingControlCharacters(_ string: String) -> String {
        guard string.unicodeScalars.contains(where: isControl) else { return string }
        var escaped = ""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            case _ where isControl(scalar):
                let hex = String(scalar.value, radix: 16)
                escaped += "\\x" + (hex.count < 2 ? "0" + hex : hex)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }
}
