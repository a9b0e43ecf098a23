// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// D-Bus type codes as sd-bus takes them (`char`). sd-bus declares them in an anonymous enum, imported as `Int`.
enum BusTypeCode {
    static let byte = code(SD_BUS_TYPE_BYTE)
    static let boolean = code(SD_BUS_TYPE_BOOLEAN)
    static let int16 = code(SD_BUS_TYPE_INT16)
    static let uint16 = code(SD_BUS_TYPE_UINT16)
    static let int32 = code(SD_BUS_TYPE_INT32)
    static let uint32 = code(SD_BUS_TYPE_UINT32)
    static let int64 = code(SD_BUS_TYPE_INT64)
    static let uint64 = code(SD_BUS_TYPE_UINT64)
    static let double = code(SD_BUS_TYPE_DOUBLE)
    static let string = code(SD_BUS_TYPE_STRING)
    static let objectPath = code(SD_BUS_TYPE_OBJECT_PATH)
    static let signature = code(SD_BUS_TYPE_SIGNATURE)
    static let unixFD = code(SD_BUS_TYPE_UNIX_FD)
    static let array = code(SD_BUS_TYPE_ARRAY)
    static let variant = code(SD_BUS_TYPE_VARIANT)
    static let structure = code(SD_BUS_TYPE_STRUCT)
    static let dictEntry = code(SD_BUS_TYPE_DICT_ENTRY)

    private static func code(_ value: Int) -> CChar { CChar(truncatingIfNeeded: value) }
}

/// The D-Bus container kinds.
public enum BusContainer: Sendable {
    case array, structure, variant, dictEntry

    var typeCode: CChar {
        switch self {
        case .array: BusTypeCode.array
        case .structure: BusTypeCode.structure
        case .variant: BusTypeCode.variant
        case .dictEntry: BusTypeCode.dictEntry
        }
    }
}

extension BusMessage {
    /// Reads a fixed-size basic value (`y b n q i u x t d`) into `value`.
    ///
    /// Wraps `sd_bus_message_read_basic(3)`. A return of 0 means the container ended where a value was expected.
    func readFixed<T: BitwiseCopyable>(_ type: CChar, _ value: inout T, _ what: String) throws(SystemdError) {
        let r = withUnsafeMutableBytes(of: &value) { sd_bus_message_read_basic(pointer, type, $0.baseAddress) }
        try check(r, "read \(what)")
        guard r > 0 else { throw Self.missing(what) }
    }

    /// Reads a string-like basic value (`s`, `o` or `g`).
    ///
    /// Wraps `sd_bus_message_read_basic(3)`; the string is copied before the message can go away.
    func readText(_ type: CChar, _ what: String) throws(SystemdError) -> String {
        var text: UnsafePointer<CChar>?
        let r = sd_bus_message_read_basic(pointer, type, &text)
        try check(r, "read \(what)")
        guard r > 0, let text else { throw Self.missing(what) }
        return String(cString: text)
    }

    static func missing(_ what: String) -> SystemdError {
        SystemdError(errno: ENXIO, operation: "read \(what)", message: "The message has no more values here")
    }

    static func badSignature(_ what: String, expected: String, found: String?) -> SystemdError {
        SystemdError(
            errno: EBADMSG, operation: "read \(what)",
            message: "Expected signature '\(expected)', found '\(found ?? "nothing")'"
        )
    }

    /// Reads an `s` and hands it to `body` where it lies in the message, without copying it into a `String`.
    func withString<Result>(_ body: (UnsafePointer<CChar>) -> Result) throws(SystemdError) -> Result {
        var text: UnsafePointer<CChar>?
        let r = sd_bus_message_read_basic(pointer, BusTypeCode.string, &text)
        try check(r, "read a string")
        guard r > 0, let text else { throw Self.missing("a string") }
        return body(text)
    }

    /// Reads an `s`.
    public func readString() throws(SystemdError) -> String {
        try readText(BusTypeCode.string, "a string")
    }

    /// Reads an `o`.
    public func readObjectPath() throws(SystemdError) -> String {
        try readText(BusTypeCode.objectPath, "an object path")
    }

