// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// Seconds awake (docs/engine-semantics.md §4.4, "Seconds awake") and the never-negative rule for clocks that move
/// back.
struct SecondsAwakeTests {
    let launch = at("2026-03-03T10:00:00Z")

    @Test("each foreground period is truncated to whole seconds before it is summed")
    func truncatedSeparately() {
        var unit = Subject()
        unit.track(.launch, launch)
        #expect(unit.track(.sleep, launch + 10_600)["lifecycle_secondsawake"] == .int(10))
        #expect(unit.track(.wake, launch + 20 * second)["lifecycle_secondsawake"] == .int(10))
        let sleep = unit.track(.sleep, launch + 30_600)
        #expect(sleep["lifecycle_secondsawake"] == .int(20))
        #expect(sleep["lifecycle_totalsecondsawake"] == .int(20))
    }

    @Test("prior seconds awake is the whole previous launch session, and resets at each launch")
    func priorSecondsAwake() {
        var unit = Subject()
        unit.track(.launch, launch)
        unit.track(.sleep, launch + 100 * second)
        unit.track(.wake, launch + 200 * second)
        unit.track(.sleep, launch + 250 * second)
        unit.newProcess()
        let relaunch = unit.track(.launch, launch + hour)
        #expect(relaunch["lifecycle_priorsecondsawake"] == .int(150))
        #expect(relaunch["lifecycle_secondsawake"] == nil)
        #expect(relaunch["lifecycle_totalsecondsawake"] == .int(150))
        let sleep = unit.track(.sleep, launch + hour + 5 * second)
        #expect(sleep["lifecycle_secondsawake"] == .int(5))
        #expect(sleep["lifecycle_totalsecondsawake"] == .int(155))
    }

    @Test("foreground time that ends in a crash is never counted")
    func crashLosesForeground() {
        var unit = Subject()
        unit.track(.launch, launch)
        unit.newProcess()
        let relaunch = unit.track(.launch, launch + hour)
        #expect(relaunch["lifecycle_priorsecondsawake"] == .int(0))
        #expect(relaunch["lifecycle_totalsecondsawake"] == .int(0))
    }

    @Test("a sleep timed before its wake counts 0 seconds and no days")
    func clockMovedBack() {
        var unit = Subject(makeEngine(dataTarget: .allEvents))
        unit.track(.launch, launch)
        let sleep = unit.track(.sleep, launch - 5 * second)
        #expect(sleep["lifecycle_secondsawake"] == .int(0))
        #expect(sleep["lifecycle_totalsecondsawake"] == .int(0))
        #expect(sleep["lifecycle_dayssincelaunch"] == nil)
        #expect(sleep["lifecycle_dayssincelastwake"] == nil)
        unit.track(.wake, launch + hour)
        let custom = unit.custom(launch - day)
        #expect(custom["lifecycle_secondsawake"] == .int(0))
        #expect(custom["lifecycle_dayssincelaunch"] == nil)
    }

    @Test("a custom event after a sleep adds no live time")
    func customAfterSleep() {
        var unit = Subject(makeEngine(dataTarget: .allEvents))
        unit.track(.launch, launch)
        unit.track(.sleep, launch + 30 * second)
        let custom = unit.custom(launch + hour)
        #expect(custom["lifecycle_secondsawake"] == .int(30))
        #expect(custom["lifecycle_totalsecondsawake"] == .int(30))
    }
}
