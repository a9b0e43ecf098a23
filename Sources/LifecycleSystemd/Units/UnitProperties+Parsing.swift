// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

// Reading properties from bus messages: the driver's side. The unit source's machine takes the values parsed.

/// The properties of one interface a snapshot uses, read from bus messages: from a `PropertiesChanged` map, told apart
/// by their place among ``used`` rather than by comparing their names again (four signals a run carry ten each,
/// docs/PERFORMANCE.md); from a `Get` reply, by name.
protocol BusProperties {
    associatedtype Property: CaseIterable, RawRepresentable
        where Property.RawValue == String, Property.AllCases == [Property]
    /// The names of ``Property``, in its order.
    static var used: BusPropertyNames { get }
    init()
    /// Sets `property` from the variant `reader` is at (a `Get` reply, or one entry of an `a{sv}`).
    mutating func set(_ property: Property, from reader: inout some PropertyValueReader) throws(SystemdError)
}

extension BusProperties {
    /// The properties of a `PropertiesChanged` (its `a{sv}`, where `reader` is), skipping those we do not use.
    init(changed reader: inout WireReader) throws(SystemdError) {
        self.init()
        try reader.readProperties(Self.used) { index, value throws(SystemdError) in
            try set(Property.allCases[index], from: &value)
        }
    }

    /// Sets one property from the variant `message` is at (a `Get` reply); ignores properties we do not use.
    mutating func set(_ name: String, from message: BusMessage) throws(SystemdError) {
        guard let property = Property(rawValue: name) else { return }
        var reader = message
        try set(property, from: &reader)
    }
}

extension UnitProperties: BusProperties {
    static let used = BusPropertyNames(Property.allCases.map(\.rawValue))

    /// An `org.freedesktop.systemd1.Unit` property the snapshots use, by its D-Bus name.
    enum Property: String, CaseIterable {
        case activeState = "ActiveState"
        case subState = "SubState"
        case freezerState = "FreezerState"
        case invocationID = "InvocationID"
        case stateChangeTimestamp = "StateChangeTimestamp"
        case stateChangeTimestampMonotonic = "StateChangeTimestampMonotonic"
        case job = "Job"
        case inactiveExitTimestampMonotonic = "InactiveExitTimestampMonotonic"
        case activeEnterTimestampMonotonic = "ActiveEnterTimestampMonotonic"
        case inactiveEnterTimestampMonotonic = "InactiveEnterTimestampMonotonic"
    }

    mutating func set(_ property: Property, from reader: inout some PropertyValueReader) throws(SystemdError) {
        switch property {
        case .activeState: activeState = try reader.variantString()
        case .subState: subState = try reader.variantString()
        case .freezerState: freezerState = try reader.variantString()
        case .invocationID: invocationID = Self.hex(try reader.variantBytes())
        case .stateChangeTimestamp: stateChangeTimestamp = try reader.variantUInt64()
        case .stateChangeTimestampMonotonic: stateChangeTimestampMonotonic = try reader.variantUInt64()
        case .job: jobID = try reader.variantJobID()
        case .inactiveExitTimestampMonotonic: inactiveExitTimestampMonotonic = try reader.variantUInt64()
        case .activeEnterTimestampMonotonic: activeEnterTimestampMonotonic = try reader.variantUInt64()
        case .inactiveEnterTimestampMonotonic: inactiveEnterTimestampMonotonic = try reader.variantUInt64()
        }
    }

    /// A 128-bit id (`InvocationID` is an `ay` of 16 bytes) as 32 lower-case hex digits, the form journald uses for
    /// `INVOCATION_ID=`; an empty array (never ran) gives "".
    static func hex(_ bytes: [UInt8]) -> String {
        LowerHex.string(bytes)
    }
}

extension TypeProperties: BusProperties {
    static let used = BusPropertyNames(Property.allCases.map(\.rawValue))

    /// A type interface's property the snapshots use, by its D-Bus name.
    enum Property: String, CaseIterable {
        case result = "Result"
        case nRestarts = "NRestarts"
        case execMainCode = "ExecMainCode"
        case execMainStatus = "ExecMainStatus"
        case mainPID = "MainPID"
    }

    mutating func set(_ property: Property, from reader: inout some PropertyValueReader) throws(SystemdError) {
        switch property {
        case .result: result = try reader.variantString()
        case .nRestarts: nRestarts = try reader.variantUInt32()
        case .execMainCode: execMainCode = try reader.variantInt32()
        case .execMainStatus: execMainStatus = try reader.variantInt32()
        case .mainPID: mainPID = try reader.variantUInt32()
        }
    }
}
