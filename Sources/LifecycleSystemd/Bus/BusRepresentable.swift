// SPDX-License-Identifier: Apache-2.0

/// A Swift type with a fixed D-Bus signature, read and written without any runtime type sniffing.
///
/// The signature comes from the static type, so `Int32` is always `i` and `Bool` always `b`; nothing guesses a
/// D-Bus type from a value at run time.
public protocol BusRepresentable {
    /// The D-Bus signature of one value, e.g. `u`, `as`, `a{sv}`.
    static var busSignature: String { get }
    /// Reads one value from the message's current position.
    init(from message: BusMessage) throws(SystemdError)
    /// Appends this value to the message.
    func append(to message: BusMessage) throws(SystemdError)
}

extension UInt8: BusRepresentable {
    public static var busSignature: String { "y" }
    public init(from message: BusMessage) throws(SystemdError) {
        self = 0
        try message.readFixed(BusTypeCode.byte, &self, "a byte")
    }
    public func append(to message: BusMessage) throws(SystemdError) {
        try message.appendFixed(BusTypeCode.byte, self, "a byte")
    }
}

extension Bool: BusRepresentable {
    public static var busSignature: String { "b" }
    public init(from message: BusMessage) throws(SystemdError) {
        // A D-Bus boolean travels as a 32-bit int; reading it into a 1-byte Bool would corrupt memory.
        var raw: Int32 = 0
        try message.readFixed(BusTypeCode.boolean, &raw, "a boolean")
        self = raw != 0
    }
    public func append(to message: BusMessage) throws(SystemdError) {
        try message.appendFixed(BusTypeCode.boolean, Int32(self ? 1 : 0), "a boolean")
    }
}

extension Int16: BusRepresentable {
    public static var busSignature: String { "n" }
    public init(from message: BusMessage) throws(SystemdError) {
        self = 0
        try message.readFixed(BusTypeCode.int16, &self, "an int16")
    }
    public func append(to message: BusMessage) throws(SystemdError) {
        try message.appendFixed(BusTypeCode.int16, self, "an int16")
    }
}

extension UInt16: BusRepresentable {
    public static var busSignature: String { "q" }
    public init(from message: BusMessage) throws(SystemdError) {
        self = 0
        try message.readFixed(BusTypeCode.uint16, &self, "a uint16")
    }
    public func append(to message: BusMessage) throws(SystemdError) {
        try message.appendFixed(BusTypeCode.uint16, self, "a uint16")
    }
}

extension Int32: BusRepresentable {
    public static var busSignature: String { "i" }
    public init(from message: BusMessage) throws(SystemdError) {
        self = 0
        try message.readFixed(BusTypeCode.int32, &self, "an int32")
    }
    public func append(to message: BusMessage) throws(SystemdError) {
        try message.appendFixed(BusTypeCode.int32, self, "an int32")
    }
}

extension UInt32: BusRepresentable {
    public static var busSignature: String { "u" }
    public init(from message: BusMessage) throws(SystemdError) {
        self = 0
        try message.readFixed(BusTypeCode.uint32, &self, "a uint32")
    }
    public func append(to message: BusMessage) throws(SystemdError) {
        try message.appendFixed(BusTypeCode.uint32, self, "a uint32")
    }
}

extension Int64: BusRepresentable {
    public static var busSignature: String { "x" }
    public init(from message: BusMessage) throws(SystemdError) {
        self = 0
        try message.readFixed(BusTypeCode.int64, &self, "an int64")
    }
    public func append(to message: BusMessage) throws(SystemdError) {
        try message.appendFixed(BusTypeCode.int64, self, "an int64")
    }
}

extension UInt64: BusRepresentable {
    public static var busSignature: String { "t" }
    public init(from message: BusMessage) throws(SystemdError) {
        self = 0
        try message.readFixed(BusTypeCode.uint64, &self, "a uint64")
    }
    public func append(to message: BusMessage) throws(SystemdError) {
        try message.appendFixed(BusTypeCode.uint64, self, "a uint64")
    }
}

extension Double: BusRepresentable {
    public static var busSignature: String { "d" }
    public init(from message: BusMessage) throws(SystemdError) {
        self = 0
        try message.readFixed(BusTypeCode.double, &self, "a double")
    }
    public func append(to message: BusMessage) throws(SystemdError) {
        try message.appendFixed(BusTypeCode.double, self, "a double")
    }
}

extension String: BusRepresentable {
    public static var busSignature: String { "s" }
    public init(from message: BusMessage) throws(SystemdError) {
        self = try message.readString()
    }
    public func append(to message: BusMessage) throws(SystemdError) {
        try message.appendText(BusTypeCode.string, self, "a string")
    }
}

extension Array: BusRepresentable where Element: BusRepresentable {
    public static var busSignature: String { "a" + Element.busSignature }

    public init(from message: BusMessage) throws(SystemdError) {
        // `ay` and `as` have one-call readers; everything else goes element by element.
        if Element.self == UInt8.self, let bytes = try message.readBytes() as? [Element] {
            self = bytes
        } else if Element.self == String.self, let strings = try message.readStrings() as? [Element] {
            self = strings
        } else {
            self = try message.readArray(Element.busSignature) { element throws(SystemdError) in
                try Element(from: element)
            }
        }
    }

    public func append(to message: BusMessage) throws(SystemdError) {
        // Check the element type, not `self as? [UInt8]`: an empty array of any type casts to [UInt8].
        if Element.self == UInt8.self, let bytes = self as? [UInt8] {
            try message.append(bytes: bytes)
            return
        }
        try message.appendContainer(.array, Element.busSignature) { array throws(SystemdError) in
            for element in self {
                try element.append(to: array)
            }
        }
    }
}

/// A dictionary is an array of dict entries, `a{KV}`; D-Bus requires the key to be a basic type.
extension Dictionary: BusRepresentable where Key: BusRepresentable, Value: BusRepresentable {
    public static var busSignature: String { "a{" + Key.busSignature + Value.busSignature + "}" }

    public init(from message: BusMessage) throws(SystemdError) {
        let entrySignature = Key.busSignature + Value.busSignature
        let pairs = try message.readArray("{" + entrySignature + "}") { array throws(SystemdError) in
            try array.readContainer(.dictEntry, entrySignature) { entry throws(SystemdError) in
                (try Key(from: entry), try Value(from: entry))
            }
        }
        self = Dictionary(pairs, uniquingKeysWith: { _, last in last })
    }

    public func append(to message: BusMessage) throws(SystemdError) {
        let entrySignature = Key.busSignature + Value.busSignature
        try message.appendContainer(.array, "{" + entrySignature + "}") { array throws(SystemdError) in
            for (key, value) in self {
                try array.appendContainer(.dictEntry, entrySignature) { entry throws(SystemdError) in
                    try key.append(to: entry)
                    try value.append(to: entry)
                }
            }
        }
    }
}
