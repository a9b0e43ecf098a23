// SPDX-License-Identifier: Apache-2.0

@testable import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

/// While a recovery reads PID 1's history, the changes of units the journal holds nothing of are applied as they come
/// (``LiveUnits``, docs/architecture.md, "Phases"); every other unit's changes, and every D-Bus call, wait.
struct DaemonCoreLiveUnitsTests {
    typealias H = CoreHarness
    static let fresh = "web-new.service"

    /// The first start on a machine whose PID 1 journal holds 30 clean runs of web.service, read in slices of 25
    /// entries, each read held until the test answers it; after `listing`. With `named`, the read says first what the
    /// journal names: web.service only.
    func slicedDayOne(listing: [UnitSnapshot] = [], named: Bool = true) throws -> H {
        var h = try H.slicedDayOne(listing: listing)
        if named { h.send(.journaledUnitsRead(JournaledUnits(logged: [H.unit], dispatched: []))) }
        return h
    }

    func readUntilReady(_ h: inout H) {
        DaemonCoreHistoryReadTests().readUntilReady(&h)
        h.fire(.confirmDelivery)
    }

    @Test("a change of a unit the journal holds nothing of is dispatched while the history's slice is still unanswered")
    func freshUnitLive() throws {
        var h = try slicedDayOne()
        h.send(.changed(H.snapshot("active", "n", second: 5_000, unit: Self.fresh)))
        #expect(h.heldRecoveryReads.count == 1, "the first slice, unanswered")
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n"])
        h.send(.changed(H.snapshot("inactive", "n", second: 5_001, unit: Self.fresh)))
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n", "2 sleep n"])
        #expect(h.dispatches().isEmpty, "nothing of the history yet")
        readUntilReady(&h)
        #expect(h.journal.filter { $0.unit == H.unit }.map(\.sequence) == Array(1...60), "every run of the history once")
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n", "2 sleep n"], "nothing twice")
        #expect(h.core.phase == .tracking)
    }

    @Test("a change of a unit the journal names still waits for the history: its run comes after every run before it")
    func journaledUnitWaits() throws {
        var h = try slicedDayOne()
        h.send(.changed(H.snapshot("active", "z", second: 5_000)))
        h.answerHeldRecoveryRead()
        #expect(h.dispatches().allSatisfy { !$0.hasSuffix(" z") }, "held while the history is recorded")
        readUntilReady(&h)
        #expect(h.journal.filter { $0.unit == H.unit }.map(\.sequence) == Array(1...61))
        #expect(h.dispatches().last == "61 wake z")
    }

    @Test("a unit an earlier lifecycled dispatched for waits: its numbers come after what the journal holds of it")
    func dispatchedUnitWaits() throws {
        var h = try slicedDayOne(named: false)
        h.send(.journaledUnitsRead(JournaledUnits(logged: [H.unit], dispatched: [Self.fresh])))
        h.send(.changed(H.snapshot("active", "n", second: 5_000, unit: Self.fresh)))
        #expect(h.dispatches(of: Self.fresh).isEmpty)
    }

    @Test("changes held before the journal named its units are taken once it does, in order, before the history")
    func heldChangesGoLive() throws {
        var h = try slicedDayOne(named: false)
        h.send(.changed(H.snapshot("active", "n", second: 5_000, unit: Self.fresh)))
        h.send(.changed(H.snapshot("inactive", "n", second: 5_001, unit: Self.fresh)))
        h.send(.changed(H.snapshot("active", "z", second: 5_002)))
        #expect(h.journal.isEmpty, "held: what the journal names is not known yet")
        h.send(.journaledUnitsRead(JournaledUnits(logged: [H.unit], dispatched: [])))
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n", "2 sleep n"])
        #expect(h.dispatches().isEmpty, "web.service's change still held")
        readUntilReady(&h)
        #expect(h.dispatches().last == "61 wake z")
    }

