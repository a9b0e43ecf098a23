// SPDX-License-Identifier: Apache-2.0

/// A 1-based line and column in a text, as editors show them.
struct TextPosition: Sendable, Equatable {
    var line: Int
    var column: Int

    /// The position of a byte offset. `JSONParser` counts bytes over the whole text; people and editors count
    /// characters within a line, so UTF-8 continuation bytes do not advance the column.
    init(byteOffset offset: Int, in bytes: [UInt8]) {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var column = 1
        for byte in bytes[..<end] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        self.line = line
        self.column = column
    }
}
