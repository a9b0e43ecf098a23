// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

/// The start-up on the launch or wake: known at once for a run active as it is seen to begin; for one seen while
/// still activating, the launch waits for the run to be active (or over), and the unit's later dispatches behind it.
struct DaemonCoreStartupTests {
    typealias H = CoreHarness

    /// `unit`'s run `run`, seen activating (in `ExecStartPre=`) at second `second`, when it left inactive.
    static func activating(_ run: Character, second: UInt64, unit: String = H.unit) -> UnitSnapshot {
        var snapshot = H.snapshot("activating", run, second: second, unit: unit)
        snapshot.subState = "start-pre"
        snapshot.inactiveExitMonotonic = second * 1_000_000
        snapshot.activeEnterMonotonic = 500_000  // an earlier run's
        return snapshot
    }

    /// `unit`'s run `run`, which left inactive at second `began` and became active `startup` seconds later.
    static func active(_ run: Character, began: UInt64, startup: Double, unit: String = H.unit) -> UnitSnapshot {
        let activeAt = began * 1_000_000 + UInt64(startup * 1_000_000)
        var snapshot = H.snapshot("active", run, second: activeAt / 1_000_000, unit: unit)
        snapshot.stateChangeTimestampMonotonic = activeAt
        snapshot.inactiveExitMonotonic = began * 1_000_000
        snapshot.activeEnterMonotonic = activeAt
        return snapshot
    }

    private func tracking() throws -> H {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        return h
    }

    private func fields(_ dispatch: PendingDispatch?) -> [String: String] {
        Dictionary((dispatch?.entry.fields ?? []).map { ($0.name, $0.value) }) { first, _ in first }
    }

    private func startup(_ h: H, _ index: Int, of unit: String = H.unit) -> String? {
        let dispatches = h.journal.filter { $0.unit == unit }
        return index < dispatches.count ? fields(dispatches[index])["LIFECYCLE_RUN_STARTUP_SECONDS"] : nil
    }

    @Test("a launch seen activating goes out once the run is active, with its start-up, counted once in the totals")
    func launchWaitsForActive() throws {
        var h = try tracking()
        h.send(.changed(Self.activating("b", second: 3)))
        #expect(h.dispatches() == [], "the launch waits for the start-up")
        let pending = try #require(h.core.tracker.records[H.unit]?.pendingDispatches)
        #expect(pending.map { $0["LIFECYCLE_EVENT"] } == ["launch"], "saved before it waits: a kill loses nothing")
        #expect(h.saved.last?.pendingDispatches.count == 1)
        #expect(h.core.tracker.records[H.unit]?.state.launchCount == 1, "the counters do not wait")
        h.send(.changed(H.snapshot("active", "x", second: 4, unit: "web2.service")))
        #expect(h.dispatches(of: "web2.service") == ["1 launch x"], "another unit's dispatches do not wait")

        h.send(.changed(Self.active("b", began: 3, startup: 1.25)))
        #expect(h.dispatches() == ["1 launch b"])
        #expect(startup(h, 0) == "1.25")
        #expect(h.saved.last { $0.unit == H.unit }?.pendingDispatches.first?["LIFECYCLE_RUN_STARTUP_SECONDS"] == "1.25",
                "the state file holds the entry as it is sent")
        #expect(h.core.tracker.records[H.unit]?.runTotals.startups == 1, "in the histogram while the run goes on")

