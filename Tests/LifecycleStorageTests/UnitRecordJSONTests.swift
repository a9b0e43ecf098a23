// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

/// The hand-written JSON of records against Foundation's `JSONEncoder` of their `Codable` form, and back through the
/// state files' decoder.
struct UnitRecordJSONTests {
    static func encoded(_ value: some Encodable, _ formatting: JSONEncoder.OutputFormatting) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting.union([.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Random records with every optional part present or absent, strings without control characters (which
    /// Foundation escapes as `\b`, `\f`: see ``controlCharacters()``).
    static func records(seed: UInt64, count: Int) -> [UnitRecord] {
        var random = SeededGenerator(seed: seed)
        func maybe<T>(_ value: T) -> T? { Bool.random(using: &random) ? value : nil }
        func time() -> Milliseconds { Milliseconds.random(in: 0...4_102_444_800_000, using: &random) }
        func number() -> Int { Int.random(in: 0...1_000_000, using: &random) }
        let texts = ["nginx.service", "a/b \"quoted\" \\ back", "Grüße ✓", "", "x=y=z", "line\nbreak\ttab"]
        return (0..<count).map { _ in
            var state = UnitState()
            state.version = maybe(texts.randomElement(using: &random)!)
            state.firstLaunch = maybe(time())
            state.lastLaunch = maybe(time())
            state.lastWake = maybe(time())
            state.lastSleep = maybe(time())
            state.update = maybe(time())
            state.launchCount = number()
            state.wakeCount = number()
            state.sleepCount = number()
            state.totalLaunchCount = number()
            state.totalWakeCount = number()
            state.totalSleepCount = number()
            state.totalCrashCount = number()
            state.lastEvent = maybe(LifecycleEvent.allCases.randomElement(using: &random)!)
            state.totalSecondsAwake = Int64(number())
            state.priorSecondsAwake = Int64(number())
            state.hasLaunchedInRun = Bool.random(using: &random)
            let pending = (0..<Int.random(in: 0...2, using: &random)).map { _ in
                JournalFields((0..<Int.random(in: 1...5, using: &random)).map { index in
                    (name: "FIELD_\(index)", value: texts.randomElement(using: &random)!)
                })
            }
            let failure = maybe(RunFailure(
                result: "exit-code", exitCode: maybe("exited"), exitStatus: maybe(Int64(number()) - 500_000),
                time: time()
            ))
            var results: [String: Int] = [:]
            for result in ["signal", "exit-code", "core-dump", "watchdog"] where Bool.random(using: &random) {
                results[result] = number()
            }
            var totals = RunTotals()
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                totals.add(RunRecord(
                    startupSeconds: maybe(Double(number()) / 1_000), cpuSeconds: maybe(Double(number()) / 1_000_000),
                    oom: maybe(Bool.random(using: &random) ? .kernel : .oomd), coredump: maybe(CoreDump(signal: 11))
                ), of: maybe(String(repeating: "cd", count: 16)))
            }
            // A run going on whose start-up its launch counted.
            if Bool.random(using: &random) { totals.addStartup(Double(number()) / 1_000, of: String(repeating: "ef", count: 16)) }
            // The timers that start it, each with runs, misses, skips and a schedule.
            var timers: [String: TimerTotals] = [:]
            for index in 0..<Int.random(in: 0...2, using: &random) {
                var timer = TimerTotals()
                for _ in 0..<Int.random(in: 0...3, using: &random) { timer.countRun(latenessSeconds: Double(number()) / 1_000) }
                for cause in ["dependency", "start-limit-hit"] where Bool.random(using: &random) { timer.countMissed(cause: cause) }
                if Bool.random(using: &random) { timer.count(.skipped) }
                if Bool.random(using: &random) { timer.count(.coalesced) }
                timer.lastTrigger = maybe(time())
                timer.nextElapse = maybe(time())
                timer.lastResolved = maybe(time())
                timers["t\(index)-\(number()).timer"] = timer
            }
            return UnitRecord(
                unit: "unit-\(number()).service", state: state, invocationID: maybe(String(repeating: "ab", count: 16)),
                runEnded: Bool.random(using: &random), pendingDispatches: pending,
                sequence: UInt64.random(in: 0...UInt64(Int64.max), using: &random), lastFailure: failure,
                recentCrashes: (0..<Int.random(in: 0...3, using: &random)).map { _ in time() },
                crashResults: results,
                // A file without the count but with an update time is read as one update (files of earlier builds).
                updateCount: state.update == nil ? (Bool.random(using: &random) ? number() : 0) : 1 + number(),
                runTotals: totals,
                timers: timers
            )
        }
    }

    @Test(
        "a state file is the bytes JSONEncoder writes, pretty-printed with sorted keys, each pending dispatch compact",
        arguments: [1, 2, 3] as [UInt64]
    )
    func prettyMatchesFoundation(seed: UInt64) throws {
        var withPending = 0
        for record in Self.records(seed: seed, count: 200) {
            let expected = try Self.prettyWithCompactDispatches(record) + "\n"
            #expect(String(decoding: record.stateFileBytes, as: UTF8.self) == expected)
            if !record.pendingDispatches.isEmpty { withPending += 1 }
        }
        #expect(withPending > 0)
    }

    /// `JSONEncoder`'s pretty-printed record, each pending dispatch replaced by its compact encoding: the record is
    /// encoded with a one-field marker in each dispatch's place, and each marker's block is then replaced.
    static func prettyWithCompactDispatches(_ record: UnitRecord) throws -> String {
        var marked = record
        marked.pendingDispatches = record.pendingDispatches.indices.map { JournalFields([(name: "MARK", value: "\($0)")]) }
        var text = try encoded(marked, .prettyPrinted)
        for (index, dispatch) in record.pendingDispatches.enumerated() {
            let marker = #/\[\n +\[\n +"MARK",\n +"(\d+)"\n +\]\n +\]/#
            guard let match = text.firstMatch(of: marker), match.1 == "\(index)" else {
                Issue.record("no marker for pending dispatch \(index)")
                return text
            }
            text.replaceSubrange(match.range, with: try encoded(dispatch, []))
        }
        return text
    }

    @Test("GetUnit's and ListUnits' compact JSON is the bytes JSONEncoder writes")
    func compactMatchesFoundation() throws {
        let records = Self.records(seed: 4, count: 50)
        for record in records {
            #expect(record.compactJSON == (try Self.encoded(record, [])))
        }
        #expect(UnitRecord.compactJSON(records) == (try Self.encoded(records, [])))
        #expect(UnitRecord.compactJSON([]) == "[]")
    }

    @Test("every record saved by the daemon's writer loads back as itself")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        let writer = StateFileWriter(store: store)
        for record in Self.records(seed: 5, count: 200) {
            try writer.save(record)
            var warnings: [StateStoreWarning] = []
            #expect(try store.load(unit: record.unit, warnings: &warnings) == record)
            #expect(warnings.isEmpty)
        }
    }

    @Test(
        "the state-file reader reads older and hand-edited forms as JSONDecoder does",
        arguments: [
            // A file of an earlier build: one pending dispatch as an object, no counters, no update_count.
            #"{"schema_version": 1, "unit": "a.service", "sequence": 3, "last_dispatch": {"B": "2", "A": "1"}, "#
                + #""state": {"schema_version": 1, "timestamp_update": 5}}"#,
            // null for every optional part, and an integer written with a zero fraction.
            #"{"schema_version": 1, "unit": "a.service", "sequence": 2.0, "invocation_id": null, "run_ended": null, "#
                + #""pending_dispatches": null, "last_failure": null, "recent_crashes": null, "crash_results": null, "#
                + #""state": {"schema_version": 1, "app_version": null, "last_event": null, "count_launch": 4}}"#,
            #"{"schema_version": 1, "unit": "a.service", "sequence": 9, "crash_results": {"signal": 2}, "#
                + #""last_failure": {"result": "signal", "exit_code": "killed", "exit_status": 9, "time": 7}, "#
                + #""recent_crashes": [7], "run_ended": true, "update_count": 0, "#
                + #""state": {"schema_version": 1, "last_event": "sleep", "has_launched_in_run": true}}"#,
        ]
    )
    func readsLikeFoundation(_ text: String) throws {
        let expected = try JSONDecoder().decode(UnitRecord.self, from: Data(text.utf8))
        let directory = try TemporaryDirectory()
        try directory.write(text, to: "units/a.service.json")
        var warnings: [StateStoreWarning] = []
        #expect(try StateStore(directory: directory.path).load(unit: "a.service", warnings: &warnings) == expected)
        #expect(warnings.isEmpty)
    }

    @Test(
        "a mistyped value is named by its key path",
        arguments: [
            (#""state": {"schema_version": 1, "count_wake": "2"}"#, "state.count_wake: expected an integer, found a string"),
            (#""state": {"schema_version": 1, "last_event": "nap"}"#, #"state.last_event: expected "launch", "wake" or "sleep", found "nap""#),
            (#""state": {"schema_version": 1}, "pending_dispatches": [[["A"]]]"#, "pending_dispatches[0][0]: expected a [name, value] pair of strings"),
            (#""state": 3"#, "state: expected an object, found a number"),
            (#""state": {"schema_version": 1}, "recent_crashes": [1.5]"#, "recent_crashes[0]: expected an integer, found a number"),
            (#""state": {}"#, "missing key state.schema_version"),
        ]
    )
    func mistyped(_ state: String, _ reason: String) throws {
        let directory = try TemporaryDirectory()
        try directory.write(#"{"schema_version": 1, "unit": "a.service", "sequence": 1, "# + state + "}", to: "units/a.service.json")
        var warnings: [StateStoreWarning] = []
        #expect(try StateStore(directory: directory.path).load(unit: "a.service", warnings: &warnings) == nil)
        #expect(warnings.map(\.reason) == [reason])
    }

    @Test("control characters are escaped so that the file still reads back")
    func controlCharacters() throws {
        let text = String(decoding: (0..<0x20).map { UInt8($0) } + Array("\"\\/".utf8), as: UTF8.self)
        var state = UnitState()
        state.version = text
        let record = UnitRecord(
            unit: "ctl.service", state: state, pendingDispatches: [JournalFields([(name: "M", value: text)])]
        )
        #expect(!record.stateFileBytes.contains { $0 < 0x20 && $0 != UInt8(ascii: "\n") })
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        try StateFileWriter(store: store).save(record)
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: record.unit, warnings: &warnings) == record)
    }

    @Test("the writer creates the directory again when it was removed while open")
    func directoryRemoved() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path + "/state")
        let writer = StateFileWriter(store: store)
        let record = Self.records(seed: 6, count: 1)[0]
        try writer.save(record)
        try FileManager.default.removeItem(atPath: directory.path + "/state")
        try writer.save(record)
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: record.unit, warnings: &warnings) == record)
    }

    @Test("the writer follows the path when the directory was moved aside and a new one put in its place")
    func directoryReplaced() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path + "/state")
        let writer = StateFileWriter(store: store)
        var record = Self.records(seed: 7, count: 1)[0]
        try writer.save(record)
        try FileManager.default.moveItem(atPath: directory.path + "/state", toPath: directory.path + "/aside")
        try FileManager.default.createDirectory(atPath: directory.path + "/state/units", withIntermediateDirectories: true)
        record.sequence += 1
        try writer.save(record)
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: record.unit, warnings: &warnings) == record, "saved where the path leads")
    }
}

/// A small deterministic generator (SplitMix64), so a failing seed fails again.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
