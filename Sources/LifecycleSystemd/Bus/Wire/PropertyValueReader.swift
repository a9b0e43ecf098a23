// SPDX-License-Identifier: Apache-2.0

/// What reads the value of one property: a `Get` reply through sd-bus, or an entry of a `PropertiesChanged` the bus
/// relay reads in place. The properties' setters (``BusProperties``) are written once, against this.
protocol PropertyValueReader {
    mutating func variantString() throws(SystemdError) -> String
    mutating func variantUInt64() throws(SystemdError) -> UInt64
    mutating func variantUInt32() throws(SystemdError) -> UInt32
    mutating func variantInt32() throws(SystemdError) -> Int32
    mutating func variantBool() throws(SystemdError) -> Bool
    mutating func variantBytes() throws(SystemdError) -> [UInt8]
    /// `Job`, a `(uo)`: the pending job's id (0 for none).
    mutating func variantJobID() throws(SystemdError) -> UInt32
}

extension BusMessage: PropertyValueReader {
    func variantString() throws(SystemdError) -> String { try readVariant(String.self) }
    func variantUInt64() throws(SystemdError) -> UInt64 { try readVariant(UInt64.self) }
    func variantUInt32() throws(SystemdError) -> UInt32 { try readVariant(UInt32.self) }
    func variantInt32() throws(SystemdError) -> Int32 { try readVariant(Int32.self) }
    func variantBool() throws(SystemdError) -> Bool { try readVariant(Bool.self) }
    func variantBytes() throws(SystemdError) -> [UInt8] { try readVariant([UInt8].self) }

    func variantJobID() throws(SystemdError) -> UInt32 {
        try readContainer(.variant, "(uo)") { variant throws(SystemdError) in
            try variant.readContainer(.structure, "uo") { job throws(SystemdError) in
                let id = try UInt32(from: job)
                _ = try job.readObjectPath()
                return id
            }
        }
    }
}

extension WireReader: PropertyValueReader {
    mutating func variantString() throws(SystemdError) -> String {
        try enterVariant("s")
        return try string()
    }

    mutating func variantUInt64() throws(SystemdError) -> UInt64 {
        try enterVariant("t")
        return try uint64()
    }

    mutating func variantUInt32() throws(SystemdError) -> UInt32 {
        try enterVariant("u")
        return try uint32()
    }

    mutating func variantInt32() throws(SystemdError) -> Int32 {
        try enterVariant("i")
        return try int32()
    }

    mutating func variantBool() throws(SystemdError) -> Bool {
        try enterVariant("b")
        return try bool()
    }

    mutating func variantBytes() throws(SystemdError) -> [UInt8] {
        try enterVariant("ay")
        let arrayEnd = try enterArray(elementAlignment: 1)
        defer { offset = arrayEnd }
        return Array(UnsafeRawBufferPointer(rebasing: bytes[offset..<arrayEnd]))
    }

    mutating func variantJobID() throws(SystemdError) -> UInt32 {
        try enterVariant("(uo)")
        try align(8)
        let id = try uint32()
        _ = try stringBytes()
        return id
    }

    /// Reads an `a{sv}` property map, calling `body` with the index in `wanted` of each property wanted and the reader
    /// at its variant; the others are skipped (an array by its length) with no `String` made for their names. A
    /// unit's `PropertiesChanged` carries dozens of properties, of which a snapshot uses a handful. The read skips
    /// the rest of the map once every wanted property has come: PID 1 sends them in a fixed order, and those after
    /// the last wanted one are its costliest to skip (`Conditions`, `Asserts`, the `Exec*` command lines).
    mutating func readProperties(
        _ wanted: BusPropertyNames, _ body: (Int, inout WireReader) throws(SystemdError) -> Void
    ) throws(SystemdError) {
        let mapEnd = try enterArray(elementAlignment: 8)
        var unseen = wanted.all
        while offset < mapEnd {
            try align(8)
            if let index = wanted.index(of: try stringBytes()) {
                try body(index, &self)
                unseen &= ~(1 << UInt64(index))
                if unseen == 0 { break }
            } else {
                try skipVariant()
            }
        }
        guard offset <= mapEnd else { throw Self.malformed("a property map's entry past its end") }
        offset = mapEnd
    }
}
