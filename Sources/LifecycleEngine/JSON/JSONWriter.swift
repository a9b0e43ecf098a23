// SPDX-License-Identifier: Apache-2.0

/// Writes compact JSON into a byte buffer. Object keys are written in sorted order, so output is deterministic.
public struct JSONWriter: Sendable {
    public internal(set) var bytes: [UInt8] = []

    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    public mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public mutating func byte(_ byte: UInt8) { bytes.append(byte) }

    /// Appends JSON written before, as it is.
    public mutating func append(json: [UInt8]) { bytes.append(contentsOf: json) }

    /// Appends JSON written before, as it is.
    public mutating func append(json: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: json) }

    /// Appends `byte` `count` times.
    public mutating func repeating(_ byte: UInt8, count: Int) {
        bytes.append(contentsOf: repeatElement(byte, count: count))
    }

    /// Appends a line break and `count` spaces (pretty-printed JSON's indentation), copied in one piece: a state file
    /// breaks a line about a hundred times.
    public mutating func lineBreak(indent count: Int) {
        guard count < Self.lineBreakAndSpaces.count else {
            byte(UInt8(ascii: "\n"))
            repeating(UInt8(ascii: " "), count: count)
            return
        }
        Self.lineBreakAndSpaces.withUnsafeBufferPointer {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[...count]))
        }
    }

    private static let lineBreakAndSpaces: [UInt8] =
        [UInt8(ascii: "\n")] + Array(repeating: UInt8(ascii: " "), count: 64)

    public mutating func integer(_ value: Int64) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                      UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
        }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        withUnsafeBytes(of: &digits) { bytes.append(contentsOf: $0[(20 - count)...]) }
    }

    /// Appends an unsigned integer (a sequence number).
    public mutating func unsigned(_ value: UInt64) {
        if let signed = Int64(exactly: value) {
            integer(signed)
        } else {
            bytes.append(contentsOf: value.description.utf8)
        }
    }

    /// Writes a quoted, escaped string.
    public mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string(utf8: $0) }
    }

    /// Writes valid UTF-8 as a quoted, escaped string.
    public mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        var start = Self.firstToEscape(in: utf8, from: 0)
        if start > 0 { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[..<start])) }
        if start < utf8.count {
            // A payload has a quote every few bytes: it is escaped into a buffer of its own and appended a few
            // kilobytes at a time; an array's append for each run and each escape cost more than the escaping
            // (docs/PERFORMANCE.md, "Fewer instructions per run, fifth round").
            let pieceLength = Swift.min(utf8.count - start, 4_096)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.escapedCapacity(pieceLength)) { buffer in
                while start < utf8.count {
                    let end = Swift.min(start + pieceLength, utf8.count)
                    let piece = UnsafeBufferPointer(rebasing: utf8[start..<end])
                    let count = Self.writeEscaped(piece, to: buffer.baseAddress!)
                    bytes.append(contentsOf: UnsafeBufferPointer(start: buffer.baseAddress, count: count))
                    start = end
                }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The most bytes `count` bytes of a string take escaped (six for a control character).
    public static func escapedCapacity(_ count: Int) -> Int { 6 * count }

    /// Writes valid UTF-8 escaped, without quotes, at `destination`, which has room for ``escapedCapacity(_:)`` bytes;
    /// returns how many bytes it wrote. Runs that need no escape are copied whole; most strings are one run.
    public static func writeEscaped(
        _ utf8: UnsafeBufferPointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>
    ) -> Int {
        guard let base = utf8.baseAddress else { return 0 }
        var out = destination
        var runStart = 0
        while true {
            let offset = firstToEscape(in: utf8, from: runStart)
            out.initialize(from: base + runStart, count: offset - runStart)
            out += offset - runStart
            guard offset < utf8.count else { return out - destination }
            out += escape(utf8[offset], to: out)
            runStart = offset + 1
        }
    }

    /// The index of the first byte at or after `start` that needs an escape (a control character, `"` or `\`), or
    /// `utf8.count`. Eight bytes are looked at a time, as one word: a dispatch's entry escapes its payload, a kilobyte
    /// of JSON, and a byte at a time that was a twentieth of a churn run's instructions (docs/PERFORMANCE.md).
    private static func firstToEscape(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var offset = start
        if let base = UnsafeRawPointer(utf8.baseAddress) {
            while offset + 8 <= utf8.count {
                let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if Self.mayNeedEscape(word) { break }
                offset += 8
            }
        }
        while offset < utf8.count {
            let byte = utf8[offset]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C { return offset }
            offset += 1
        }
        return offset
    }

    /// Whether one of the eight bytes of `word` is below 0x20, `"` or `\` (the bit tricks of "Bit Twiddling Hacks",
    /// "determine if a word has a byte less than n" and "… equal to n"): true exactly for such a word.
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let below = (word &- ones &* 0x20) & ~word & highBits
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let equal = ((quote &- ones) & ~quote | (backslash &- ones) & ~backslash) & highBits
        return below | equal != 0
    }

    /// Writes the escape of `byte` at `destination`; returns its length.
    private static func escape(_ byte: UInt8, to destination: UnsafeMutablePointer<UInt8>) -> Int {
        destination[0] = UInt8(ascii: "\\")
        switch byte {
        case 0x22, 0x5C: destination[1] = byte
        case 0x0A: destination[1] = UInt8(ascii: "n")
        case 0x0D: destination[1] = UInt8(ascii: "r")
        case 0x09: destination[1] = UInt8(ascii: "t")
        default:
            destination[1] = UInt8(ascii: "u")
            destination[2] = UInt8(ascii: "0")
            destination[3] = UInt8(ascii: "0")
            destination[4] = LowerHex.digit(byte >> 4)
            destination[5] = LowerHex.digit(byte & 0x0F)
            return 6
        }
        return 2
    }

    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): b ? raw("true") : raw("false")
        case .int(let i): integer(i)
        case .double(let d): bytes.append(contentsOf: String(d).utf8)
        case .string(let s): string(s)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                self.value(item)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for (i, key) in object.keys.sorted().enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                string(key)
                bytes.append(UInt8(ascii: ":"))
                self.value(object[key]!)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}
