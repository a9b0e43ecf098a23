// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
@testable import LifecycleSystemd
import Testing

/// What a resync reads of each listed unit: the type interface's values only for a unit whose listed state may use
/// them (``TypeProperties/areUsed(inState:)``; docs/PERFORMANCE.md, "READY with 1,000 units").
struct UnitSourceMachineReadTests {
    typealias H = MachineHarness

    static let dbPath = "/org/freedesktop/systemd1/unit/db_2eservice"
    static let dbListed = ListedUnit(
        name: "db.service", loadState: "loaded", activeState: "failed", subState: "failed", path: dbPath, jobID: 0
    )
    static let db = WatchedUnit(
        unit: UnitProperties(
            activeState: "failed", subState: "failed", invocationID: String(repeating: "d", count: 32),
            freezerState: "running", stateChangeTimestamp: 9_000_000, stateChangeTimestampMonotonic: 9_000, jobID: 0
        ),
        type: TypeProperties(result: "exit-code", nRestarts: 0, execMainCode: 1, execMainStatus: 3, mainPID: 0)
    )

    static func reads(_ unit: String, path: String, _ names: [String], interface: String) -> [PropertyRead] {
        names.map { PropertyRead(unit: unit, path: path, interface: interface, name: $0) }
    }

    static let unitNames = ["InvocationID", "FreezerState", "StateChangeTimestamp", "StateChangeTimestampMonotonic"]
    static let serviceNames = ["Result", "NRestarts", "ExecMainCode", "ExecMainStatus", "MainPID"]

    @Test("a running service is read without its .Service values, a failed one with them")
    func typeValuesOnlyWhereUsed() {
        var h = H()
        _ = h.send([.start, .connected(generation: 1), .subscribed(resync: 1, nil)])
        let effects = h.send(.listed(resync: 1, .success([H.webListed, Self.dbListed])))
        #expect(H.reads(in: effects) ==
            Self.reads("web.service", path: H.webPath, Self.unitNames, interface: SystemdNames.unitInterface)
            + Self.reads("db.service", path: Self.dbPath, Self.unitNames, interface: SystemdNames.unitInterface)
            + Self.reads("db.service", path: Self.dbPath, Self.serviceNames, interface: SystemdNames.serviceInterface))
        let initial = h.answerReads(effects, resync: 1, from: H.loaded.merging(["db.service": Self.db]) { $1 })
        let failed = UnitSnapshot(
            name: "db.service", activeState: .failed, subState: "failed", invocationID: String(repeating: "d", count: 32),
            result: "exit-code", nRestarts: 0, execMainCode: 1, execMainStatus: 3, mainPID: 0, freezerState: "running",
            stateChangeTimestamp: 9_000_000, stateChangeTimestampMonotonic: 9_000, jobID: 0
        )
        #expect(initial.first == .deliver(.initial([failed, UnitFixtures.webSnapshot])))
        #expect(UnitFixtures.webSnapshot.result == nil && failed.endTransition != .endedCleanly)
    }

    @Test("which states use the type interface's values", arguments: [
        ("active", false), ("reloading", false), ("refreshing", false), ("activating", true), ("deactivating", true),
        ("inactive", true), ("failed", true), ("maintenance", true),
    ])
    func statesThatUseTypeValues(state: String, used: Bool) {
        #expect(TypeProperties.areUsed(inState: state) == used)
    }

    @Test("after a reload, a running service read without its .Service values is only checked")
    func runningUnitChecked() {
        var h = H.established()
        #expect(h.send(.reloading(false)) == [.deliver(.reloading(false)), .forgetDetails(of: nil), .subscribe(resync: 2)])
        _ = h.send(.subscribed(resync: 2, nil))
        #expect(h.send(.listed(resync: 2, .success([H.webListed]))) == [.readProperties(resync: 2, [H.webCheck])])
    }

    @Test("after a reload, a running service the listing shows failed is read in full, its .Service values too")
    func endedUnitReadInFull() {
        var h = H.established()
        _ = h.send([.reloading(false), .subscribed(resync: 2, nil)])
        var listed = H.webListed
        listed.activeState = "failed"
        listed.subState = "failed"
        let reads = H.reads(in: h.send(.listed(resync: 2, .success([listed]))))
        #expect(reads == Self.reads("web.service", path: H.webPath, Self.unitNames, interface: SystemdNames.unitInterface)
            + Self.reads("web.service", path: H.webPath, Self.serviceNames, interface: SystemdNames.serviceInterface))
    }
}
