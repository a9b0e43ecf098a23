// SPDX-License-Identifier: Apache-2.0

import Glibc

/// One D-Bus message as it came off the socket, its header read in place: what the bus relay needs to tell whether
/// the message is one of systemd's signals it reads itself (docs/architecture.md, "The bus relay").
///
/// The layout (D-Bus specification, "Message Format"): a 16-byte fixed header (endianness, type, flags, version,
/// body length, serial, the header fields' length), the header fields as an array of `(yv)`, padding to 8, the body.
struct WireMessage {
    /// The message, exactly: ``length(ofMessageStartingWith:)`` bytes.
    let bytes: UnsafeRawBufferPointer
    let isBigEndian: Bool
    /// 1 method call, 2 method return, 3 error, 4 signal.
    let type: UInt8
    private(set) var path: UnsafeRawBufferPointer?
    private(set) var interface: UnsafeRawBufferPointer?
    private(set) var member: UnsafeRawBufferPointer?
    private(set) var signature: UnsafeRawBufferPointer?
    /// Where the body begins.
    let bodyOffset: Int

    static let signalType: UInt8 = 4

    /// The largest message the specification allows (2²⁷ bytes); a larger length is a broken stream.
    static let maximumLength = 134_217_728

    /// The whole message's length, from its first 16 bytes; nil while fewer have come.
    static func length(ofMessageStartingWith prefix: UnsafeRawBufferPointer) throws(SystemdError) -> Int? {
        guard prefix.count >= 16 else { return nil }
        let isBigEndian: Bool
        switch prefix[0] {
        case UInt8(ascii: "l"): isBigEndian = false
        case UInt8(ascii: "B"): isBigEndian = true
        default: throw WireReader.malformed("an unknown byte order '\(prefix[0])'")
        }
        guard prefix[3] == 1 else { throw WireReader.malformed("protocol version \(prefix[3])") }
        func field(_ offset: Int) -> Int {
            let raw = prefix.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return Int(isBigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw))
        }
        let bodyLength = field(4)
        let fieldsLength = field(12)
        let headerLength = (16 + fieldsLength + 7) & ~7
        guard headerLength + bodyLength <= maximumLength else {
            throw WireReader.malformed("a message of \(headerLength + bodyLength) bytes")
        }
        return headerLength + bodyLength
    }

    /// Reads the header of `bytes`, one whole message.
    init(_ bytes: UnsafeRawBufferPointer) throws(SystemdError) {
        guard let length = try Self.length(ofMessageStartingWith: bytes), length == bytes.count else {
            throw WireReader.malformed("a message whose length is not its header's")
        }
        self.bytes = bytes
        isBigEndian = bytes[0] == UInt8(ascii: "B")
        type = bytes[1]
        var fields = WireReader(bytes: bytes, isBigEndian: isBigEndian, offset: 12, end: bytes.count)
        let fieldsEnd = try fields.enterArray(elementAlignment: 8)
        fields.end = fieldsEnd
        while fields.offset < fieldsEnd {
            try fields.align(8)
            let code = try fields.byte()
            let valueType = try fields.signature()
            switch code {
            case 1: path = try Self.text(&fields, valueType, UInt8(ascii: "o"))
            case 2: interface = try Self.text(&fields, valueType, UInt8(ascii: "s"))
            case 3: member = try Self.text(&fields, valueType, UInt8(ascii: "s"))
            case 8: signature = try Self.text(&fields, valueType, UInt8(ascii: "g"))
            default:
                // Error name, reply serial, destination, sender, unix fds, and codes not known yet: skipped.
                let next = try fields.skip(WireSignature(valueType), at: 0, depth: 1)
                guard next == valueType.count else { throw WireReader.malformed("a header field of several types") }
            }
        }
        bodyOffset = (fieldsEnd + 7) & ~7
        guard bodyOffset <= bytes.count else { throw WireReader.malformed("a header past the end") }
    }

    private static func text(
        _ fields: inout WireReader, _ valueType: UnsafeRawBufferPointer, _ expected: UInt8
    ) throws(SystemdError) -> UnsafeRawBufferPointer {
        guard valueType.count == 1, valueType[0] == expected else {
            throw WireReader.malformed("a header field of the wrong type")
        }
        return expected == UInt8(ascii: "g") ? try fields.signature() : try fields.stringBytes()
    }

    /// A reader of the body, which must have the signature `expected`.
    func body(_ expected: String) throws(SystemdError) -> WireReader {
        guard Self.equal(signature, expected) else {
            throw SystemdError(
                errno: ENXIO, operation: "read a signal's body",
                message: "The body's signature is '\(signature.map { String(decoding: $0, as: UTF8.self) } ?? "")', "
                    + "not '\(expected)'"
            )
        }
        return WireReader(bytes: bytes, isBigEndian: isBigEndian, offset: bodyOffset, end: bytes.count)
    }

    /// Whether this is the signal `member` of `interface`, sent from `path` (any path when nil).
    func isSignal(_ interface: String, _ member: String, path: String? = nil) -> Bool {
        type == Self.signalType && Self.equal(self.member, member) && Self.equal(self.interface, interface)
            && (path == nil || Self.equal(self.path, path!))
    }

    /// Whether `field` is the text `expected`, compared where it lies.
    static func equal(_ field: UnsafeRawBufferPointer?, _ expected: String) -> Bool {
        guard let field, field.count == expected.utf8.count else { return false }
        return expected.utf8.withContiguousStorageIfAvailable { text in
            field.isEmpty || memcmp(field.baseAddress!, text.baseAddress!, field.count) == 0
        } ?? field.elementsEqual(expected.utf8)
    }

    /// The path as a C string in place (the format ends it with a NUL).
    func withPath<Result>(_ body: (UnsafePointer<CChar>) -> Result) -> Result? {
        guard let path else { return nil }
        return body(path.baseAddress!.assumingMemoryBound(to: CChar.self))
    }
}
