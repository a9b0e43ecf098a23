// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The `org.freedesktop.systemd1.Unit` properties a snapshot uses, as last seen, or as one signal or one `Get` carried
/// them (nil: not in it). Missing ones keep their old value when merged: systemd sends all of them with every change,
/// but single `Get` replies and the listing are merged the same way.
struct UnitProperties: Sendable, Hashable {
    /// What a resync reads with `Get`; `ActiveState`, `SubState` and `Job` come with the listing. Never `GetAll`:
    /// it makes PID 1 compute `UnitFileState` by searching the unit paths, seconds of CPU for a thousand units.
    static let readNames = ["InvocationID", "FreezerState", "StateChangeTimestamp", "StateChangeTimestampMonotonic"]

    var activeState: String?
    var subState: String?
    var invocationID: String?
    var freezerState: String?
    var stateChangeTimestamp: UInt64?
    var stateChangeTimestampMonotonic: UInt64?
    var jobID: UInt32?
    /// When the unit last left inactive, became active and became inactive (PID 1's monotonic clock, µs): they come
    /// with every change signal, and a run's start-up is read from them at its end. Never read by a resync.
    var inactiveExitTimestampMonotonic: UInt64?
    var activeEnterTimestampMonotonic: UInt64?
    var inactiveEnterTimestampMonotonic: UInt64?

    /// Takes every value `newer` has; the others stay.
    mutating func merge(_ newer: UnitProperties) {
        if let value = newer.activeState { activeState = value }
        if let value = newer.subState { subState = value }
        if let value = newer.invocationID { invocationID = value }
        if let value = newer.freezerState { freezerState = value }
        if let value = newer.stateChangeTimestamp { stateChangeTimestamp = value }
        if let value = newer.stateChangeTimestampMonotonic { stateChangeTimestampMonotonic = value }
        if let value = newer.jobID { jobID = value }
        if let value = newer.inactiveExitTimestampMonotonic { inactiveExitTimestampMonotonic = value }
        if let value = newer.activeEnterTimestampMonotonic { activeEnterTimestampMonotonic = value }
        if let value = newer.inactiveEnterTimestampMonotonic { inactiveEnterTimestampMonotonic = value }
    }
}

/// The type interface's (`org.freedesktop.systemd1.Service`, `.Socket`, …) properties a snapshot uses. systemd sends
/// them just before the `.Unit` ones, so they are remembered until then.
struct TypeProperties: Sendable, Hashable {
    var result: String?
    var nRestarts: UInt32?
    var execMainCode: Int32?
    var execMainStatus: Int32?
    var mainPID: UInt32?

    /// What a resync reads with `Get` from `interface`: only `.Service` has the counters and exit values; every other
    /// type interface with a `Result` has just that.
    static func readNames(of interface: String) -> [String] {
        interface == SystemdNames.serviceInterface
            ? ["Result", "NRestarts", "ExecMainCode", "ExecMainStatus", "MainPID"]
            : ["Result"]
    }

    /// Whether a snapshot of a unit in `activeState` may use these values. Only one that shows a run's end (failed,
    /// inactive, a restart pending) or a start refused does (``UnitSourceMachine/typeValuesUse(of:)``); a unit
    /// `active`, `reloading` or `refreshing` shows neither. So a resync reads them only for a unit listed in another
    /// state: four `Get`s instead of nine for a running service (docs/PERFORMANCE.md, "READY with 1,000 units"). When
    /// such a unit ends, the type interface's `PropertiesChanged` just before the `.Unit` one that shows the end
    /// carries every value.
    static func areUsed(inState activeState: String?) -> Bool {
        switch activeState {
        case "active", "reloading", "refreshing": false
        default: true
        }
    }

    /// Takes every value `newer` has; the others stay.
    mutating func merge(_ newer: TypeProperties) {
        if let value = newer.result { result = value }
        if let value = newer.nRestarts { nRestarts = value }
        if let value = newer.execMainCode { execMainCode = value }
        if let value = newer.execMainStatus { execMainStatus = value }
        if let value = newer.mainPID { mainPID = value }
    }
}

/// What the source knows about one watched, loaded unit.
struct WatchedUnit: Sendable, Hashable {
    var unit = UnitProperties()
    var type = TypeProperties()

    /// Takes the values one signal or one read carried.
    mutating func merge(_ values: InterfaceProperties) {
        switch values {
        case .unit(let newer): unit.merge(newer)
        case .type(let newer): type.merge(newer)
        }
    }

    /// Takes what a listing entry says, which is as new as the listing (merged in arrival order, like signals).
    mutating func apply(_ listed: ListedUnit) {
        unit.activeState = listed.activeState
        unit.subState = listed.subState
        unit.jobID = listed.jobID
    }

    /// Whether every value a snapshot of `name` uses has been read or signalled: the type interface's only when the
    /// unit's state may use them (``TypeProperties/areUsed(inState:)``).
    func isComplete(name: String) -> Bool {
        guard unit.invocationID != nil, unit.freezerState != nil, unit.stateChangeTimestamp != nil,
              unit.stateChangeTimestampMonotonic != nil, unit.activeState != nil, unit.subState != nil
        else { return false }
        guard TypeProperties.areUsed(inState: unit.activeState) else { return true }
        switch SystemdNames.typeInterface(forUnit: name) {
        case nil: return true
        case SystemdNames.serviceInterface?:
            return type.result != nil && type.nRestarts != nil && type.execMainCode != nil
                && type.execMainStatus != nil && type.mainPID != nil
        default: return type.result != nil
        }
    }

    /// The snapshot, once `ActiveState` and `SubState` are known.
    func snapshot(name: String) -> UnitSnapshot? {
        guard let activeState = unit.activeState, let subState = unit.subState else { return nil }
        var snapshot = UnitSnapshot(
            name: name,
            activeState: ActiveState(activeState),
            subState: subState,
            invocationID: unit.invocationID ?? "",
            result: type.result,
            nRestarts: type.nRestarts,
            execMainCode: type.execMainCode,
            execMainStatus: type.execMainStatus,
            mainPID: type.mainPID,
            freezerState: unit.freezerState,
            stateChangeTimestamp: unit.stateChangeTimestamp ?? 0,
            stateChangeTimestampMonotonic: unit.stateChangeTimestampMonotonic ?? 0,
            jobID: unit.jobID ?? 0
        )
        snapshot.inactiveExitMonotonic = unit.inactiveExitTimestampMonotonic ?? 0
        snapshot.activeEnterMonotonic = unit.activeEnterTimestampMonotonic ?? 0
        snapshot.inactiveEnterMonotonic = unit.inactiveEnterTimestampMonotonic ?? 0
        return snapshot
    }
}
