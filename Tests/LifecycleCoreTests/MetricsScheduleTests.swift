// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

@testable import LifecycleCore

/// The metrics file's timing on its own, for the cases the core tests do not reach.
struct MetricsScheduleTests {
    @Test("a timer that fires a little early is armed again for the same time, so writing never stalls")
    func earlyTimerIsArmedAgain() {
        var schedule = MetricsSchedule()
        #expect(schedule.plan(now: 1_000, changed: true, timerFired: false) == .write(nextRefresh: 61_000))
        #expect(schedule.plan(now: 1_500, changed: true, timerFired: false) == .arm(2_000))
        #expect(schedule.plan(now: 1_600, changed: true, timerFired: false) == .wait, "already armed for 2 s")
        #expect(schedule.plan(now: 1_999, changed: false, timerFired: true) == .arm(2_000))
        #expect(schedule.plan(now: 2_000, changed: false, timerFired: true) == .write(nextRefresh: 62_000))
    }

    @Test("without a change, the refresh is due a minute after the last write, not a second")
    func refreshOnlyAfterAMinute() {
        var schedule = MetricsSchedule()
        _ = schedule.plan(now: 0, changed: true, timerFired: false)
        #expect(schedule.plan(now: 5_000, changed: false, timerFired: true) == .arm(60_000))
        #expect(schedule.plan(now: 60_000, changed: false, timerFired: true) == .write(nextRefresh: 120_000))
    }

    @Test("a large file waits a second per MB between writes of changes, at most a minute")
    func largeFileWaitsLonger() {
        var schedule = MetricsSchedule()
        _ = schedule.plan(now: 0, changed: true, timerFired: false)
        schedule.lastSize = 5 << 20
        #expect(schedule.plan(now: 1_000, changed: true, timerFired: false) == .arm(5_000))
        _ = schedule.plan(now: 5_000, changed: false, timerFired: true)
        schedule.lastSize = 500 << 20
        #expect(schedule.plan(now: 6_000, changed: true, timerFired: false) == .wait, "the refresh in a minute is armed already")
    }
}

/// Literal moments in the schedule tests: `plan(now: 1_000, …)`.
extension Uptime: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int64) {
        self.init(milliseconds: value)
    }
}
