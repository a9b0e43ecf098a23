// SPDX-License-Identifier: Apache-2.0

/// Bytes as lowercase hexadecimal digits, two a byte: the form of an invocation ID, of a version's digest, and of a
/// control character's escape in JSON (`\u001f`).
public enum LowerHex {
    /// The digit of `value`, 0 to 15.
    public static func digit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// `bytes` as hexadecimal digits, the high half of each byte first, written straight into the string's storage.
    /// Every `.Unit` signal of a run carries an invocation ID: through the generic form below, which the compiler
    /// cannot specialize across modules, each cost 8,700 instructions (docs/PERFORMANCE.md, "Fewer instructions per
    /// run, sixth round").
    public static func string(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { bytes in
            String(unsafeUninitializedCapacity: 2 * bytes.count) { text in
                for (index, byte) in bytes.enumerated() {
                    text[2 * index] = digit(byte >> 4)
                    text[2 * index + 1] = digit(byte & 0x0F)
                }
                return 2 * bytes.count
            }
        }
    }

    /// `bytes` as hexadecimal digits, the high half of each byte first.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        string(Array(bytes))
    }
}
