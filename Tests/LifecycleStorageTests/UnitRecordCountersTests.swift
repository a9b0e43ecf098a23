// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage
import Testing

/// The counters a record keeps beyond the engine's, for metrics: crashes by Result and updates.
struct UnitRecordCountersTests {
    @Test("each noted failure counts under its Result; the counts survive a save")
    func crashResults() throws {
        var record = UnitRecord(unit: "nginx.service")
        record.noteFailure(RunFailure(result: "signal", time: 1))
        record.noteFailure(RunFailure(result: "signal", time: 2))
        record.noteFailure(RunFailure(result: "exit-code", time: 3))
        #expect(record.crashResults == ["signal": 2, "exit-code": 1])

        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        record.updateCount = 4
        try store.save(record)
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: "nginx.service", warnings: &warnings) == record)
        let text = directory.text("units/nginx.service.json") ?? ""
        #expect(text.contains("\"crash_results\"") && text.contains("\"update_count\" : 4"))
    }

    @Test("an update is counted when the engine's update time moves, not otherwise")
    func countUpdate() {
        var record = UnitRecord(unit: "nginx.service")
        let before = record.state
        record.state.update = 10
        record.countUpdate(since: before)
        #expect(record.updateCount == 1)
        record.countUpdate(since: record.state)
        #expect(record.updateCount == 1)
    }

    @Test("a file from before the counters: no Result counts, and one update when it records an update time")
    func oldFiles() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        var warnings: [StateStoreWarning] = []
        _ = try directory.write(StateStoreTests.golden, to: "units/nginx.service.json")
        let old = try #require(try store.load(unit: "nginx.service", warnings: &warnings))
        #expect(old.crashResults == [:])
        #expect(old.updateCount == 0)

        let updated = StateStoreTests.golden.replacingOccurrences(
            of: "\"total_seconds_awake\"", with: "\"timestamp_update\" : 1772445600000,\n    \"total_seconds_awake\""
        )
        _ = try directory.write(updated, to: "units/nginx.service.json")
        #expect(try store.load(unit: "nginx.service", warnings: &warnings)?.updateCount == 1)
    }

    @Test("the crash count adds the last run when a crash notice ended it and the engine has not counted it yet")
    func crashCount() {
        var record = UnitRecord(unit: "nginx.service")
        record.state.totalCrashCount = 2
        record.state.lastEvent = .launch
        #expect(record.crashCount == 2)
        record.runEnded = true
        #expect(record.lastRunFailed && record.crashCount == 3)
        record.state.lastEvent = .sleep
        #expect(!record.lastRunFailed && record.crashCount == 2)
    }
}
