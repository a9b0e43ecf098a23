// SPDX-License-Identifier: Apache-2.0

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
    /// Sets `property` from the variant `message` is at (a `Get` reply, or one entry of an `a{sv}`).
    mutating func set(_ property: Property, from message: BusMessage) throws(SystemdError)
}

extension BusProperties {
    /// The properties of a `PropertiesChanged` (an `a{sv}`), skipping those we do not use.
    init(changed message: BusMessage) throws(SystemdError) {
        self.init()
        try message.readProperties(Self.used) { index, value throws(SystemdError) in
            try set(Property.allCases[index], from: value)
        }
    }

    /// Sets one property from the variant `message` is at (a `Get` reply); ignores properties we do not use.
    mutating func set(_ name: String, from message: BusMessage) throws(SystemdError) {
        guard let property = Property(rawValue: name) else { return }
        try set(property, from: message)
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

    mutating func set(_ property: Property, from message: BusMessage) throws(SystemdError) {
        switch property {
        case .activeState: activeState = try message.readVariant(String.self)
        case .subState: subState = try message.readVariant(String.self)
        case .freezerState: freezerState = try message.readVariant(String.self)
        case .invocationID: invocationID = Self.hex(try message.readVariant([UInt8].self))
        case .stateChangeTimestamp: stateChangeTimestamp = try message.readVariant(UInt64.self)
        case .stateChangeTimestampMonotonic: stateChangeTimestampMonotonic = try message.readVariant(UInt64.self)
        case .job: jobID = try Self.readJobID(message)
        case .inactiveExitTimestampMonotonic: inactiveExitTimestampMonotonic = try message.readVariant(UInt64.self)
        case .activeEnterTimestampMonotonic: activeEnterTimestampMonotonic = try message.readVariant(UInt64.self)
        case .inactiveEnterTimestampMonotonic: inactiveEnterTimestampMonotonic = try message.readVariant(UInt64.self)
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

    mutating func set(_ property: Property, from message: BusMessage) throws(SystemdError) {
        switch property {
        case .result: result = try message.readVariant(String.self)
        case .nRestarts: nRestarts = try message.readVariant(UInt32.self)
        case .execMainCode: execMainCode = try message.readVariant(Int32.self)
        case .execMainStatus: execMainStatus = try message.readVariant(Int32.self)
        case .mainPID: mainPID = try message.readVariant(UInt32.self)
        }
    }
}
