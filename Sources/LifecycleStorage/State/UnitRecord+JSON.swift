// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

extension UnitRecord {
    /// The record's state file: pretty-printed JSON with sorted keys and a final newline, the bytes Foundation's
    /// `JSONEncoder` writes with `[.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]` for the ``Codable`` form
    /// (but for control characters, which are escaped as `\u00XX` where Foundation writes `\b` and `\f`), except
    /// that each pending dispatch is compact, on a line of its own.
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
        if !crashResults.isEmpty { writer.member("crash_results", counts: crashResults) }
        writer.member("invocation_id", invocationID)
        if let lastFailure {
            writer.key("last_failure")
            writer.beginObject()
            writer.member("exit_code", lastFailure.exitCode)
            writer.member("exit_status", lastFailure.exitStatus)
            writer.member("result", lastFailure.result)
            writer.member("time", lastFailure.time)
            writer.endObject()
        }
        if !pendingDispatches.isEmpty {
            // Each dispatch compact, on a line of its own: pretty-printed, its forty-odd fields took four lines each,
            // and their line breaks and indentation were a fifth of a save's work (docs/PERFORMANCE.md, "Fewer
            // instructions per run, third round").
            writer.key("pending_dispatches")
            writer.beginArray()
            for dispatch in pendingDispatches {
                writer.element()
                writer.compact { json in dispatch.writeCoded(to: &json) }
            }
            writer.endArray()
        }
        if !recentCrashes.isEmpty { writer.member("recent_crashes", integers: recentCrashes) }
        if let retired {
            writer.key("retired")
            writer.integer(retired)
        }
        if runEnded { writer.member("run_ended", true) }
        if !runTotals.isEmpty {
            writer.key("run_totals")
            Self.write(runTotals, to: &writer)
        }
        writer.member("schema_version", Int64(Self.currentSchemaVersion))
        writer.key("sequence")
        writer.unsigned(sequence)
        writer.key("state")
        Self.write(state, to: &writer)
        if !timers.isEmpty {
            writer.key("timers")
            writer.beginObject()
            for (timer, totals) in timers.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes($1.key.utf8) }) {
                writer.key(named: timer)
                totals.write(to: &writer)
            }
            writer.endObject()
        }
        writer.member("unit", unit)
        if updateCount > 0 { writer.member("update_count", Int64(updateCount)) }
        writer.endObject()
    }

    /// ``RunTotals`` as its `Codable` form gives it: every key.
    private static func write(_ totals: RunTotals, to writer: inout JSONLayoutWriter) {
        writer.beginObject()
        writer.member("coredumps", Int64(totals.coredumps))
        writer.member("cpu_microseconds", totals.cpuMicroseconds)
        writer.member("oom_kills", counts: totals.oomKills)
        writer.member("startup_buckets", integers: totals.startupBuckets.lazy.map { Int64($0) })
        writer.member("startup_count", Int64(totals.startups))
        writer.member("startup_counted_for", totals.startupCountedFor)
        writer.member("startup_microseconds", totals.startupMicroseconds)
        writer.endObject()
    }

    /// ``UnitState`` as its synthesized `Codable` form gives it: every key, but absent optionals.
    private static func write(_ state: UnitState, to writer: inout JSONLayoutWriter) {
        writer.beginObject()
        writer.member("app_version", state.version)
        writer.member("count_launch", Int64(state.launchCount))
        writer.member("count_sleep", Int64(state.sleepCount))
        writer.member("count_total_crash", Int64(state.totalCrashCount))
        writer.member("count_total_launch", Int64(state.totalLaunchCount))
        writer.member("count_total_sleep", Int64(state.totalSleepCount))
        writer.member("count_total_wake", Int64(state.totalWakeCount))
        writer.member("count_wake", Int64(state.wakeCount))
        writer.member("has_launched_in_run", state.hasLaunchedInRun)
        writer.member("last_event", state.lastEvent?.rawValue)
        writer.member("prior_seconds_awake", state.priorSecondsAwake)
        writer.member("schema_version", Int64(state.schemaVersion))
        writer.member("timestamp_first_launch", state.firstLaunch)
        writer.member("timestamp_last_launch", state.lastLaunch)
        writer.member("timestamp_last_sleep", state.lastSleep)
        writer.member("timestamp_last_wake", state.lastWake)
        writer.member("timestamp_update", state.update)
        writer.member("total_seconds_awake", state.totalSecondsAwake)
        writer.endObject()
    }
}
