// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import Testing

/// The record keeps what `lifecyclectl status` needs about failures: the last one, and when the recent ones were.
struct UnitTrackerCrashRecordTests {
    let helper = UnitTrackerTests()

    @Test("a crash notice saves the failure (systemd's Result, code and status) and its time in the record")
    func crashIsRecorded() throws {
        var tracker = try helper.tracker()
        _ = helper.feed(&tracker, helper.snap("active", "running", UnitTrackerTests.runA))
        _ = helper.feed(&tracker, helper.snap("failed", "failed", UnitTrackerTests.runA, result: "signal", second: 7))
        let record = try #require(tracker.records["web.service"])
        let time = Milliseconds(helper.start + 7) * 1_000
        #expect(record.runEnded)
        #expect(record.lastFailure == RunFailure(result: "signal", exitCode: "killed", exitStatus: 9, time: time))
        #expect(record.recentCrashes == [time])
        // A clean stop is no failure.
        _ = helper.feed(&tracker, helper.snap("active", "running", UnitTrackerTests.runB, second: 9))
        _ = helper.feed(&tracker, helper.snap("inactive", "dead", UnitTrackerTests.runB, second: 12))
        #expect(tracker.records["web.service"]?.recentCrashes == [time])
    }
}
