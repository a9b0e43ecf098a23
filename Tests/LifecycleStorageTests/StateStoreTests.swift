// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

import Glibc

/// The state store, each test in a fresh temporary directory.
struct StateStoreTests {
    /// 2026-11-21T21:30:00Z, the time corrupt files are stamped with.
    static let now = Date(timeIntervalSince1970: 1_795_296_600)

    private func makeStore(_ directory: TemporaryDirectory, readOnly: Bool = false) -> StateStore {
        StateStore(directory: directory.path, readOnly: readOnly, clock: { Self.now })
    }

    static func sampleRecord(unit: String = "nginx.service") -> UnitRecord {
        var state = UnitState()
        state.version = "1.25.3"
        state.firstLaunch = 1_772_359_200_000
        state.lastLaunch = 1_772_445_600_000
        state.lastWake = 1_772_445_600_000
        state.lastSleep = 1_772_449_200_000
        state.launchCount = 2
        state.wakeCount = 3
        state.sleepCount = 2
        state.totalLaunchCount = 2
        state.totalWakeCount = 3
        state.totalSleepCount = 2
        state.totalCrashCount = 1
        state.lastEvent = .sleep
        state.totalSecondsAwake = 7_200
        state.priorSecondsAwake = 3_600
        return UnitRecord(unit: unit, state: state, invocationID: "0123456789abcdef0123456789abcdef", sequence: 7)
    }

    static let golden = """
        {
          "invocation_id" : "0123456789abcdef0123456789abcdef",
          "schema_version" : 1,
          "sequence" : 7,
          "state" : {
            "app_version" : "1.25.3",
            "count_launch" : 2,
            "count_sleep" : 2,
            "count_total_crash" : 1,
            "count_total_launch" : 2,
            "count_total_sleep" : 2,
            "count_total_wake" : 3,
            "count_wake" : 3,
            "has_launched_in_run" : false,
            "last_event" : "sleep",
            "prior_seconds_awake" : 3600,
            "schema_version" : 1,
            "timestamp_first_launch" : 1772359200000,
            "timestamp_last_launch" : 1772445600000,
            "timestamp_last_sleep" : 1772449200000,
            "timestamp_last_wake" : 1772445600000,
            "total_seconds_awake" : 7200
          },
          "unit" : "nginx.service"
        }

        """