    @Test("after a re-exec, a fresh unit's first signal held behind a newer listing that shows its run going ends nothing")
    func firstSignalBehindNewerListing() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.holdRecoveryReads = true
        h.now = H.t0 + 4_000_000
        h.send(.signalsLost)
        h.send(.listing([]))
        // The start job is queued: the new run's id, no state change yet. The source then lists again (systemd's bus
        // name changed owner while it set up) and the run is going.
        let first = UnitSnapshot(
            name: Self.fresh, activeState: ActiveState("inactive"), subState: "dead", invocationID: H.run("n"), result: "success"
        )
        h.send(.changed(first))
        h.send(.listing([H.snapshot("active", "n", second: 5_000, unit: Self.fresh)]))
        h.send(.journaledUnitsRead(JournaledUnits(logged: [H.unit], dispatched: [])))
        #expect(h.heldRecoveryReads.count == 1, "the recovery's read, unanswered")
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n"], "taken live, and not ended")
        h.send(.changed(H.snapshot("inactive", "n", second: 5_001, unit: Self.fresh)))
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n", "2 sleep n"])
        while !h.heldRecoveryReads.isEmpty { h.answerHeldRecoveryRead() }
        #expect(h.core.phase == .tracking)
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n", "2 sleep n"], "nothing twice")
    }

    @Test("signals lost: a new unit whose run the gap's history holds is not live, though its change comes first")
    func gapRunOfNewUnitWaits() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.holdRecoveryReads = true
        h.now = H.t0 + 5_000_000
        h.send(.signalsLost)
        // A transient unit ran and failed while systemd re-executed: gone from the listing, named by PID 1's journal.
        h.journalUnitNames = [H.unit, Self.fresh]
        h.send(.listing([]))
        #expect(h.heldRecoveryReads.count == 1, "the gap's read, unanswered")
        // Its signal comes while the gap's history is read.
        h.send(.changed(H.snapshot("failed", "n", second: 5_001, result: "exit-code", unit: Self.fresh)))
        #expect(h.dispatches(of: Self.fresh).isEmpty, "held for the gap's history")
        h.recovery = RecoveryAnswer(history: H.history([("n", 5_000, 5_001, "exit-code")], unit: Self.fresh))
        while !h.heldRecoveryReads.isEmpty { h.answerHeldRecoveryRead() }
        #expect(h.core.phase == .tracking)
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n reconciled", "2 crash n reconciled"])
    }

    @Test(
        "signals lost while the history is read: the runs of the gap are read from PID 1's journal before the listing",
        arguments: [true, false]
    )
    func signalsLostDuringRecovery(live: Bool) throws {
        var h = try slicedDayOne(named: live)
        h.now = H.t0 + 5_000_500
        h.send(.changed(H.snapshot("active", "n", second: 5_000, unit: Self.fresh)))
        #expect(h.dispatches(of: Self.fresh) == (live ? ["1 launch n"] : []))
        // The bus goes away: the run's end is never signalled, and the unit is gone from the next listing.
        h.send(.connectionLost("Connection reset by peer"))
        h.now += 2_000
        h.send(.listing([]))
        h.answerHeldRecoveryRead()
        // What PID 1's journal holds from the loss on, for the gap's read.
        h.recovery = RecoveryAnswer(history: H.history([("n", 5_000, 5_001, nil)], unit: Self.fresh))
        readUntilReady(&h)
        #expect(h.core.phase == .tracking)
        #expect(h.recoveryQueries.last?.history == .since(microseconds: UInt64(H.t0 + 5_000_500) * 1_000))
        #expect(h.journal.filter { $0.unit == H.unit }.map(\.sequence) == Array(1...60), "every run of the history once")
        #expect(h.dispatches(of: Self.fresh) == (live ? ["1 launch n", "2 sleep n reconciled"] : ["1 launch n reconciled", "2 sleep n reconciled"]))
    }

    @Test(
        "signals lost while the history is read, the next listing shows a live unit's run failed: the gap ends it, reconciled",
        arguments: [false, true]
    )
    func liveRunEndedWhileSignalsLost(lostTwice: Bool) throws {
        var h = try slicedDayOne()
        h.now = H.t0 + 5_000_500
        h.send(.changed(H.snapshot("active", "n", second: 5_000, unit: Self.fresh)))
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n"], "taken live")
        // The bus goes away and the run fails meanwhile: no signal shows its end, the listing on reconnecting does.
        h.send(.signalsLost)
        h.send(.connectionLost("Connection reset by peer"))
        h.now += 2_000
        h.send(.listing([H.snapshot("failed", "n", second: 5_001, result: "exit-code", unit: Self.fresh)]))
        if lostTwice {
            h.send(.connectionLost("Connection reset by peer"))
            h.send(.listing([H.snapshot("failed", "n", second: 5_001, result: "exit-code", unit: Self.fresh)]))
        }
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n"], "the gap's runs come from PID 1's journal first")
        h.answerHeldRecoveryRead()
        h.recovery = RecoveryAnswer(history: H.history([("n", 5_000, 5_001, "exit-code")], unit: Self.fresh))
        readUntilReady(&h)
        #expect(h.core.phase == .tracking)
        #expect(h.journal.filter { $0.unit == H.unit }.map(\.sequence) == Array(1...60), "every run of the history once")
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n", "2 crash n reconciled"])
    }

    @Test("signals lost while the history is read, listed again only after it: the gap waits for the listing")
    func signalsLostListedAfterRecovery() throws {
        var h = try slicedDayOne()
        h.now = H.t0 + 5_000_500
        h.send(.changed(H.snapshot("active", "n", second: 5_000, unit: Self.fresh)))
        h.send(.signalsLost)
        h.answerHeldRecoveryRead()
        h.recovery = RecoveryAnswer(history: H.history([("n", 5_000, 5_001, nil)], unit: Self.fresh))
        while !h.heldRecoveryReads.isEmpty || h.armed[.confirmDelivery] != nil {
            if !h.heldRecoveryReads.isEmpty {
                h.answerHeldRecoveryRead()
            } else if let at = h.armed[.confirmDelivery] {
                h.now = max(h.now + 400, at)
                h.send(.timer(.confirmDelivery))
            }
            if case .signalsLost = h.core.phase { break }
        }
        #expect(h.core.phase == .signalsLost(since: UInt64(H.t0 + 5_000_500) * 1_000, held: HeldInputs()))
        #expect(h.logs.contains { $0.message.contains("signals were lost while PID 1's journal was read") })
        #expect(!h.milestones.contains("ready"), "the start's end waits for the gap")
        #expect(h.journal.filter { $0.unit == H.unit }.count == 60, "the history is recorded")
        h.send(.listing([]))
        readUntilReady(&h)
        #expect(h.core.phase == .tracking)
        #expect(h.dispatches(of: Self.fresh) == ["1 launch n", "2 sleep n reconciled"])
    }

    @Test("a D-Bus call for a live unit still waits for the recovery")
    func requestWaits() throws {
        var h = try slicedDayOne()
        h.send(.changed(H.snapshot("active", "n", second: 5_000, unit: Self.fresh)))
        let token = ReplyToken(1)
        h.send(.request(EventRequest(unit: Self.fresh, event: .custom("deploy")), reply: token))
        #expect(h.replies[token] == nil)
        readUntilReady(&h)
        #expect(h.replies[token] == .success(2))
    }

    @Test(
        "a unit in the listing but not in the history gets the same dispatches and record, taken live or held",
        arguments: [
            [("active", "m", 100)],
            [("inactive", "m", 100), ("active", "n", 101)],
            [("failed", "m", 100), ("active", "n", 101), ("inactive", "n", 102)],
        ] as [[(String, Character, UInt64)]]
    )
    func sameRecordsLiveOrHeld(changes: [(String, Character, UInt64)]) throws {
        let listed = H.snapshot("active", "m", second: 50, unit: Self.fresh)
        var results: [(dispatches: [String], record: UnitRecord?)] = []
        for named in [true, false] {
            var h = try slicedDayOne(listing: [listed], named: named)
            for (state, run, second) in changes {
                h.send(.changed(H.snapshot(state, run, second: second, result: state == "failed" ? "exit-code" : "success", unit: Self.fresh)))
            }
            if named {
                #expect(!h.dispatches(of: Self.fresh).isEmpty || changes.count == 1, "taken live")
            } else {
                #expect(h.dispatches(of: Self.fresh).isEmpty, "held")
            }
            readUntilReady(&h)
            #expect(h.journal.filter { $0.unit == H.unit }.count == 60)
            results.append((h.dispatches(of: Self.fresh), h.core.tracker.records[Self.fresh]))
        }
        #expect(results[0].dispatches == results[1].dispatches)
        #expect(results[0].record?.sequence == results[1].record?.sequence)
        #expect(results[0].record?.invocationID == results[1].record?.invocationID)
        #expect(results[0].record?.runEnded == results[1].record?.runEnded)
        #expect(results[0].record?.state == results[1].record?.state)
    }
}

