// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleSystemd
import Synchronization

/// The part of `org.freedesktop.systemd1` the unit source uses, served from a second connection on a private bus:
/// `Subscribe` (with `AlreadySubscribed` on a repeat, as PID 1 answers), `ListUnitsByPatterns` (fnmatch with
/// `FNM_NOESCAPE`, `not-found` units included, as PID 1 does), `Properties.GetAll`/`Get` on unit objects, and the
/// signals PID 1 sends.
final class FakeSystemd: Sendable {
    struct Unit: Sendable {
        var name: String
        var loadState = "loaded"
        var activeState = "inactive"
        var subState = "dead"
        /// `org.freedesktop.systemd1.Unit` properties.
        var unitProperties: [(String, BusValue)] = []
        /// The type interface's properties (e.g. `.Service`).
        var typeProperties: [(String, BusValue)] = []

        var path: String {
            (try? BusObjectPath.encode(prefix: FakeSystemd.unitPrefix, externalID: name).rawValue) ?? ""
        }

        /// The current run's invocation ID in hex, from the `InvocationID` property; nil without one.
        var invocationHex: String? {
            guard case .bytes(let id)? = unitProperties.first(where: { $0.0 == "InvocationID" })?.1, id.count == 16
            else { return nil }
            return id.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined()
        }

        /// What the listing says, from the same state as the properties, as in PID 1.
        var listedState: (active: String, sub: String, job: UInt32) {
            var listed = (active: activeState, sub: subState, job: UInt32(0))
            for (name, value) in unitProperties {
                switch (name, value) {
                case ("ActiveState", .string(let state)): listed.active = state
                case ("SubState", .string(let state)): listed.sub = state
                case ("Job", .structure(let job)):
                    if case .uint32(let id)? = job.first { listed.job = id }
                default: break
                }
            }
            return listed
        }
    }

    struct Calls: Sendable {
        var subscribe = 0
        var alreadySubscribed = 0
        var listUnits = 0
        /// "unit interface" for each GetAll.
        var getAll: [String] = []
        /// "unit interface.property" for each Get.
        var get: [String] = []
    }

    private final class State: Sendable {
        let units: Mutex<[Unit]>
        let calls = Mutex(Calls())
        let subscribers = Mutex(Set<String>())
        /// How many of the next `ListUnitsByPatterns` calls are answered with an error.
        let failingListings = Mutex(0)
        init(units: [Unit]) { self.units = Mutex(units) }
    }

    static let unitPrefix = "/org/freedesktop/systemd1/unit"
    static let busName = "org.freedesktop.systemd1"
    static let managerPath = "/org/freedesktop/systemd1"
    static let managerInterface = "org.freedesktop.systemd1.Manager"

    let bus: SystemdBus
    private let state: State

    private init(bus: SystemdBus, state: State) {
        self.bus = bus
        self.state = state
    }

    /// Connects to `address`, exports the manager and the unit objects, and takes the name `org.freedesktop.systemd1`.
    static func start(address: String, units: [Unit]) async throws -> FakeSystemd {
        let bus = try await SystemdBus.connect(.address(address), description: "fake-systemd")
        let state = State(units: units)
        try await bus.exportObject(path: managerPath) { call, connection throws(SystemdError) in
            try Self.handleManager(call, connection, state)
        }
        try await bus.exportObject(path: unitPrefix, includingChildren: true) { call, connection throws(SystemdError) in
            try Self.handleUnit(call, connection, state)
        }
        try await bus.requestName(busName)
        return FakeSystemd(bus: bus, state: state)
    }

    var calls: Calls { state.calls.withLock { $0 } }

    /// Changes a unit as PID 1 would, without a signal (as during a reload, which announces changes with `UnitNew`).
    func update(_ name: String, _ change: (inout Unit) -> Void) {
        state.units.withLock { units in
            for index in units.indices where units[index].name == name { change(&units[index]) }
        }
    }

    /// Answers the next `count` `ListUnitsByPatterns` calls with `org.freedesktop.DBus.Error.Failed`, as PID 1 does
    /// when it cannot serve a call (e.g. out of memory).
    func failListings(_ count: Int) {
        state.failingListings.withLock { $0 = count }
    }

    func close() async {
        await bus.close()
    }

    // MARK: Signals

    /// Emits `PropertiesChanged(interface, properties, [])` on the unit's object.
    func emitPropertiesChanged(unit: String, interface: String, _ properties: [(String, BusValue)]) async throws {
        let path = try BusObjectPath.encode(prefix: Self.unitPrefix, externalID: unit).rawValue
        try await bus.emitSignal(
            path: path, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"
        ) { signal throws(SystemdError) in
            try signal.append(interface)
            try signal.append(value: .propertyMap(properties))
            try signal.append([String]())
        }
    }

