// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
@testable import LifecycleSystemd
import Testing

/// The unit source's decisions about systemd's signals and its reads, as tables, with no bus.
struct UnitSourceMachineSignalTests {
    typealias H = MachineHarness

    static let deactivating = UnitProperties(
        activeState: "deactivating", subState: "stop-sigterm", stateChangeTimestamp: 44_000,
        stateChangeTimestampMonotonic: 44
    )
    static var webDeactivating: UnitSnapshot {
        var snapshot = UnitFixtures.webSnapshot
        snapshot.activeState = .deactivating
        snapshot.subState = "stop-sigterm"
        snapshot.stateChangeTimestamp = 44_000
        snapshot.stateChangeTimestampMonotonic = 44
        return snapshot
    }

    static let worker = UnitProperties(
        activeState: "failed", subState: "failed", invocationID: "ab", freezerState: "running",
        stateChangeTimestamp: 42, jobID: 7
    )

    @Test("a signal of a watched unit is reported, of another unit never", arguments: [
        ("watched, known", UnitSourceInput.propertiesChanged(unit: "web.service", .unit(deactivating)),
         [UnitSourceEffect.deliver(.changed(webDeactivating))]),
        ("watched, unknown: remembered, reported once the .Unit values come",
         .propertiesChanged(unit: "worker.service", .type(TypeProperties(result: "signal"))), []),
        ("not watched", .propertiesChanged(unit: "db.socket", .unit(worker)), []),
        ("UnitRemoved, watched", .unitRemoved("web.service"),
         [.forgetDetails(of: "web.service"), .deliver(.removed("web.service"))]),
        ("UnitRemoved, not watched", .unitRemoved("db.socket"), []),
        ("JobRemoved, watched", .jobRemoved(unit: "web.service", jobID: 9, result: "failed"),
         // web.service was read running, so without its Result (only an end uses it).
         [.deliver(.jobRemoved(unit: "web.service", jobID: 9, result: "failed", unitResult: nil))]),
        ("JobRemoved, not watched", .jobRemoved(unit: "db.socket", jobID: 9, result: "done"), []),
        ("Reloading(true)", .reloading(true), [.deliver(.reloading(true)), .forgetDetails(of: nil)]),
        ("systemd left the bus", .nameOwnerChanged(oldOwner: ":1.1", newOwner: ""), [.deliver(.signalsLost)]),
        ("systemd back on the bus", .nameOwnerChanged(oldOwner: "", newOwner: ":1.7"),
         [.forgetDetails(of: nil), .subscribe(resync: 2)]),
        ("systemd replaced on the bus", .nameOwnerChanged(oldOwner: ":1.1", newOwner: ":1.7"),
         [.deliver(.signalsLost), .forgetDetails(of: nil), .subscribe(resync: 2)]),
    ])
    func signal(situation: String, input: UnitSourceInput, effects: [UnitSourceEffect]) {
        var h = H.established()
        #expect(h.send(input) == effects, "\(situation)")
    }

    @Test("the type interface's values are read for an end, a failed job and what the driver cannot tell", arguments: [
        ("a change that shows no end", UnitSourceInput.propertiesChanged(unit: "web.service", .unit(deactivating)),
         TypeValuesUse.none),
        ("the run's end", .propertiesChanged(unit: "web.service", .unit(UnitProperties(activeState: "inactive", subState: "dead"))),
         .unit("web.service")),
        ("a failure", .propertiesChanged(unit: "web.service", .unit(UnitProperties(activeState: "failed", subState: "failed"))),
         .unit("web.service")),
        ("a restart pending", .propertiesChanged(
            unit: "web.service", .unit(UnitProperties(activeState: "activating", subState: "auto-restart"))),
         .unit("web.service")),
        ("the state merged with what is known: no end", .propertiesChanged(unit: "web.service", .unit(UnitProperties(jobID: 3))),
         .none),
        ("a unit not started yet: inactive, no run", .propertiesChanged(unit: "worker.service", .unit(UnitProperties(
            activeState: "inactive", subState: "dead", invocationID: "", jobID: 3))), .none),
        ("a fresh unit's first signal: an InvocationID, still inactive, never left it", .propertiesChanged(
            unit: "worker.service", .unit(UnitProperties(activeState: "inactive", subState: "dead", invocationID: "0c",
                                                         inactiveExitTimestampMonotonic: 0))), .none),
        ("a run seen only over: a new InvocationID, inactive, left it once", .propertiesChanged(
            unit: "worker.service", .unit(UnitProperties(activeState: "inactive", subState: "dead", invocationID: "0c",
                                                         inactiveExitTimestampMonotonic: 5))), .unit("worker.service")),
        ("an end without InactiveExitTimestampMonotonic sent: read", .propertiesChanged(
            unit: "worker.service", .unit(UnitProperties(activeState: "failed", subState: "failed", invocationID: "0c"))),
         .unit("worker.service")),
        ("an unknown unit without its state: no snapshot to judge",
         .propertiesChanged(unit: "worker.service", .unit(UnitProperties(jobID: 3))), .unit("worker.service")),
        ("a type signal", .propertiesChanged(unit: "web.service", .type(TypeProperties(result: "signal"))), .none),
        ("a job done", .jobRemoved(unit: "web.service", jobID: 9, result: "done"), .none),
        ("a job failed", .jobRemoved(unit: "web.service", jobID: 9, result: "failed"), .unit("web.service")),
        ("UnitRemoved outside a reload: nothing keeps the unit", .unitRemoved("web.service"), .none),
        ("Reloading", .reloading(false), .all),
        ("a read of a resync", .propertiesRead(resync: 1, failure: nil), .all),
    ])
    func typeValuesUse(situation: String, input: UnitSourceInput, use: TypeValuesUse) {
        let h = H.established()
        #expect(h.machine.typeValuesUse(of: input) == use, "\(situation)")
    }