        h.send(.changed(DaemonCoreRunCostTests.ended("b", began: 3, startup: 1.25, ended: 9)))
        #expect(h.dispatches() == ["1 launch b", "2 sleep b"])
        #expect(startup(h, 1) == "1.25")
        #expect(h.core.tracker.records[H.unit]?.runTotals.startups == 1, "the end does not count it again")
        #expect(h.armed[.startupPatience] != nil)
    }

    @Test("the unit's events made while its launch waits go out after it, in order")
    func laterDispatchesWaitBehind() throws {
        var h = try tracking()
        h.send(.changed(Self.activating("b", second: 3)))
        h.send(.request(EventRequest(unit: H.unit, event: .custom("deploy")), reply: ReplyToken(1)))
        #expect(h.replies[ReplyToken(1)] == .success(2), "answered at once, with its number")
        #expect(h.dispatches() == [])
        h.send(.changed(Self.active("b", began: 3, startup: 2)))
        #expect(h.journal.map(\.sequence) == [1, 2])
        #expect(h.dispatches().first == "1 launch b")
        #expect(startup(h, 0) == "2.0")
    }

    @Test("a oneshot's launch carries its activation; a start that failed carries none, before its crash notice")
    func oneshotAndFailedStart() throws {
        var h = try tracking()
        h.send(.changed(Self.activating("b", second: 3)))
        var done = H.snapshot("inactive", "b", second: 5)
        done.inactiveExitMonotonic = 3_000_000
        done.activeEnterMonotonic = 500_000  // never active in this run
        done.inactiveEnterMonotonic = 5_000_000
        h.send(.changed(done))
        #expect(h.dispatches() == ["1 launch b", "2 sleep b"])
        #expect(startup(h, 0) == "2.0")

        h.send(.changed(Self.activating("c", second: 10, unit: "web2.service")))
        var failed = H.snapshot("failed", "c", second: 11, result: "exit-code", unit: "web2.service")
        failed.inactiveExitMonotonic = 10_000_000
        h.send(.changed(failed))
        #expect(h.dispatches(of: "web2.service") == ["1 launch c", "2 crash c"])
        #expect(startup(h, 0, of: "web2.service") == nil, "a start that failed has no start-up, never a made-up 0")
    }

    @Test("a start slower than the patience: its launch goes out without, and its end carries and counts the start-up")
    func patience() throws {
        var h = try tracking()
        h.send(.changed(Self.activating("b", second: 3)))
        #expect(h.armed[.startupPatience] == h.now + 90_000)
        h.now += 60_000
        h.send(.changed(Self.activating("c", second: 60, unit: "web2.service")))
        #expect(h.armed[.startupPatience] == h.now - 60_000 + 90_000, "the earliest deadline stays armed")
        h.fire(.startupPatience)
        #expect(h.dispatches() == ["1 launch b"])
        #expect(startup(h, 0) == nil)
        #expect(h.logs.contains { $0.message.contains("still starting after 90 s") })
        #expect(h.dispatches(of: "web2.service") == [], "a later deadline is not due yet")
        #expect(h.armed[.startupPatience] == h.now + 60_000)

        h.send(.changed(Self.active("b", began: 3, startup: 120)))
        #expect(h.dispatches() == ["1 launch b"], "no second launch")
        #expect(h.core.tracker.records[H.unit]?.runTotals.startups == 0)
        h.send(.changed(DaemonCoreRunCostTests.ended("b", began: 3, startup: 120, ended: 300)))
        #expect(startup(h, 1) == "120.0")
        #expect(h.core.tracker.records[H.unit]?.runTotals.startups == 1, "counted at the end, once")
    }

    @Test("the wall clock set back two days while a launch waits: it still goes out after 90 s, not two days later")
    func patienceAcrossAClockStep() throws {
        var h = try tracking()
        h.send(.changed(Self.activating("b", second: 3)))
        h.now += 10_000
        h.now -= 2 * 86_400_000
        h.wallStep -= 2 * 86_400_000
        h.send(.changed(Self.activating("c", second: 13, unit: "web2.service")))
        #expect(h.armed[.startupPatience] == h.now - 10_000 + 90_000, "80 s from now, by either clock")
        h.fire(.startupPatience)
        #expect(h.dispatches() == ["1 launch b"])
        #expect(h.armed[.startupPatience] == h.now + 10_000, "web2's deadline, 90 s after it began to wait")
    }

    @Test("stopping: a launch that waits goes out without its start-up before lifecycled exits")
    func stopping() throws {
        var h = try tracking()
        h.send(.changed(Self.activating("b", second: 3)))
        h.send(.stop)
        #expect(h.dispatches() == ["1 launch b"])
        #expect(startup(h, 0) == nil)
        let send = try #require(h.performed.firstIndex { if case .send = $0 { true } else { false } })
        #expect(send < (h.performed.firstIndex(of: .exit) ?? 0))
        #expect(!h.logs.contains { $0.message.contains("refused") })
    }

    @Test("killed while a launch waits: the saved record holds it, and the next start sends it once, without its start-up")
    func killedWhileWaiting() throws {
        var h = try tracking()
        h.send(.changed(Self.activating("b", second: 3)))
        let saved = try #require(h.saved.last { $0.unit == H.unit })
        #expect(h.dispatches() == [])

        var next = try H(records: [saved])
        next.send(.start)
        next.send(.listing([Self.active("b", began: 3, startup: 1)]))
        #expect(next.dispatches() == ["1 launch b"], "sent once, from the state file")
        #expect(startup(next, 0) == nil)
        #expect(next.core.tracker.records[H.unit]?.sequence == 1, "and not made again")
    }

    @Test("a run that follows before the waiting one was seen active: the launch of the first goes out first")
    func nextRunReleases() throws {
        var h = try tracking()
        h.send(.changed(Self.activating("b", second: 3)))
        h.send(.changed(Self.activating("c", second: 5)))
        #expect(h.dispatches() == ["1 launch b", "2 sleep b unknown"], "b's end is unknown: c's launch waits")
        #expect(startup(h, 0) == nil)
        h.send(.changed(Self.active("c", began: 5, startup: 0.5)))
        #expect(h.dispatches() == ["1 launch b", "2 sleep b unknown", "3 wake c"], "a wake waits as a launch does")
        #expect(startup(h, 2) == "0.5")
    }

    @Test("after lost signals, the listing that shows the run active gives its start-up")
    func listingAfterLostSignals() throws {
        var h = try tracking()
        h.send(.changed(Self.activating("b", second: 3)))
        h.send(.signalsLost)
        #expect(h.dispatches() == [])
        h.send(.listing([Self.active("b", began: 3, startup: 4)]))
        #expect(h.dispatches() == ["1 launch b"])
        #expect(startup(h, 0) == "4.0")
    }

    @Test("a run active as it is seen to begin carries its start-up at once; a recovered run still starting waits")
    func knownAtOnceAndRecovered() throws {
        var h = try H()
        h.recovery = RecoveryAnswer(history: H.history([(run: "r", began: 2, ended: nil, failure: nil)]))
        h.send(.start)
        var listed = Self.activating("r", second: 2)
        listed.stateChangeTimestampMonotonic = 2_000_000
        h.send(.listing([listed]))
        #expect(h.dispatches() == [], "the recovered launch waits for its start-up too")
        h.send(.changed(Self.active("r", began: 2, startup: 3)))
        #expect(h.dispatches() == ["1 launch r reconciled"])
        #expect(startup(h, 0) == "3.0")

        h.send(.changed(Self.active("a", began: 10, startup: 0.25, unit: "web2.service")))
        #expect(h.dispatches(of: "web2.service") == ["1 launch a"])
        #expect(startup(h, 0, of: "web2.service") == "0.25")
    }
}
