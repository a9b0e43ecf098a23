// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage
import Testing

/// The failures a record keeps for `lifecyclectl status`: the last one, and the times of the recent ones.
struct UnitRecordCrashTests {
    private func notice(at time: Milliseconds, _ details: CrashDetails) -> Dispatch {
        Dispatch(name: "crash", time: time, lifecycle: nil, customData: details.data)
    }

    @Test("a crash notice becomes the last failure and joins the recent crashes, oldest forgotten past the limit")
    func noteCrash() {
        var record = UnitRecord(unit: "worker@bad.service")
        let exited = CrashDetails(result: "exit-code", execMainCode: 1, execMainStatus: 7)
        for time in 1...25 { record.noteCrash(notice(at: Milliseconds(time), exited)) }
        #expect(record.lastFailure == RunFailure(result: "exit-code", exitCode: "exited", exitStatus: 7, time: 25))
        #expect(record.recentCrashes == Array(6...25).map(Milliseconds.init))
        #expect(record.recentCrashes.count == UnitRecord.recentCrashLimit)
    }

    @Test("the failures survive a save; a file without them (written before they were kept) still loads")
    func roundTripAndOldFiles() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        var record = StateStoreTests.sampleRecord()
        record.noteCrash(notice(at: 42, CrashDetails(result: "signal", execMainCode: 2, execMainStatus: 9)))
        try store.save(record)
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: "nginx.service", warnings: &warnings) == record)
        let text = directory.text("units/nginx.service.json") ?? ""
        #expect(text.contains("\"last_failure\""))
        #expect(text.contains("\"recent_crashes\""))

        _ = try directory.write(StateStoreTests.golden, to: "units/nginx.service.json")
        let old = try store.load(unit: "nginx.service", warnings: &warnings)
        #expect(old?.lastFailure == nil)
        #expect(old?.recentCrashes == [])
        #expect(warnings.isEmpty)
    }
}
