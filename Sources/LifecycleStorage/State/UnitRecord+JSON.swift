// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

extension UnitRecord {
    /// The record's state file: pretty-printed JSON with sorted keys and a final newline, the bytes Foundation's
    /// `JSONEncoder` writes with `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]` for the ``Codable`` form
    /// (but for control characters, which are escaped as `\u00XX` where Foundation writes `\b` and `\f`).
    ///
    /// Written by hand because a record is saved twice per run: `JSONEncoder` walked the record through `Encoder`
    /// containers, boxed every value and sorted every object's keys at run time, which made it the largest part of
    /// lifecycled's CPU per run (docs/PERFORMANCE.md). Here the keys are written in their sorted order directly.
    /// `UnitRecordJSONTests` checks the bytes against `JSONEncoder` and the round trip through the decoder.
    public var stateFileBytes: [UInt8] {
        var writer = JSONLayoutWriter(.pretty, reservingCapacity: 1024 + pendingDispatches.count * 4096)
        write(to: &writer)
        writer.newline()
        return writer.bytes
    }

    /// The records as one compact JSON array, as lifecycled's `ListUnits` answers.
    public static func compactJSON(_ records: [UnitRecord]) -> String {
        var writer = JSONLayoutWriter(.compact, reservingCapacity: 1024 * records.count + 2)
        writer.beginArray()
        for record in records {
            writer.element()
            record.write(to: &writer)
        }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The record as compact JSON, as lifecycled's `GetUnit` answers.
    public var compactJSON: String {
        var writer = JSONLayoutWriter(.compact)
        write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Writes the record's ``Codable`` form, keys in sorted order.
    public func write(to writer: inout JSONLayoutWriter) {
        writer.beginObject()
        if !crashResults.isEmpty {
            writer.key("crash_results")
            writer.beginObject()
            for (result, count) in crashResults.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes($1.key.utf8) }) {
                writer.key(result)
                writer.integer(Int64(count))
            }
            writer.endObject()
        }
        if let invocationID {
            writer.key("invocation_id")
            writer.string(invocationID)
        }
        if let lastFailure {
            writer.key("last_failure")
            writer.beginObject()
            if let exitCode = lastFailure.exitCode {
                writer.key("exit_code")
                writer.string(exitCode)
            }
            if let exitStatus = lastFailure.exitStatus {
                writer.key("exit_status")
                writer.integer(exitStatus)
            }
            writer.key("result")
            writer.string(lastFailure.result)
            writer.key("time")
            writer.integer(lastFailure.time)
            writer.endObject()
        }
        if !pendingDispatches.isEmpty {
            writer.key("pending_dispatches")
            writer.beginArray()
            for dispatch in pendingDispatches {
                writer.element()
                writer.beginArray()
                for field in dispatch.fields {
                    writer.element()
                    writer.beginArray()
                    writer.element()
                    writer.string(field.name)
                    writer.element()
                    writer.string(field.value)
                    writer.endArray()
                }
                writer.endArray()
            }
            writer.endArray()
        }
        if !recentCrashes.isEmpty {
            writer.key("recent_crashes")
            writer.beginArray()
            for time in recentCrashes {
                writer.element()
                writer.integer(time)
            }
            writer.endArray()
        }
        if runEnded {
            writer.key("run_ended")
            writer.bool(true)
        }
        writer.key("schema_version")
        writer.integer(Int64(Self.currentSchemaVersion))
        writer.key("sequence")
        writer.unsigned(sequence)
        writer.key("state")
        Self.write(state, to: &writer)
        writer.key("unit")
        writer.string(unit)
        if updateCount > 0 {
            writer.key("update_count")
            writer.integer(Int64(updateCount))
        }
        writer.endObject()
    }

    /// ``UnitState`` as its synthesized `Codable` form gives it: every key, but absent optionals.
    private static func write(_ state: UnitState, to writer: inout JSONLayoutWriter) {
        writer.beginObject()
        if let version = state.version {
            writer.key("app_version")
            writer.string(version)
        }
        writer.key("count_launch")
        writer.integer(Int64(state.launchCount))
        writer.key("count_sleep")
        writer.integer(Int64(state.sleepCount))
        writer.key("count_total_crash")
        writer.integer(Int64(state.totalCrashCount))
        writer.key("count_total_launch")
        writer.integer(Int64(state.totalLaunchCount))
        writer.key("count_total_sleep")
        writer.integer(Int64(state.totalSleepCount))
        writer.key("count_total_wake")
        writer.integer(Int64(state.totalWakeCount))
        writer.key("count_wake")
        writer.integer(Int64(state.wakeCount))
        writer.key("has_launched_in_run")
        writer.bool(state.hasLaunchedInRun)
        if let lastEvent = state.lastEvent {
            writer.key("last_event")
            writer.string(lastEvent.rawValue)
        }
        writer.key("prior_seconds_awake")
        writer.integer(state.priorSecondsAwake)
        writer.key("schema_version")
        writer.integer(Int64(state.schemaVersion))
        for (key, time) in [
            ("timestamp_first_launch", state.firstLaunch), ("timestamp_last_launch", state.lastLaunch),
            ("timestamp_last_sleep", state.lastSleep), ("timestamp_last_wake", state.lastWake),
            ("timestamp_update", state.update),
        ] {
            guard let time else { continue }
            writer.key(key)
            writer.integer(time)
        }
        writer.key("total_seconds_awake")
        writer.integer(state.totalSecondsAwake)
        writer.endObject()
    }
}
