// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Reads values of the D-Bus wire format from one message's bytes, where they lie: the bus relay's signals
/// (docs/architecture.md, "The bus relay").
///
/// Offsets count from the message's first byte, as the format's alignment does. Every read checks its bounds and
/// throws `EBADMSG` past them, so a malformed message is an error, never a read outside it. Strings are handed as C
/// strings in place: the format ends each with a NUL, which is checked.
struct WireReader {
    /// The whole message.
    let bytes: UnsafeRawBufferPointer
    /// Whether the message is big-endian (`B`); systemd sends its host's order, little-endian on most.
    let isBigEndian: Bool
    /// Where the next value starts.
    var offset: Int
    /// Where the values end (the body's end, or the header fields' end while they are read).
    var end: Int

    /// How deep variants, arrays and structures may nest (the D-Bus specification's limit is 64 for the
    /// containers of one signature, 32 for arrays and structures each).
    static let maximumDepth = 64

    // MARK: Basic values

    mutating func align(_ alignment: Int) throws(SystemdError) {
        let aligned = (offset + alignment - 1) & ~(alignment - 1)
        guard aligned <= end else { throw Self.malformed("padding past the end") }
        offset = aligned
    }

    mutating func byte() throws(SystemdError) -> UInt8 {
        guard offset < end else { throw Self.malformed("a byte past the end") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint32() throws(SystemdError) -> UInt32 {
        try align(4)
        guard end - offset >= 4 else { throw Self.malformed("a 32-bit value past the end") }
        let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        offset += 4
        return isBigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }

    mutating func uint64() throws(SystemdError) -> UInt64 {
        try align(8)
        guard end - offset >= 8 else { throw Self.malformed("a 64-bit value past the end") }
        let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        offset += 8
        return isBigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)
    }

    mutating func int32() throws(SystemdError) -> Int32 {
        Int32(bitPattern: try uint32())
    }

    mutating func bool() throws(SystemdError) -> Bool {
        switch try uint32() {
        case 0: return false
        case 1: return true
        default: throw Self.malformed("a boolean that is neither 0 nor 1")
        }
    }

    /// An `s` or `o` in place: its bytes, followed by the NUL the format puts there.
    mutating func stringBytes() throws(SystemdError) -> UnsafeRawBufferPointer {
        let length = Int(try uint32())
        return try text(length: length)
    }

    /// A `g` in place (its length is one byte).
    mutating func signature() throws(SystemdError) -> UnsafeRawBufferPointer {
        try text(length: Int(try byte()))
    }

    private mutating func text(length: Int) throws(SystemdError) -> UnsafeRawBufferPointer {
        guard length < end - offset, bytes[offset + length] == 0 else { throw Self.malformed("a string past the end") }
        defer { offset += length + 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
    }

    /// Calls `body` with an `s` or `o` as a C string where it lies.
    mutating func withCString<Result>(_ body: (UnsafePointer<CChar>) -> Result) throws(SystemdError) -> Result {
        let text = try stringBytes()
        // The format ends every string with a NUL (checked above), so the bytes are a C string as they lie.
        return body(text.baseAddress!.assumingMemoryBound(to: CChar.self))
    }

    mutating func string() throws(SystemdError) -> String {
        String(decoding: try stringBytes(), as: UTF8.self)
    }

    // MARK: Containers

    /// Enters an array: reads its length and the padding to its elements' alignment; returns where it ends.
    mutating func enterArray(elementAlignment: Int) throws(SystemdError) -> Int {
        let length = Int(try uint32())
        try align(elementAlignment)
        guard length <= end - offset else { throw Self.malformed("an array past the end") }
        return offset + length
    }

    /// Enters a variant whose contents must be `expected` (a signature of one complete type).
    mutating func enterVariant(_ expected: StaticString) throws(SystemdError) {
        let found = try signature()
        guard found.count == expected.utf8CodeUnitCount,
              memcmp(found.baseAddress!, expected.utf8Start, found.count) == 0
        else {
            throw SystemdError(
                errno: ENXIO, operation: "read a variant of type '\(expected)'",
                message: "The variant holds '\(String(decoding: found, as: UTF8.self))'"
            )
        }
    }

    // MARK: Skipping

    /// Skips a variant, whatever it holds.
    mutating func skipVariant(depth: Int = 0) throws(SystemdError) {
        guard depth < Self.maximumDepth else { throw Self.malformed("variants nested too deep") }
        let contents = try signature()
        let type = WireSignature(contents)
        let next = try skip(type, at: 0, depth: depth + 1)
        guard next == contents.count else { throw Self.malformed("a variant of more than one type") }
    }

    /// Skips one value of the complete type at `index` of `signature`; returns the index after that type.
    mutating func skip(_ signature: WireSignature, at index: Int, depth: Int) throws(SystemdError) -> Int {
        guard depth < Self.maximumDepth else { throw Self.malformed("containers nested too deep") }
        guard let code = signature[index] else { throw Self.malformed("a signature that ends early") }
        switch code {
        case UInt8(ascii: "y"):
            _ = try byte()
        case UInt8(ascii: "n"), UInt8(ascii: "q"):
            try align(2)
            guard end - offset >= 2 else { throw Self.malformed("a 16-bit value past the end") }
            offset += 2
        case UInt8(ascii: "b"), UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "h"):
            _ = try uint32()
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"):
            _ = try uint64()
        case UInt8(ascii: "s"), UInt8(ascii: "o"):
            _ = try stringBytes()
        case UInt8(ascii: "g"):
            _ = try self.signature()
        case UInt8(ascii: "v"):
            try skipVariant(depth: depth)
        case UInt8(ascii: "a"):
            // An array is skipped by its length, whatever its elements: the costliest properties (command lines,
            // conditions) are arrays.
            let element = index + 1
            let elementEnd = try signature.end(ofTypeAt: element)
            let arrayEnd = try enterArray(elementAlignment: try signature.alignment(at: element))
            offset = arrayEnd
            return elementEnd
        case UInt8(ascii: "("), UInt8(ascii: "{"):
            try align(8)
            let close = code == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: "}")
            var field = index + 1
            while signature[field] != close {
                field = try skip(signature, at: field, depth: depth + 1)
            }
            return field + 1
        default:
            throw Self.malformed("an unknown type code '\(Unicode.Scalar(code))'")
        }
        return index + 1
    }

    static func malformed(_ what: String) -> SystemdError {
        SystemdError(errno: EBADMSG, operation: "read a bus message", message: "Malformed message: \(what)")
    }
}
