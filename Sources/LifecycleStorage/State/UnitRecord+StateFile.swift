// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

extension UnitRecord {
    /// Reads a record from its state file's parsed top-level object, with the rules of its `Codable` form: older
    /// files' `last_dispatch`, and absent optional parts.
    ///
    /// Sequence numbers are read up to 2⁶³ − 1 (the parser's integers), which no unit reaches: that many dispatches
    /// would take 290,000 years at a million a second.
    ///
    /// Read from the document the version check has already parsed, not by `JSONDecoder` from the bytes again: the
    /// state files are read at every start, and parsing each file twice (the second time through `Decoder`
    /// containers) was about a third of lifecycled's start-up CPU (docs/PERFORMANCE.md).
    init(stateFile file: StateFileObject) throws(StateFileDecoder.Corruption) {
        _ = try file.int("schema_version")
        let unit = try file.string("unit")
        let state = try UnitState(stateFile: try file.object("state"))
        var pending: [JournalFields] = []
        if let items = try file.optionalArray("pending_dispatches") {
            pending = try items.enumerated().map { index, item throws(StateFileDecoder.Corruption) in
                try JournalFields(stateFile: item, path: file.keyPath("pending_dispatches") + "[\(index)]")
            }
        } else if let last = file.optional("last_dispatch") {
            pending = [try JournalFields(stateFile: last, path: file.keyPath("last_dispatch"))]
        }
        let sequence = try file.int("sequence")
        guard sequence >= 0 else {
            throw StateFileDecoder.Corruption(reason: "\(file.keyPath("sequence")): expected a number from 0")
        }
        var crashes: [Milliseconds] = []
        for (index, item) in (try file.optionalArray("recent_crashes") ?? []).enumerated() {
            guard case .int(let time) = item else {
                throw StateFileDecoder.Corruption(
                    reason: "\(file.keyPath("recent_crashes"))[\(index)]: expected an integer, found \(item.typeName)"
                )
            }
            crashes.append(time)
        }
        var results: [String: Int] = [:]
        if let counts = try file.optionalObject("crash_results") {
            for key in counts.members.keys {
                results[key] = Int(clamping: try counts.int(key))
            }
        }
        var timers: [String: TimerTotals] = [:]
        if let members = try file.optionalObject("timers") {
            for key in members.members.keys { timers[key] = try TimerTotals(stateFile: try members.object(key)) }
        }
        self.init(
            unit: unit,
            state: state,
            invocationID: try file.optionalString("invocation_id"),
            runEnded: try file.optionalBool("run_ended") ?? false,
            pendingDispatches: pending,
            sequence: UInt64(sequence),
            lastFailure: try file.optionalObject("last_failure").map { failure throws(StateFileDecoder.Corruption) in
                RunFailure(
                    result: try failure.string("result"), exitCode: try failure.optionalString("exit_code"),
                    exitStatus: try failure.optionalInt("exit_status"), time: try failure.int("time")
                )
            },
            recentCrashes: crashes,
            crashResults: results,
            // Files from before the count: a recorded update time means at least one update was seen.
            updateCount: Int(clamping: try file.optionalInt("update_count") ?? (state.update == nil ? 0 : 1)),
            runTotals: try file.optionalObject("run_totals").map(RunTotals.init(stateFile:)) ?? RunTotals(),
            timers: timers,
            retired: try file.optionalInt("retired").map { Milliseconds($0) }
        )
    }
}

