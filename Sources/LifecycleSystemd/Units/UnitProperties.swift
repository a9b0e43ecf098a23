// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The `org.freedesktop.systemd1.Unit` properties a snapshot uses, as last seen. Missing ones keep their old value:
/// systemd sends all of them with every change, but single `Get` replies and the listing are merged the same way.
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

    /// The properties ``set(_:from:)`` takes.
    static let used = BusPropertyNames([
        "ActiveState", "SubState", "FreezerState", "InvocationID", "StateChangeTimestamp",
        "StateChangeTimestampMonotonic", "Job", "InactiveExitTimestampMonotonic", "ActiveEnterTimestampMonotonic",
        "InactiveEnterTimestampMonotonic",
    ])

    /// Merges an `a{sv}` (from `PropertiesChanged`), skipping properties we do not use.
    mutating func merge(from message: BusMessage) throws(SystemdError) {
        try message.readProperties(Self.used) { name, value throws(SystemdError) in try set(name, from: value) }
    }

    /// Sets one property from the variant `message` is at (a `Get` reply, or one entry of an `a{sv}`); ignores
    /// properties we do not use.
    mutating func set(_ name: String, from message: BusMessage) throws(SystemdError) {
        switch name {
        case "ActiveState": activeState = try message.readVariant(String.self)
        case "SubState": subState = try message.readVariant(String.self)
        case "FreezerState": freezerState = try message.readVariant(String.self)
        case "InvocationID": invocationID = Self.hex(try message.readVariant([UInt8].self))
        case "StateChangeTimestamp": stateChangeTimestamp = try message.readVariant(UInt64.self)
        case "StateChangeTimestampMonotonic": stateChangeTimestampMonotonic = try message.readVariant(UInt64.self)
        case "Job": jobID = try Self.readJobID(message)
        case "InactiveExitTimestampMonotonic": inactiveExitTimestampMonotonic = try message.readVariant(UInt64.self)
        case "ActiveEnterTimestampMonotonic": activeEnterTimestampMonotonic = try message.readVariant(UInt64.self)
        case "InactiveEnterTimestampMonotonic": inactiveEnterTimestampMonotonic = try message.readVariant(UInt64.self)
        default: break
        }
    }

    /// `Job` is `(uo)`: the pending job's id and path, `(0, "/")` when there is none.
    private static func readJobID(_ message: BusMessage) throws(SystemdError) -> UInt32 {
        try message.readContainer(.variant, "(uo)") { variant throws(SystemdError) in
            try variant.readContainer(.structure, "uo") { job throws(SystemdError) in
                let id = try UInt32(from: job)
                _ = try job.readObjectPath()
                return id
            }
        }
    }

    /// A 128-bit id (`InvocationID` is an `ay` of 16 bytes) as 32 lower-case hex digits, the form journald uses for
    /// `INVOCATION_ID=`; an empty array (never ran) gives "".
    static func hex(_ bytes: [UInt8]) -> String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
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

    /// The properties ``set(_:from:)`` takes.
    static let used = BusPropertyNames(["Result", "NRestarts", "ExecMainCode", "ExecMainStatus", "MainPID"])

    mutating func merge(from message: BusMessage) throws(SystemdError) {
        try message.readProperties(Self.used) { name, value throws(SystemdError) in try set(name, from: value) }
    }

    mutating func set(_ name: String, from message: BusMessage) throws(SystemdError) {
        switch name {
        case "Result": result = try message.readVariant(String.self)
        case "NRestarts": nRestarts = try message.readVariant(UInt32.self)
        case "ExecMainCode": execMainCode = try message.readVariant(Int32.self)
        case "ExecMainStatus": execMainStatus = try message.readVariant(Int32.self)
        case "MainPID": mainPID = try message.readVariant(UInt32.self)
        default: break
        }
    }
}

/// What the source knows about one watched, loaded unit.
struct WatchedUnit: Sendable, Hashable {
    var unit = UnitProperties()
    var type = TypeProperties()

    /// Takes what a listing entry says, which is as new as the listing (merged in arrival order, like signals).
    mutating func apply(_ listed: ListedUnit) {
        unit.activeState = listed.activeState
        unit.subState = listed.subState
        unit.jobID = listed.jobID
    }

    /// Whether every value a snapshot of `name` uses has been read or signalled.
    func isComplete(name: String) -> Bool {
        guard unit.invocationID != nil, unit.freezerState != nil, unit.stateChangeTimestamp != nil,
              unit.stateChangeTimestampMonotonic != nil, unit.activeState != nil, unit.subState != nil
        else { return false }
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