    /// Emits a manager signal with the given arguments.
    func emitManagerSignal(_ member: String, _ arguments: [BusValue]) async throws {
        try await bus.emitSignal(path: Self.managerPath, interface: Self.managerInterface, member: member) {
            signal throws(SystemdError) in
            for argument in arguments { try signal.append(value: argument) }
        }
    }

    // MARK: Methods

    private static func handleManager(
        _ call: BusMessage, _ connection: BusConnection, _ state: State
    ) throws(SystemdError) -> Bool {
        if call.isMethodCall(interface: managerInterface, member: "Subscribe") {
            let sender = call.sender ?? ""
            let isNew = state.subscribers.withLock { $0.insert(sender).inserted }
            state.calls.withLock {
                $0.subscribe += 1
                if !isNew { $0.alreadySubscribed += 1 }
            }
            let reply = isNew
                ? try call.makeReturn()
                : try call.makeError(
                    name: "org.freedesktop.systemd1.AlreadySubscribed", message: "Client is already subscribed."
                )
            try connection.send(reply)
            return true
        }
        if call.isMethodCall(interface: managerInterface, member: "ListUnitsByPatterns") {
            _ = try [String](from: call)
            let patterns = try [String](from: call)
            state.calls.withLock { $0.listUnits += 1 }
            let fails = state.failingListings.withLock { remaining in
                defer { remaining = max(remaining - 1, 0) }
                return remaining > 0
            }
            if fails {
                try connection.send(try call.makeError(name: "org.freedesktop.DBus.Error.Failed", message: "Listing failed"))
                return true
            }
            let units = state.units.withLock { $0 }.filter { unit in
                patterns.isEmpty || patterns.contains { fnmatch($0, unit.name, FNM_NOESCAPE) == 0 }
            }
            let reply = try call.makeReturn()
            try reply.append(value: .array(elementSignature: "(ssssssouso)", units.map { unit in
                let listed = unit.listedState
                return .structure([
                    .string(unit.name), .string("Fake \(unit.name)"), .string(unit.loadState),
                    .string(listed.active), .string(listed.sub), .string(""), .objectPath(unit.path),
                    .uint32(listed.job), .string(listed.job == 0 ? "" : "start"),
                    .objectPath(listed.job == 0 ? "/" : "/org/freedesktop/systemd1/job/\(listed.job)"),
                ])
            }))
            try connection.send(reply)
            return true
        }
        return false
    }

    private static func handleUnit(
        _ call: BusMessage, _ connection: BusConnection, _ state: State
    ) throws(SystemdError) -> Bool {
        // As PID 1 does, a path ending in 32 hex digits names a loaded unit's current run, and never loads one.
        if let element = call.path?.split(separator: "/").last, element.count == 32, element.allSatisfy(\.isHexDigit) {
            let id = String(element)
            guard let unit = state.units.withLock({ $0.first { $0.invocationHex == id } }) else {
                try connection.send(try call.makeError(
                    name: "org.freedesktop.systemd1.NoUnitForInvocationID", message: "No unit with invocation ID \(id) known."
                ))
                return true
            }
            return try answer(call, about: unit, connection, state)
        }
        guard let name = call.path.flatMap({ BusObjectPath($0).decode(prefix: unitPrefix) }),
              let unit = state.units.withLock({ $0.first { $0.name == name } })
        else {
            try connection.send(
                try call.makeError(name: "org.freedesktop.DBus.Error.UnknownObject", message: "No such unit")
            )
            return true
        }
        return try answer(call, about: unit, connection, state)
    }

    private static func answer(
        _ call: BusMessage, about unit: Unit, _ connection: BusConnection, _ state: State
    ) throws(SystemdError) -> Bool {
        let name = unit.name
        if call.isMethodCall(interface: "org.freedesktop.DBus.Properties", member: "GetAll") {
            let interface = try call.readString()
            state.calls.withLock { $0.getAll.append("\(name) \(interface)") }
            let properties = interface == "org.freedesktop.systemd1.Unit" ? unit.unitProperties : unit.typeProperties
            let reply = try call.makeReturn()
            try reply.append(value: .propertyMap(properties))
            try connection.send(reply)
            return true
        }
        if call.isMethodCall(interface: "org.freedesktop.DBus.Properties", member: "Get") {
            let interface = try call.readString()
            let property = try call.readString()
            state.calls.withLock { $0.get.append("\(name) \(interface).\(property)") }
            let properties = interface == "org.freedesktop.systemd1.Unit" ? unit.unitProperties : unit.typeProperties
            guard let value = properties.first(where: { $0.0 == property })?.1 else {
                try connection.send(try call.makeError(
                    name: "org.freedesktop.DBus.Error.UnknownProperty", message: "Unknown property \(property)"
                ))
                return true
            }
            let reply = try call.makeReturn()
            try reply.append(value: .variant(value))
            try connection.send(reply)
            return true
        }
        return false
    }
}
