// SPDX-License-Identifier: Apache-2.0

/// Any D-Bus value, for data whose type is only known at run time: the contents of a variant, a property map, or a
/// message read without knowing its signature.
///
/// `ay` is read as ``bytes(_:)``, never as an ``array(elementSignature:_:)`` of ``byte(_:)``. Unix file descriptors
/// (`h`) are not supported.
public indirect enum BusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `ay`.
    case bytes([UInt8])
    /// An array; the element signature is kept so an empty array still has a type.
    case array(elementSignature: String, [BusValue])
    /// A dict entry, only valid as the element of an array: `a{sv}` is an array of `.dictEntry(.string, .variant)`.
    case dictEntry(BusValue, BusValue)
    case structure([BusValue])
    case variant(BusValue)

    /// The D-Bus signature of this value.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .bytes: "ay"
        case .array(let elementSignature, _): "a" + elementSignature
        case .dictEntry(let key, let value): "{" + key.signature + value.signature + "}"
        case .structure(let members): "(" + members.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// An `a{sv}` built from `(name, value)` pairs, in order.
    public static func propertyMap(_ properties: [(String, BusValue)]) -> BusValue {
        .array(elementSignature: "{sv}", properties.map { .dictEntry(.string($0.0), .variant($0.1)) })
    }

    /// An `as`.
    public static func strings(_ strings: [String]) -> BusValue {
        .array(elementSignature: "s", strings.map { .string($0) })
    }

    /// The string of an `s`, `o` or `g`, looking through variants.
    public var stringValue: String? {
        switch self {
        case .string(let text), .objectPath(let text), .signature(let text): text
        case .variant(let inner): inner.stringValue
        default: nil
        }
    }

    /// The elements of an array, looking through variants.
    public var arrayValue: [BusValue]? {
        switch self {
        case .array(_, let items): items
        case .bytes(let bytes): bytes.map { .byte($0) }
        case .variant(let inner): inner.arrayValue
        default: nil
        }
    }
}

/// A `v`: a value that carries its own signature.
public struct BusVariant: BusRepresentable, Sendable, Hashable {
    /// The value inside the variant.
    public var value: BusValue

    public init(_ value: BusValue) {
        self.value = value
    }

    public static var busSignature: String { "v" }

    public init(from message: BusMessage) throws(SystemdError) {
        guard case .variant(let inner) = try message.readValue() else {
            throw BusMessage.badSignature("a variant", expected: "v", found: nil)
        }
        value = inner
    }

    public func append(to message: BusMessage) throws(SystemdError) {
        try message.append(value: .variant(value))
    }
}

/// An `o`, distinct from a string so signatures come out right.
public struct BusObjectPath: BusRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The path, e.g. `/org/freedesktop/systemd1/unit/nginx_2eservice`.
    public var rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    public static var busSignature: String { "o" }

    public init(from message: BusMessage) throws(SystemdError) {
        rawValue = try message.readObjectPath()
    }

    public func append(to message: BusMessage) throws(SystemdError) {
        try message.appendText(BusTypeCode.objectPath, rawValue, "an object path")
    }
}