/// The live changes do not wait for the recovery's rounds either: a round of the history waiting for the journal's
/// confirmation holds the history's work, not a live unit's change.
struct DaemonCoreLiveUnitsRoundTests {
    typealias H = CoreHarness

    @Test("while a round of the history waits for the journal, a live unit's change is dispatched at once")
    func liveBesideAWaitingRound() throws {
        var h = try DaemonCoreLiveUnitsTests().slicedDayOne()
        h.holdLookUps = true
        h.answerHeldRecoveryRead()
        #expect(h.heldLookUps.count == 1, "the first round waits for the journal")
        #expect(h.core.work.count > 0, "the slice's work waits behind it")
        let recorded = h.dispatches().count
        h.send(.changed(H.snapshot("active", "n", second: 5_000, unit: DaemonCoreLiveUnitsTests.fresh)))
        #expect(h.dispatches(of: DaemonCoreLiveUnitsTests.fresh) == ["1 launch n"])
        #expect(h.dispatches().count == recorded, "the history's work still waits")
        h.holdLookUps = false
        while !h.heldLookUps.isEmpty { h.answerHeldLookUp() }
        DaemonCoreLiveUnitsTests().readUntilReady(&h)
        #expect(h.journal.filter { $0.unit == H.unit }.map(\.sequence) == Array(1...60))
        #expect(h.dispatches(of: DaemonCoreLiveUnitsTests.fresh) == ["1 launch n"])
    }