    static let ended = UnitProperties(activeState: "inactive", subState: "dead", stateChangeTimestamp: 50_000,
                                      stateChangeTimestampMonotonic: 50)

    @Test("an end shown already reads no values again; a new state, run or reload does", arguments: [
        ("the job's removal after the end", UnitSourceInput.propertiesChanged(unit: "web.service", .unit(UnitProperties(
            jobID: 0))), TypeValuesUse.none),
        ("the end's state again, later", .propertiesChanged(unit: "web.service", .unit(UnitProperties(
            activeState: "inactive", subState: "dead", stateChangeTimestamp: 60_000))), .none),
        ("reset-failed: another state of the same run", .propertiesChanged(unit: "web.service", .unit(UnitProperties(
            activeState: "failed", subState: "failed"))), .unit("web.service")),
        ("another run that ended", .propertiesChanged(unit: "web.service", .unit(UnitProperties(
            activeState: "inactive", subState: "dead", invocationID: String(repeating: "0b", count: 16)))),
         .unit("web.service")),
    ])
    func endShownAlready(situation: String, input: UnitSourceInput, use: TypeValuesUse) {
        var h = H.established()
        _ = h.send(.propertiesChanged(unit: "web.service", .unit(Self.ended)))
        #expect(h.machine.typeValuesUse(of: input) == use, "\(situation)")
    }

    @Test("a unit removed in a reload is parked with its values: they are read first")
    func removedInReload() {
        var h = H.established()
        _ = h.send(.reloading(true))
        #expect(h.machine.typeValuesUse(of: .unitRemoved("web.service")) == .unit("web.service"))
    }

    @Test("the type interface's values come first and go into the snapshot of the .Unit ones")
    func typeThenUnit() {
        var h = H.established()
        #expect(h.send(.propertiesChanged(unit: "worker.service", .type(TypeProperties(result: "signal")))) == [])
        let effects = h.send(.propertiesChanged(unit: "worker.service", .unit(Self.worker)))
        guard case .deliver(.changed(let snapshot)) = effects.first, effects.count == 1 else {
            Issue.record("expected one changed: \(effects)")
            return
        }
        #expect(snapshot.result == "signal")
        #expect(snapshot.activeState == .failed)
        #expect(snapshot.jobID == 7)
    }

