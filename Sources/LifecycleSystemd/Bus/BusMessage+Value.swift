// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

extension BusMessage {
    /// Reads the next complete value, whatever its type, guided by `sd_bus_message_peek_type(3)`.
    ///
    /// - Throws: ``SystemdError`` with `ENXIO` at the end of the container, `EOPNOTSUPP` for a Unix fd.
    public func readValue() throws(SystemdError) -> BusValue {
        guard let (type, contents) = try peekType() else { throw Self.missing("a value") }
        switch type {
        case "y": return .byte(try UInt8(from: self))
        case "b": return .bool(try Bool(from: self))
        case "n": return .int16(try Int16(from: self))
        case "q": return .uint16(try UInt16(from: self))
        case "i": return .int32(try Int32(from: self))
        case "u": return .uint32(try UInt32(from: self))
        case "x": return .int64(try Int64(from: self))
        case "t": return .uint64(try UInt64(from: self))
        case "d": return .double(try Double(from: self))
        case "s": return .string(try readString())
        case "o": return .objectPath(try readObjectPath())
        case "g": return .signature(try readText(BusTypeCode.signature, "a signature"))
        case "a":
            let elementSignature = contents ?? ""
            if elementSignature == "y" { return .bytes(try readBytes()) }
            let items = try readArray(elementSignature) { array throws(SystemdError) in try array.readValue() }
            return .array(elementSignature: elementSignature, items)
        case "e":
            return try readContainer(.dictEntry, contents ?? "") { entry throws(SystemdError) in
                .dictEntry(try entry.readValue(), try entry.readValue())
            }
        case "r":
            return try readContainer(.structure, contents ?? "") { structure throws(SystemdError) in
                var members: [BusValue] = []
                while try !structure.isAtEndOfContainer {
                    members.append(try structure.readValue())
                }
                return .structure(members)
            }
        case "v":
            return try readContainer(.variant, contents ?? "") { variant throws(SystemdError) in
                .variant(try variant.readValue())
            }
        default:
            throw SystemdError(
                errno: EOPNOTSUPP, operation: "read a value", message: "D-Bus type '\(type)' is not supported"
            )
        }
    }

    /// Reads every remaining argument of the message (or of the current container).
    public func readValues() throws(SystemdError) -> [BusValue] {
        var values: [BusValue] = []
        while try !isAtEndOfContainer {
            values.append(try readValue())
        }
        return values
    }

    /// Appends a value of any type.
    public func append(value: BusValue) throws(SystemdError) {
        switch value {
        case .byte(let v): try v.append(to: self)
        case .bool(let v): try v.append(to: self)
        case .int16(let v): try v.append(to: self)
        case .uint16(let v): try v.append(to: self)
        case .int32(let v): try v.append(to: self)
        case .uint32(let v): try v.append(to: self)
        case .int64(let v): try v.append(to: self)
        case .uint64(let v): try v.append(to: self)
        case .double(let v): try v.append(to: self)
        case .string(let v): try v.append(to: self)
        case .objectPath(let v): try appendText(BusTypeCode.objectPath, v, "an object path")
        case .signature(let v): try appendText(BusTypeCode.signature, v, "a signature")
        case .bytes(let v): try append(bytes: v)
        case .array(let elementSignature, let items):
            try appendContainer(.array, elementSignature) { array throws(SystemdError) in
                for item in items { try array.append(value: item) }
            }
        case .dictEntry(let key, let entryValue):
            try appendContainer(.dictEntry, key.signature + entryValue.signature) { entry throws(SystemdError) in
                try entry.append(value: key)
                try entry.append(value: entryValue)
            }
        case .structure(let members):
            try appendContainer(.structure, members.map(\.signature).joined()) { structure throws(SystemdError) in
                for member in members { try structure.append(value: member) }
            }
        case .variant(let inner):
            try appendContainer(.variant, inner.signature) { variant throws(SystemdError) in
                try variant.append(value: inner)
            }
        }
    }
}