    @Test("after a live unit's change the history's rounds leave four dispatches unconfirmed; five seconds on, sixteen")
    func smallRoundsAfterALiveChange() throws {
        var h = try DaemonCoreLiveUnitsTests().slicedDayOne()
        h.holdLookUps = true
        h.send(.changed(H.snapshot("active", "n", second: 5_000, unit: DaemonCoreLiveUnitsTests.fresh)))
        h.answerHeldRecoveryRead()
        #expect(h.heldLookUps.count == 1, "the first round waits for the journal")
        #expect(h.core.outbox.unconfirmedCount == Outbox.liveRecoveryBound, "a small round while the live unit changes")
        var recorded = h.dispatches(of: H.unit).count
        h.now += DaemonCore.smallRoundsAfterLiveChange - 1
        h.answerHeldLookUp()
        #expect(h.dispatches(of: H.unit).count - recorded == Outbox.liveRecoveryBound, "small within five seconds")
        recorded = h.dispatches(of: H.unit).count
        h.now += 1
        h.answerHeldLookUp()
        #expect(h.dispatches(of: H.unit).count - recorded == Outbox.recoveryBound, "large again after them")
        h.holdLookUps = false
        while !h.heldLookUps.isEmpty { h.answerHeldLookUp() }
        DaemonCoreLiveUnitsTests().readUntilReady(&h)
        #expect(h.journal.filter { $0.unit == H.unit }.map(\.sequence) == Array(1...60), "every run once, in order")
        #expect(h.dispatches(of: DaemonCoreLiveUnitsTests.fresh) == ["1 launch n"])
    }

    @Test("a newer listing while recovering: a live unit's entry in it is taken at once, the recovery's end takes it no more")
    func newerListing() throws {
        let fresh = DaemonCoreLiveUnitsTests.fresh
        var h = try DaemonCoreLiveUnitsTests().slicedDayOne(listing: [H.snapshot("inactive", "m", second: 50, unit: fresh)])
        h.send(.changed(H.snapshot("active", "n", second: 100, unit: fresh)))
        #expect(h.dispatches(of: fresh) == ["1 launch n"])
        // Signals lost meanwhile: the newer listing shows the run over.
        h.send(.listing([H.snapshot("inactive", "n", second: 101, unit: fresh)]))
        #expect(h.dispatches(of: fresh) == ["1 launch n", "2 sleep n"])
        DaemonCoreLiveUnitsTests().readUntilReady(&h)
        #expect(h.dispatches(of: fresh) == ["1 launch n", "2 sleep n"], "nothing twice")
    }