    @Test("a reload: units removed are parked, a known unit is only checked, one that moved is read in full")
    func reload() {
        for moved in [false, true] {
            var h = H.established()
            _ = h.send([.reloading(true), .unitRemoved("web.service")])
            #expect(h.machine.parked.keys.sorted() == ["web.service"])
            #expect(h.send(.reloading(false)) == [
                .deliver(.reloading(false)), .forgetDetails(of: nil), .subscribe(resync: 2),
            ])
            _ = h.send(.subscribed(resync: 2, H.alreadySubscribed))
            #expect(h.send(.listed(resync: 2, .success([H.webListed]))) == [.readProperties(resync: 2, [H.webCheck])])
            var now = H.web
            if moved {
                // Restarted during the reload: announced by UnitNew alone, with the same state.
                now.unit.invocationID = String(repeating: "07", count: 16)
                now.unit.stateChangeTimestampMonotonic = 1_763_000_001_000
            }
            _ = h.send(.propertyRead(resync: 2, H.webCheck, H.answer(H.webCheck, from: ["web.service": now])))
            let next = h.send(.propertiesRead(resync: 2, failure: nil))
            var expected = UnitFixtures.webSnapshot
            if moved {
                #expect(next == [.readProperties(resync: 2, H.webFullReads)])
                #expect(h.answerReads(next, resync: 2, from: ["web.service": now]).count == 1)
                expected.invocationID = String(repeating: "07", count: 16)
                expected.stateChangeTimestampMonotonic = 1_763_000_001_000
                #expect(h.machine.units["web.service"]?.snapshot(name: "web.service") == expected)
            } else {
                #expect(next == [.deliver(.initial([expected]))], "nothing more read")
            }
            #expect(h.machine.parked.isEmpty)
        }
    }

    @Test("UnitRemoved outside a reload forgets the unit: listed again, it is read in full")
    func removedOutsideReload() {
        var h = H.established()
        _ = h.send(.unitRemoved("web.service"))
        #expect(h.machine.parked.isEmpty)
        #expect(!h.machine.isLoaded("web.service"))
        _ = h.send([.reloading(false), .subscribed(resync: 2, nil)])
        #expect(h.send(.listed(resync: 2, .success([H.webListed]))) == [.readProperties(resync: 2, H.webFullReads)])
    }

    @Test("a parked unit re-announced during the reload takes back what was known; one not listed after it is gone")
    func parkedUnits() {
        var h = H.established()
        _ = h.send([.reloading(true), .unitRemoved("web.service")])
        // As daemon-reexec does: PropertiesChanged, no UnitNew.
        #expect(h.send(.propertiesChanged(unit: "web.service", .unit(Self.deactivating))) == [
            .deliver(.changed(Self.webDeactivating)),
        ])
        #expect(h.machine.parked.isEmpty)

        var gone = H.established()
        _ = gone.send([.reloading(true), .unitRemoved("web.service"), .reloading(false)])
        #expect(gone.resync(2, listing: []).last == .deliver(.initial([])))
        #expect(gone.machine.parked.isEmpty)
        #expect(!gone.machine.isLoaded("web.service"))
    }

    @Test("failed reads: of .Unit, the unit is left out and forgotten; of the type interface, kept", arguments: [
        ("a .Unit read refused", 0, PropertyReadAnswer.failed(H.noSuchUnit), false, false),
        ("a type read refused", 5, .failed(H.noSuchUnit), true, true),
        ("a .Unit read unparsable", 1, .unparsable(SystemdError(errno: EBADMSG, operation: "read")), false, false),
        ("a type read unparsable", 6, .unparsable(SystemdError(errno: EBADMSG, operation: "read")), false, false),
    ])
    func failedReads(situation: String, index: Int, answer: PropertyReadAnswer, isReported: Bool, isKept: Bool) {
        var h = H()
        _ = h.send([.start, .connected(generation: 1), .subscribed(resync: 1, nil)])
        // Listed failed, so that its .Service values are read too (a running unit's are not).
        var listed = H.webListed
        listed.activeState = "failed"
        listed.subState = "failed"
        _ = h.send(.listed(resync: 1, .success([listed])))
        for (position, read) in PropertyRead.fullReads(of: listed).enumerated() {
            let reply = position == index ? answer : H.answer(read, from: H.loaded)
            _ = h.send(.propertyRead(resync: 1, read, reply))
        }
        let effects = h.send(.propertiesRead(resync: 1, failure: nil))
        guard case .deliver(.initial(let snapshots)) = effects.first else {
            Issue.record("expected initial: \(effects)")
            return
        }
        #expect(snapshots.map(\.name) == (isReported ? ["web.service"] : []), "\(situation)")
        #expect(h.machine.isLoaded("web.service") == isKept, "\(situation)")
    }

    @Test("a unit heard from during the resync stays known though its read failed")
    func touchedDuringResync() {
        var h = H()
        _ = h.send([.start, .connected(generation: 1), .subscribed(resync: 1, nil)])
        _ = h.send(.listed(resync: 1, .success([H.webListed])))
        _ = h.send(.propertyRead(resync: 1, H.webFullReads[0], .failed(H.noSuchUnit)))
        _ = h.send(.propertiesChanged(unit: "web.service", .unit(Self.deactivating)))
        let effects = h.send(.propertiesRead(resync: 1, failure: nil))
        #expect(effects.first == .deliver(.initial([])))
        #expect(h.machine.isLoaded("web.service"))
    }

    @Test("a read batch that could not be sent fails the resync")
    func batchFailure() {
        var h = H.established()
        _ = h.send([.reloading(false), .subscribed(resync: 2, nil), .listed(resync: 2, .success([H.webListed]))])
        #expect(h.send(.propertiesRead(resync: 2, failure: H.reset)) == [
            .armTimer(.resyncRetry, after: .milliseconds(100)),
        ])
    }
}
