// SPDX-License-Identifier: Apache-2.0

// Reading properties from bus messages: the driver's side. The unit source's machine takes the values parsed.

extension UnitProperties {
    /// The properties of a `.Unit` `PropertiesChanged` (an `a{sv}`), skipping those we do not use.
    init(changed message: BusMessage) throws(SystemdError) {
        self.init()
        try message.readProperties(Self.used) { name, value throws(SystemdError) in try set(name, from: value) }
    }

    /// The properties ``set(_:from:)`` takes.
    static let used = BusPropertyNames([
        "ActiveState", "SubState", "FreezerState", "InvocationID", "StateChangeTimestamp",
        "StateChangeTimestampMonotonic", "Job", "InactiveExitTimestampMonotonic", "ActiveEnterTimestampMonotonic",
        "InactiveEnterTimestampMonotonic",
    ])

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

extension TypeProperties {
    /// The properties of a type interface's `PropertiesChanged` (an `a{sv}`), skipping those we do not use.
    init(changed message: BusMessage) throws(SystemdError) {
        self.init()
        try message.readProperties(Self.used) { name, value throws(SystemdError) in try set(name, from: value) }
    }

    /// The properties ``set(_:from:)`` takes.
    static let used = BusPropertyNames(["Result", "NRestarts", "ExecMainCode", "ExecMainStatus", "MainPID"])

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
