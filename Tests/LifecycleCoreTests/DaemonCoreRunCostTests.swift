// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import Testing

/// A run's record on its end: the start-up from the end's snapshot, what the run cost read before the end is
/// recorded, and nothing asked again of a unit whose host cannot say.
struct DaemonCoreRunCostTests {
    typealias H = CoreHarness

    /// web.service's run `run`: it left inactive at second `began`, became active `startup` seconds later, and ended
    /// at second `ended`.
    static func ended(_ run: Character, began: UInt64, startup: Double, ended: UInt64) -> UnitSnapshot {
        var snapshot = H.snapshot("inactive", run, second: ended)
        snapshot.inactiveExitMonotonic = began * 1_000_000
        snapshot.activeEnterMonotonic = began * 1_000_000 + UInt64(startup * 1_000_000)
        snapshot.inactiveEnterMonotonic = ended * 1_000_000
        return snapshot
    }

    private func tracking() throws -> H {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        return h
    }

    private func endFields(_ h: H) -> [String: String] {
        guard let end = h.journal.last else { return [:] }
        return Dictionary(end.entry.fields.map { ($0.name, $0.value) }) { first, _ in first }
    }

    @Test("the sleep carries the start-up from its snapshot and the cost read before it is recorded")
    func costOnTheSleep() throws {
        var h = try tracking()
        h.runCosts[H.run("a")] = RunRecord(cpuSeconds: 0.5, memoryPeakBytes: 1_048_576, ioReadBytes: 0)
        h.send(.changed(Self.ended("a", began: 1, startup: 1.25, ended: 9)))
        #expect(h.costReads == [UnitRunID(unit: H.unit, invocationID: H.run("a"))])
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"])
        let fields = endFields(h)
        #expect(fields["LIFECYCLE_RUN_STARTUP_SECONDS"] == "1.25")
        #expect(fields["LIFECYCLE_RUN_DURATION_SECONDS"] == "8.0", "from leaving inactive to entering it, by PID 1's monotonic clock")
        #expect(fields["LIFECYCLE_RUN_CPU_SECONDS"] == "0.5")
        #expect(fields["LIFECYCLE_RUN_MEMORY_PEAK_BYTES"] == "1048576")
        #expect(fields["LIFECYCLE_RUN_IO_READ_BYTES"] == "0")
        #expect(fields["LIFECYCLE_RUN_IO_WRITE_BYTES"] == nil, "unknown is absent, never 0")
    }

    @Test("a crash notice carries the record too, and the launch carries none")
    func costOnTheCrash() throws {
        var h = try tracking()
        h.runCosts[H.run("a")] = RunRecord(cpuSeconds: 2)
        var failed = Self.ended("a", began: 1, startup: 0.5, ended: 4)
        failed.activeState = .failed
        failed.result = "exit-code"
        h.send(.changed(failed))
        #expect(h.dispatches() == ["1 launch a", "2 crash a"])
        #expect(endFields(h)["LIFECYCLE_RUN_CPU_SECONDS"] == "2.0")
        #expect(endFields(h)["LIFECYCLE_RUN_DURATION_SECONDS"] == "3.0")
        #expect(endFields(h)["LIFECYCLE_UNIT_RESULT"] == "exit-code")
        let launch = Dictionary(h.journal[0].entry.fields.map { ($0.name, $0.value) }) { first, _ in first }
        #expect(launch.keys.filter { $0.hasPrefix("LIFECYCLE_RUN_") }.isEmpty)
    }

    @Test("while the cost is read, what comes next waits; an end in the backlog is not held up by a read of its own")
    func nextWaitsForTheCost() throws {
        var h = try tracking()
        h.holdCosts = true
        h.send(.changed(Self.ended("a", began: 1, startup: 1, ended: 5)))
        h.send(.changed(H.snapshot("active", "b", second: 6)))
        h.send(.changed(Self.ended("b", began: 6, startup: 1, ended: 7)))
        h.send(.changed(H.snapshot("active", "c", second: 8)))
        #expect(h.dispatches() == ["1 launch a"])
        h.holdCosts = false
        h.send(.runCostRead(h.heldCostReads[0], RunRecord(cpuSeconds: 1)))
        #expect(h.dispatches() == ["1 launch a", "2 sleep a", "3 wake b", "4 sleep b", "5 wake c"])
        #expect(h.costReads.map(\.invocationID) == [H.run("a")], "b ended while c's start waited behind it")
        #expect(h.journal[3].entry.journalFields["LIFECYCLE_RUN_STARTUP_SECONDS"] == "1.0", "the start-up needs no read")
    }

    @Test("a unit whose cost the host cannot tell is not asked again until systemd reloads or unloads it")
    func hostWithoutAccounting() throws {
        var h = try tracking()
        h.send(.changed(Self.ended("a", began: 1, startup: 1, ended: 5)))
        h.send(.changed(H.snapshot("active", "b", second: 6)))
        h.send(.changed(Self.ended("b", began: 6, startup: 1, ended: 8)))
        #expect(h.costReads.map(\.invocationID) == [H.run("a")])
        #expect(endFields(h)["LIFECYCLE_RUN_STARTUP_SECONDS"] == "1.0", "the start-up needs no read")
        h.send(.reloading(true))
        h.send(.reloading(false))
        h.send(.changed(H.snapshot("active", "c", second: 10)))
        h.send(.changed(Self.ended("c", began: 10, startup: 1, ended: 12)))
        #expect(h.costReads.map(\.invocationID) == [H.run("a"), H.run("c")])
        // Unloaded, the unit is forgotten here too: loaded again, its next end is asked.
        h.send(.unitRemoved(H.unit))
        h.send(.changed(H.snapshot("active", "d", second: 14)))
        h.send(.changed(Self.ended("d", began: 14, startup: 1, ended: 16)))
        #expect(h.costReads.map(\.invocationID) == [H.run("a"), H.run("c"), H.run("d")])
    }