    /// Reads an `ay` in one go.
    ///
    /// Wraps `sd_bus_message_read_array(3)`.
    public func readBytes() throws(SystemdError) -> [UInt8] {
        var data: UnsafeRawPointer?
        var size = 0
        try check(sd_bus_message_read_array(pointer, BusTypeCode.byte, &data, &size), "read a byte array")
        guard let data, size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// Reads an `as` in one go.
    ///
    /// Wraps `sd_bus_message_read_strv(3)` and frees what it allocates.
    public func readStrings() throws(SystemdError) -> [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        try check(sd_bus_message_read_strv(pointer, &list), "read a string array")
        guard let list else { return [] }
        defer { free(list) }
        var strings: [String] = []
        var index = 0
        while let item = list[index] {
            strings.append(String(cString: item))
            free(item)
            index += 1
        }
        return strings
    }

    /// The type code and, for containers, the contents signature of the next value; nil at the end of a container.
    ///
    /// Wraps `sd_bus_message_peek_type(3)`.
    public func peekType() throws(SystemdError) -> (type: Character, contents: String?)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let r = try check(sd_bus_message_peek_type(pointer, &type, &contents), "peek at the next value")
        guard r > 0 else { return nil }
        return (Character(Unicode.Scalar(UInt8(bitPattern: type))), contents.map { String(cString: $0) })
    }

    /// Whether the current container (or the body) has been read completely.
    ///
    /// Wraps `sd_bus_message_at_end(3)`.
    public var isAtEndOfContainer: Bool {
        get throws(SystemdError) {
            try check(sd_bus_message_at_end(pointer, 0), "check for the end of a container") > 0
        }
    }

    /// Skips values of the given signature without decoding them.
    ///
    /// Wraps `sd_bus_message_skip(3)`.
    public func skip(_ signature: String) throws(SystemdError) {
        // withCString, not the implicit conversion: that copies a short (inline) string to the heap on every call.
        let r = signature.withCString { sd_bus_message_skip(pointer, $0) }
        try check(r, "skip a value of type '\(signature)'")
    }

    /// Enters a container. Returns false, without entering, when an array ends where the container was expected.
    ///
    /// Wraps `sd_bus_message_enter_container(3)`.
    public func enterContainer(_ container: BusContainer, _ contents: String) throws(SystemdError) -> Bool {
        let r = contents.withCString { sd_bus_message_enter_container(pointer, container.typeCode, $0) }
        return try check(r, "enter a container of type '\(contents)'") > 0
    }

    /// Leaves the container entered last; it must have been read completely.
    ///
    /// Wraps `sd_bus_message_exit_container(3)`.
    public func exitContainer() throws(SystemdError) {
        try check(sd_bus_message_exit_container(pointer), "leave a container")
    }

    /// Reads one container with `body`, which must read all of it.
    public func readContainer<T>(
        _ container: BusContainer,
        _ contents: String,
        _ body: (BusMessage) throws(SystemdError) -> T
    ) throws(SystemdError) -> T {
        guard try enterContainer(container, contents) else { throw Self.missing("a container of type '\(contents)'") }
        let value = try body(self)
        try exitContainer()
        return value
    }

    /// Reads an array whose elements have signature `elementSignature`, calling `element` once per element.
    public func readArray<T>(
        _ elementSignature: String,
        _ element: (BusMessage) throws(SystemdError) -> T
    ) throws(SystemdError) -> [T] {
        guard try enterContainer(.array, elementSignature) else {
            throw Self.missing("an array of '\(elementSignature)'")
        }
        var items: [T] = []
        while try !isAtEndOfContainer {
            items.append(try element(self))
        }
        try exitContainer()
        return items
    }

    /// Reads a variant that must hold a `T`.
    ///
    /// - Throws: ``SystemdError`` with `EBADMSG` if the variant holds another type.
    public func readVariant<T: BusRepresentable>(_ type: T.Type) throws(SystemdError) -> T {
        // Entered with the signature expected, not peeked at first: sd-bus refuses a variant that holds another type
        // (-ENXIO) without moving, and only then is it peeked at, for the error. A signal's properties are read so.
        let r = T.busSignature.withCString { sd_bus_message_enter_container(pointer, BusTypeCode.variant, $0) }
        if r > 0 {
            let value = try T(from: self)
            try exitContainer()
            return value
        }
        if r < 0, r != -ENXIO { try check(r, "enter a variant of type '\(T.busSignature)'") }
        let next = try peekType()
        throw Self.badSignature("a variant", expected: T.busSignature, found: next?.contents)
    }
}