    @Test("a saved record loads back unchanged")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        let record = Self.sampleRecord()
        try store.save(record)
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: "nginx.service", warnings: &warnings) == record)
        #expect(warnings.isEmpty)
        #expect(try store.loadAll() == StateStore.Contents(records: [record], warnings: []))
    }

    @Test("a file of 2 MB (600 dispatches a journald storing nothing never showed) loads with its counters, not set aside")
    func largeFileLoads() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        var record = Self.sampleRecord()
        let text = String(repeating: "x", count: 3_000)
        record.pendingDispatches = (1...600).map { JournalFields([(name: "LIFECYCLE_SEQUENCE", value: String($0)), (name: "M", value: text)]) }
        try store.save(record)
        let contents = try store.loadAll()
        #expect(contents.warnings.isEmpty)
        #expect(contents.records.first?.state.totalLaunchCount == record.state.totalLaunchCount)
        #expect(contents.records.first?.pendingDispatches.count == 600)
    }

    @Test("a unit without a file has no record")
    func missing() throws {
        let directory = try TemporaryDirectory()
        var warnings: [StateStoreWarning] = []
        #expect(try makeStore(directory).load(unit: "new.service", warnings: &warnings) == nil)
        #expect(try makeStore(directory).loadAll() == StateStore.Contents(records: [], warnings: []))
        #expect(warnings.isEmpty)
    }

    @Test("the file is pretty-printed with sorted keys and byte-stable")
    func goldenOutput() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        try store.save(Self.sampleRecord())
        let first = directory.text("units/nginx.service.json")
        #expect(first == Self.golden)
        try store.save(Self.sampleRecord())
        #expect(directory.text("units/nginx.service.json") == first)
    }

    @Test("a record without an invocation omits the key")
    func optionalInvocation() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        try store.save(UnitRecord(unit: "fresh.service"))
        let text = directory.text("units/fresh.service.json") ?? ""
        #expect(!text.contains("invocation_id"))
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: "fresh.service", warnings: &warnings) == UnitRecord(unit: "fresh.service"))
    }

    /// loadAll reads pending dispatches in a second pass, after every record: each record gets its own back.
    @Test("loading every file gives each record its pending dispatches, and none to a record without")
    func pendingDispatchesOfEveryFile() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        var records: [UnitRecord] = []
        for index in 0..<5 {
            var record = UnitRecord(unit: "unit-\(index).service")
            if index != 2 {
                record.pendingDispatches = (0...index).map { sequence in
                    ["MESSAGE": "unit \(index) dispatch \(sequence)", "LIFECYCLE_SEQUENCE": "\(sequence)"]
                }
            }
            try store.save(record)
            records.append(record)
        }
        #expect(try store.loadAll() == StateStore.Contents(records: records, warnings: []))
    }

    @Test("pending dispatches are saved in order and load back; none omits the key")
    func pendingDispatches() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        var record = Self.sampleRecord()
        // Fields out of name order, as a journal entry sends them: they must come back in the same order.
        record.pendingDispatches = [["MESSAGE": "x", "LIFECYCLE_SEQUENCE": "11"], ["LIFECYCLE_SEQUENCE": "12", "MESSAGE": "a\nb"]]
        try store.save(record)
        var warnings: [StateStoreWarning] = []
        let loaded = try store.load(unit: "nginx.service", warnings: &warnings)?.pendingDispatches
        #expect(loaded == record.pendingDispatches)
        #expect(loaded?.first?.fields.map(\.name) == ["MESSAGE", "LIFECYCLE_SEQUENCE"])
        try store.save(UnitRecord(unit: "fresh.service"))
        #expect(!(directory.text("units/fresh.service.json") ?? "pending_dispatches").contains("pending_dispatches"))
    }

    @Test("a file of an earlier build with pending dispatches as objects loads them, fields in name order")
    func legacyPendingObjects() throws {
        let directory = try TemporaryDirectory()
        let legacy = Self.golden.replacingOccurrences(
            of: "\"sequence\" : 7,",
            with: "\"pending_dispatches\" : [ { \"MESSAGE\" : \"m\", \"LIFECYCLE_SEQUENCE\" : \"7\" } ],\n  \"sequence\" : 7,"
        )
        #expect(legacy != Self.golden)
        _ = try directory.write(legacy, to: "units/nginx.service.json")
        var warnings: [StateStoreWarning] = []
        let record = try makeStore(directory).load(unit: "nginx.service", warnings: &warnings)
        #expect(record?.pendingDispatches.first?.fields.map(\.name) == ["LIFECYCLE_SEQUENCE", "MESSAGE"])
        #expect(record?.pendingDispatches.first?["MESSAGE"] == "m")
    }

    @Test("a file of an earlier build with one last_dispatch loads it as the one pending dispatch")
    func legacyLastDispatch() throws {
        let directory = try TemporaryDirectory()
        let legacy = Self.golden.replacingOccurrences(
            of: "\"sequence\" : 7,", with: "\"last_dispatch\" : { \"LIFECYCLE_SEQUENCE\" : \"7\" },\n  \"sequence\" : 7,"
        )
        #expect(legacy != Self.golden)
        _ = try directory.write(legacy, to: "units/nginx.service.json")
        var warnings: [StateStoreWarning] = []
        let record = try makeStore(directory).load(unit: "nginx.service", warnings: &warnings)
        #expect(record?.pendingDispatches == [["LIFECYCLE_SEQUENCE": "7"]])
        #expect(warnings.isEmpty)
    }

    @Test("saves leave no temporary files and replace the previous content")
    func atomicWriteLeavesNoTemporaryFiles() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        var record = Self.sampleRecord()
        for sequence in 1...20 {
            record.sequence = UInt64(sequence)
            try store.save(record)
        }
        try store.save(Self.sampleRecord(unit: "cron.service"))
        #expect(directory.list("units") == ["cron.service.json", "nginx.service.json"])
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: "nginx.service", warnings: &warnings)?.sequence == 20)
    }

    @Test("state files are readable by everyone and not executable")
    func fileMode() throws {
        let directory = try TemporaryDirectory()
        try makeStore(directory).save(Self.sampleRecord())
        var info = stat()
        #expect(stat(directory.path + "/units/nginx.service.json", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o644)
    }

    @Test("a stale temporary file is removed on load and reported")
    func staleTemporaryFile() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        try store.save(Self.sampleRecord())
        try directory.write("{\"half", to: "units/.nginx.service.json.Ab12Cd")
        try directory.write("{}", to: "units/.cron.service.json.Zz99Yy")
        // Not a temporary file of ours: the suffix is not six characters.
        try directory.write("{}", to: "units/.nginx.service.json.keep-me")
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: "nginx.service", warnings: &warnings) == Self.sampleRecord())
        let stale = directory.path + "/units/.nginx.service.json.Ab12Cd"
        #expect(
            warnings == [
                StateStoreWarning(
                    path: stale,
                    unit: "nginx.service",
                    action: .removedTemporaryFile,
                    reason: "left behind by an interrupted save"
                )
            ]
        )
        // Loading one unit only cleans up after that unit.
        #expect(
            directory.list("units") == [
                ".cron.service.json.Zz99Yy", ".nginx.service.json.keep-me", "nginx.service.json",
            ]
        )
        let all = try store.loadAll()
        #expect(all.records == [Self.sampleRecord()])
        #expect(all.warnings.map(\.action) == [.removedTemporaryFile])
        #expect(directory.list("units") == [".nginx.service.json.keep-me", "nginx.service.json"])
    }

    @Test("a corrupt file is moved aside, reported, and the unit is rebuilt; other files are untouched")
    func corruptFile() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        try store.save(Self.sampleRecord(unit: "cron.service"))
        let cronBefore = directory.text("units/cron.service.json")
        try directory.write("{not json", to: "units/nginx.service.json")
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: "nginx.service", warnings: &warnings) == nil)
        let path = directory.path + "/units/nginx.service.json"
        let aside = path + ".corrupt-20261121T213000Z"
        let expected = StateStoreWarning(
            path: path,
            unit: "nginx.service",
            action: .movedAside(to: aside),
            reason: "invalid JSON at line 1, column 2: expected a key string"
        )
        #expect(warnings == [expected])
        #expect(
            expected.description
                == "\(path): cannot be read (invalid JSON at line 1, column 2: expected a key string); "
                + "moved aside to \(aside), the unit is rebuilt from its dispatches in the journal"
        )
        #expect(directory.text("units/nginx.service.json.corrupt-20261121T213000Z") == "{not json")
        #expect(directory.text("units/nginx.service.json") == nil)
        #expect(directory.text("units/cron.service.json") == cronBefore)
        // The unit starts fresh: the next save writes a new file beside the one moved aside.
        try store.save(UnitRecord(unit: "nginx.service"))
        #expect(try store.load(unit: "nginx.service", warnings: &warnings) == UnitRecord(unit: "nginx.service"))
    }

    @Test("a second corruption in the same second does not overwrite the first one moved aside")
    func corruptTwice() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        try directory.write("first", to: "units/a.service.json")
        #expect(try store.loadAll().records.isEmpty)
        try directory.write("second", to: "units/a.service.json")
        let contents = try store.loadAll()
        #expect(
            contents.warnings.map(\.action) == [
                .movedAside(to: directory.path + "/units/a.service.json.corrupt-20261121T213000Z-2")
            ]
        )
        #expect(directory.text("units/a.service.json.corrupt-20261121T213000Z") == "first")
        #expect(directory.text("units/a.service.json.corrupt-20261121T213000Z-2") == "second")
        // Files moved aside are not state files: loading again reports nothing.
        #expect(try store.loadAll() == StateStore.Contents(records: [], warnings: []))
    }

    @Test(
        "truncated, mistyped and misplaced files count as corrupt",
        arguments: [
            (String(StateStoreTests.golden.prefix(120)), "invalid JSON at line 6, column 7: unterminated string"),
            (
                String(StateStoreTests.golden.dropLast(2)),
                "invalid JSON at line 25, column 1: unexpected end of input in an object"
            ),
            ("", "the file is empty"),
            ("[1, 2]", "expected a JSON object, found an array"),
            (#"{"unit": "x.service"}"#, "missing or invalid schema_version"),
            (
                StateStoreTests.golden.replacingOccurrences(of: #""count_launch" : 2"#, with: #""count_launch" : "2""#),
                "state.count_launch: "
            ),
            (
                StateStoreTests.golden.replacingOccurrences(
                    of: #""unit" : "nginx.service""#,
                    with: #""unit" : "cron.service""#
                ),
                #"it holds the state of "cron.service", not of "nginx.service""#
            ),
        ]
    )
    func corruptVariants(_ content: String, _ reasonPrefix: String) throws {
        let directory = try TemporaryDirectory()
        try directory.write(content, to: "units/nginx.service.json")
        let contents = try makeStore(directory).loadAll()
        #expect(contents.records.isEmpty)
        #expect(contents.warnings.count == 1)
        let reason = contents.warnings.first?.reason ?? ""
        #expect(reason.hasPrefix(reasonPrefix), "reason: \(reason)")
        #expect(directory.list("units") == ["nginx.service.json.corrupt-20261121T213000Z"])
    }
}