extension RunTotals {
    /// Reads the totals from the `run_totals` object of a state file, as their `Codable` form does.
    init(stateFile totals: StateFileObject) throws(StateFileDecoder.Corruption) {
        self.init()
        let buckets = try totals.optionalArray("startup_buckets") ?? []
        guard buckets.count == Self.startupBounds.count else {
            throw StateFileDecoder.Corruption(
                reason: "\(totals.keyPath("startup_buckets")): expected \(Self.startupBounds.count) counts, found \(buckets.count)"
            )
        }
        for (index, item) in buckets.enumerated() {
            guard case .int(let count) = item, count >= 0 else {
                throw StateFileDecoder.Corruption(
                    reason: "\(totals.keyPath("startup_buckets"))[\(index)]: expected a count, found \(item.typeName)"
                )
            }
            startupBuckets[index] = Int(clamping: count)
        }
        startups = Int(clamping: try totals.int("startup_count"))
        startupMicroseconds = try totals.int("startup_microseconds")
        startupCountedFor = try totals.optionalString("startup_counted_for")
        cpuMicroseconds = try totals.int("cpu_microseconds")
        if let kills = try totals.optionalObject("oom_kills") {
            for key in kills.members.keys { oomKills[key] = Int(clamping: try kills.int(key)) }
        }
        coredumps = Int(clamping: try totals.int("coredumps"))
    }
}

extension UnitState {
    /// Reads the engine's state from the `state` object of a state file, as its `Codable` form does.
    init(stateFile state: StateFileObject) throws(StateFileDecoder.Corruption) {
        self.init()
        schemaVersion = Int(clamping: try state.int("schema_version"))
        version = try state.optionalString("app_version")
        firstLaunch = try state.optionalInt("timestamp_first_launch")
        lastLaunch = try state.optionalInt("timestamp_last_launch")
        lastWake = try state.optionalInt("timestamp_last_wake")
        lastSleep = try state.optionalInt("timestamp_last_sleep")
        update = try state.optionalInt("timestamp_update")
        func count(_ key: String) throws(StateFileDecoder.Corruption) -> Int {
            Int(clamping: try state.optionalInt(key) ?? 0)
        }
        launchCount = try count("count_launch")
        wakeCount = try count("count_wake")
        sleepCount = try count("count_sleep")
        totalLaunchCount = try count("count_total_launch")
        totalWakeCount = try count("count_total_wake")
        totalSleepCount = try count("count_total_sleep")
        totalCrashCount = try count("count_total_crash")
        if let name = try state.optionalString("last_event") {
            guard let event = LifecycleEvent(rawValue: name) else {
                throw StateFileDecoder.Corruption(
                    reason: "\(state.keyPath("last_event")): expected \"launch\", \"wake\" or \"sleep\", found \"\(name)\""
                )
            }
            lastEvent = event
        }
        totalSecondsAwake = try state.optionalInt("total_seconds_awake") ?? 0
        priorSecondsAwake = try state.optionalInt("prior_seconds_awake") ?? 0
        hasLaunchedInRun = try state.optionalBool("has_launched_in_run") ?? false
    }
}

extension JournalFields {
    /// Reads a pending dispatch: an array of `[name, value]` pairs, or the object of earlier builds (its fields then
    /// in name order).
    init(stateFile value: JSONValue, path: String) throws(StateFileDecoder.Corruption) {
        switch value {
        case .array(let pairs):
            var fields: [(name: String, value: String)] = []
            fields.reserveCapacity(pairs.count)
            for (index, pair) in pairs.enumerated() {
                guard case .array(let parts) = pair, parts.count == 2,
                      case .string(let name) = parts[0], case .string(let text) = parts[1]
                else {
                    throw StateFileDecoder.Corruption(reason: "\(path)[\(index)]: expected a [name, value] pair of strings")
                }
                fields.append((name, text))
            }
            self.init(fields)
        case .object(let members):
            var fields: [(name: String, value: String)] = []
            for name in members.keys.sorted() {
                guard case .string(let text)? = members[name] else {
                    throw StateFileDecoder.Corruption(reason: "\(path).\(name): expected a string")
                }
                fields.append((name, text))
            }
            self.init(fields)
        default:
            throw StateFileDecoder.Corruption(reason: "\(path): expected an array of [name, value] pairs, found \(value.typeName)")
        }
    }
}
