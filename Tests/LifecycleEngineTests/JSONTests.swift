// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

struct JSONTests {
    @Test("values of every type parse, and integers stay apart from booleans and doubles")
    func parsesTypes() throws {
        let value = try JSONParser.parse(#" {"a": [1, -2, 3.5, 1e3, true, false, null], "b": "x\u00e9\n\"\ud83d\ude00"} "#)
        #expect(value == .object([
            "a": .array([.int(1), .int(-2), .double(3.5), .double(1000), .bool(true), .bool(false), .null]),
            "b": .string("xé\n\"😀"),
        ]))
    }

    @Test("syntax errors name the column", arguments: [
        ("{\"a\": }", 7, "unexpected character '}'"),
        ("{\"a\": 1,}", 9, "expected a key string"),
        ("[1 2]", 4, "expected ',' or ']'"),
        ("{\"a\": 1} x", 10, "unexpected text after the JSON value"),
        ("\"abc", 5, "unterminated string"),
        ("{\"a\": 1, \"a\": 2}", 14, "duplicate key \"a\""),
        ("01", 1, "leading zero in a number"),
        ("\"\\ud800\"", 8, "unpaired surrogate"),
    ])
    func syntaxErrors(text: String, column: Int, reason: String) {
        #expect(throws: JSONSyntaxError(column: column, reason: reason)) { try JSONParser.parse(text) }
    }

    @Test("nesting deeper than the limit is refused instead of exhausting the stack")
    func depthLimit() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
    }

    @Test("the writer escapes, sorts keys and round-trips")
    func writerRoundTrip() throws {
        let value = JSONValue.object([
            "z": .array([.int(Int64.min), .int(0), .int(42), .double(0.5), .null, .bool(false)]),
            "a": .string("tab\tquote\"back\\slash\u{1}é"),
        ])
        var writer = JSONWriter()
        writer.value(value)
        #expect(writer.string == #"{"a":"tab\tquote\"back\\slash\u0001é","z":[-9223372036854775808,0,42,0.5,null,false]}"#)
        #expect(try JSONParser.parse(writer.string) == value)
    }

    @Test("every byte is escaped where it lies in a string, and the runs between escapes are copied whole")
    func escapesEveryPosition() {
        // Each byte value at each offset of strings of several lengths, against the escapes written one byte at a time.
        // The strings are scanned eight bytes at a time: the fillers are the bytes next to those that need an escape,
        // and the bytes of multi-byte characters that equal one of them but for the high bit.
        for filler in [UInt8(ascii: "a"), 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x80, 0x9F, 0xA2, 0xDC, 0xFF] {
            for length in [1, 7, 8, 9, 16, 23] {
                for offset in 0..<length {
                    for value in UInt8(0)...UInt8(0xFF) {
                        var bytes = [UInt8](repeating: filler, count: length)
                        bytes[offset] = value
                        var writer = JSONWriter()
                        bytes.withUnsafeBufferPointer { writer.string(utf8: $0) }
                        if writer.bytes != Self.quoted(bytes) {
                            Issue.record("byte \(value) at \(offset) of \(length) among \(filler): \(writer.string)")
                        }
                    }
                }
            }
        }
        // Past the few kilobytes escaped at a time: every escape where it lies, also across the pieces' bounds.
        var long: [UInt8] = []
        for index in 0..<10_000 {
            long.append(index % 7 == 0 ? 0x22 : index % 11 == 0 ? 0x01 : UInt8(0x61 + index % 26))
        }
        var longWriter = JSONWriter()
        long.withUnsafeBufferPointer { longWriter.string(utf8: $0) }
        #expect(longWriter.bytes == Self.quoted(long))
        let text = "é中\"\u{1F600}abcdefgh\\\n"
        var writer = JSONWriter()
        writer.string(text)
        #expect(writer.bytes == Self.quoted(Array(text.utf8)))
    }

    /// `bytes` quoted and escaped one at a time, as JSONWriter escapes them.
    private static func quoted(_ bytes: [UInt8]) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in bytes {
            switch byte {
            case 0x22: out += Array(#"\""#.utf8)
            case 0x5C: out += Array(#"\\"#.utf8)
            case 0x0A: out += Array(#"\n"#.utf8)
            case 0x0D: out += Array(#"\r"#.utf8)
            case 0x09: out += Array(#"\t"#.utf8)
            case ..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        return out + [UInt8(ascii: "\"")]
    }
}
