// SPDX-License-Identifier: Apache-2.0

/// Bytes as lowercase hexadecimal digits, two a byte: the form of an invocation ID, of a version's digest, and of a
/// control character's escape in JSON (`\u001f`).
public enum LowerHex {
    /// The digit of `value`, 0 to 15.
    public static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// `bytes` as hexadecimal digits, the high half of each byte first.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(2 * bytes.underestimatedCount)
        for byte in bytes {
            text.append(digit(byte >> 4))
            text.append(digit(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }
}