    @Test("a reload deferred behind the history's work keeps a live unit's change behind it, as any input but another unit's change or a call")
    func reloadKeepsOrder() throws {
        let fresh = DaemonCoreLiveUnitsTests.fresh
        var h = try DaemonCoreLiveUnitsTests().slicedDayOne()
        h.holdLookUps = true
        h.answerHeldRecoveryRead()
        h.send(.changed(H.snapshot("active", "n", second: 5_000, unit: fresh)))
        #expect(h.dispatches(of: fresh) == ["1 launch n"])
        h.send(.reloading(true))
        h.send(.changed(H.snapshot("inactive", "n", second: 5_001, unit: fresh)))
        #expect(h.dispatches(of: fresh) == ["1 launch n"], "behind the reload, which waits for the history's work")
        h.holdLookUps = false
        while !h.heldLookUps.isEmpty { h.answerHeldLookUp() }
        DaemonCoreLiveUnitsTests().readUntilReady(&h)
        #expect(h.dispatches(of: fresh) == ["1 launch n", "2 sleep n"])
    }

    @Test("a live unit's job is taken with its changes while recovering: its timer's elapse it failed is a missed dispatch")
    func liveJobRemoved() throws {
        let fresh = DaemonCoreLiveUnitsTests.fresh
        func timer(triggeredAt second: UInt64?) -> TimerSnapshot {
            var timer = DaemonCoreTimerTests.timer(triggeredAt: second)
            timer.name = "web-new.timer"
            timer.unit = fresh
            return timer
        }
        var h = try H()
        h.timers = [timer(triggeredAt: nil)]
        h.recovery = nil
        h.send(.start)
        h.send(.listing([H.snapshot("inactive", "m", second: 1, unit: fresh)]))
        h.send(.journaledUnitsRead(JournaledUnits(logged: [H.unit], dispatched: [])))
        h.send(.timerChanged(timer(triggeredAt: 10)))
        h.send(.jobRemoved(unit: fresh, jobID: 7, result: "dependency", unitResult: "success"))
        #expect(h.dispatches(of: fresh) == ["1 missed"], "while the recovery's answer is still awaited")
        h.send(.recovered(RecoveryAnswer()))
        #expect(h.core.phase == .tracking)
        #expect(h.dispatches(of: fresh) == ["1 missed"], "once")
    }

    @Test("a slice answered while a live begin waits for its version: the unit's inputs deferred behind the answer go live once it is taken")
    func sliceAnsweredWhileAVersionWaits() throws {
        let fresh = DaemonCoreLiveUnitsTests.fresh
        var h = try DaemonCoreLiveUnitsTests().slicedDayOne(listing: [H.snapshot("inactive", "x", second: 1, unit: fresh)])
        h.holdVersions = true
        h.holdLookUps = true
        h.send(.changed(H.snapshot("active", "a", second: 10, unit: fresh)))
        #expect(h.heldVersionReads == [fresh], "the begin waits for its version")
        // The slice's answer comes meanwhile and waits behind the begin; so do the unit's next inputs.
        h.answerHeldRecoveryRead()
        h.send(.jobRemoved(unit: fresh, jobID: 1, result: "done", unitResult: nil))
        h.send(.changed(H.snapshot("inactive", "a", second: 11, unit: fresh)))
        h.send(.changed(H.snapshot("active", "b", second: 12, unit: fresh)))
        h.send(.versionRead(unit: fresh, version: "1"))
        #expect(!h.core.work.isEmpty, "the slice's runs still wait for the journal")
        #expect(h.dispatches(of: fresh) == ["1 launch a", "2 sleep a"], "taken before the round is confirmed")
        #expect(h.heldVersionReads == [fresh, fresh], "the next begin asks for its version at once")
    }
}