    /// A transient unit of a churn: `web-N.service`, one run, unloaded after it; its run id is N in hex.
    private static func transientRun(_ number: Int, _ h: inout H, cost: RunRecord? = nil) {
        let unit = "web-\(number).service"
        let hex = String(number, radix: 16)
        let run = String(repeating: "0", count: 32 - hex.count) + hex
        var active = H.snapshot("active", "a", second: UInt64(2 * number + 2), unit: unit)
        active.invocationID = run
        var ended = Self.ended("a", began: UInt64(2 * number + 2), startup: 0.5, ended: UInt64(2 * number + 3))
        ended.name = unit
        ended.invocationID = run
        if let cost { h.runCosts[run] = cost }
        h.send(.changed(active))
        h.send(.changed(ended))
        h.send(.unitRemoved(unit))
    }

    @Test("a churn of new names on a host that accounts nothing: three asked, then one end in 64")
    func hostWithoutAccountingLearnedOnce() throws {
        var h = try tracking()
        for number in 0..<100 { Self.transientRun(number, &h) }
        #expect(h.costReads.map(\.unit) == ["web-0.service", "web-1.service", "web-2.service", "web-66.service"])
        #expect(h.journal.count == 1 + 200, "every run recorded, begun and ended, read or not")
        // The probe finds a cost: the host accounts now, and every end is asked again.
        for number in 100..<140 { Self.transientRun(number, &h, cost: RunRecord(cpuSeconds: 0.01)) }
        #expect(h.costReads.map(\.unit).suffix(10) == (130..<140).map { "web-\($0).service" })
        #expect(h.costReads.count == 4 + 10, "web-130's probe (the 64th end since the last) and every end after it")
        #expect(endFields(h)["LIFECYCLE_RUN_CPU_SECONDS"] == "0.01")
    }

    @Test("a cost that could not be read at all (unit gone, bus slow) leaves the next end asked again")
    func unreadableCost() throws {
        var h = try tracking()
        h.runCosts[H.run("a")] = .some(nil)
        h.send(.changed(Self.ended("a", began: 1, startup: 1, ended: 5)))
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"])
        h.runCosts[H.run("b")] = RunRecord(cpuSeconds: 0.25)
        h.send(.changed(H.snapshot("active", "b", second: 6)))
        h.send(.changed(Self.ended("b", began: 6, startup: 1, ended: 8)))
        #expect(h.costReads.map(\.invocationID) == [H.run("a"), H.run("b")])
        #expect(endFields(h)["LIFECYCLE_RUN_CPU_SECONDS"] == "0.25")
    }

    @Test("a run never active that ended cleanly is a oneshot: its start-up is its whole activation")
    func oneshot() throws {
        var h = try tracking()
        var finished = Self.ended("a", began: 1, startup: 0, ended: 4)
        finished.activeEnterMonotonic = 0
        h.send(.changed(finished))
        #expect(endFields(h)["LIFECYCLE_RUN_STARTUP_SECONDS"] == "3.0")
        h.send(.changed(H.snapshot("active", "b", second: 6)))
        var failed = Self.ended("b", began: 6, startup: 0, ended: 7)
        failed.activeEnterMonotonic = 0
        failed.activeState = .failed
        failed.result = "exit-code"
        h.send(.changed(failed))
        #expect(endFields(h)["LIFECYCLE_RUN_STARTUP_SECONDS"] == nil, "a start that failed has no start-up")
    }

    @Test("a run recovered from PID 1's journal carries what its entries tell, and no cost is read for it")
    func recoveredRun() throws {
        var h = try H()
        h.recovery = RecoveryAnswer(history: RunHistory(entries: [
            H.entry(RunEnding.MessageID.unitStarting, of: "a", second: 1),
            H.entry(RunEnding.MessageID.unitStarted, of: "a", second: 3),
            H.entry(RunRecord.MessageID.unitOutOfMemory, of: "a", second: 5),
            H.entry(
                RunRecord.MessageID.unitResources, of: "a", second: 5,
                ["CPU_USAGE_NSEC": "1500000000", "MEMORY_PEAK": "2048"]
            ),
            H.entry(RunEnding.MessageID.unitFailureResult, of: "a", second: 5, ["UNIT_RESULT": "oom-kill"]),
        ]))
        h.send(.start)
        h.send(.listing([]))
        #expect(h.dispatches() == ["1 launch a reconciled", "2 crash a reconciled"])
        #expect(h.costReads.isEmpty)
        let end = endFields(h)
        #expect(end["LIFECYCLE_RUN_STARTUP_SECONDS"] == "2.0")
        #expect(end["LIFECYCLE_RUN_CPU_SECONDS"] == "1.5")
        #expect(end["LIFECYCLE_RUN_MEMORY_PEAK_BYTES"] == "2048")
        #expect(end["LIFECYCLE_RUN_OOM"] == "kernel")
        #expect(end["LIFECYCLE_UNIT_RESULT"] == "oom-kill")
        let launch = Dictionary(h.journal[0].entry.fields.map { ($0.name, $0.value) }) { first, _ in first }
        #expect(launch["LIFECYCLE_RUN_STARTUP_SECONDS"] == "2.0", "a recovered launch knows its start-up")
        #expect(launch["LIFECYCLE_RUN_CPU_SECONDS"] == nil, "and nothing of what the run cost")
    }
}
