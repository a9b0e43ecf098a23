// SPDX-License-Identifier: Apache-2.0

/// The rules for journal field names, and a mapping of arbitrary keys onto them.
///
/// `sd_journal_sendv(3)`: "The variable name must be in uppercase and consist only of characters, numbers and
/// underscores, and may not begin with an underscore." Measured on systemd 252, journald also drops names longer
/// than 64 characters; names starting with a digit are avoided as well. journald drops a bad field silently and the
/// call still succeeds, so keys that come from outside (custom event data) must be mapped first.
public enum JournalFieldName {
    /// The longest name journald keeps.
    public static let maximumLength = 64

    /// What a key that is empty after mapping becomes, and the prefix of a key that would start with a digit.
    public static let fallback = "FIELD"

    /// Whether journald keeps a field with this name: `[A-Z0-9_]`, not starting with `_` or a digit, 1 to 64
    /// characters.
    public static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= maximumLength else { return false }
        guard first != UInt8(ascii: "_"), !isDigit(first) else { return false }
        return bytes.allSatisfy { isUpper($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    /// Maps any key to a valid field name.
    ///
    /// ASCII letters are upper-cased, digits and `_` kept, every other character (one per Unicode scalar) becomes
    /// `_`; leading underscores are dropped; a name that would start with a digit gets the prefix `FIELD_`, an empty
    /// one becomes `FIELD`; the result is cut to 64 characters. So `lifecycle_dayssincelaunch` becomes
    /// `LIFECYCLE_DAYSSINCELAUNCH` and `http.status-code` becomes `HTTP_STATUS_CODE`. Different keys can map to the
    /// same name (`a-b` and `a_b`); callers that care must check.
    public static func sanitize(_ key: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(key.utf8.count, maximumLength))
        for scalar in key.unicodeScalars {
            guard scalar.isASCII else {
                bytes.append(UInt8(ascii: "_"))
                continue
            }
            let byte = UInt8(scalar.value)
            if isLower(byte) {
                bytes.append(byte - 0x20)
            } else if isUpper(byte) || isDigit(byte) || byte == UInt8(ascii: "_") {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "_"))
            }
        }
        let trimmed = bytes.drop { $0 == UInt8(ascii: "_") }
        var name: [UInt8]
        if let first = trimmed.first {
            name = isDigit(first) ? Array((fallback + "_").utf8) + trimmed : Array(trimmed)
        } else {
            name = Array(fallback.utf8)
        }
        if name.count > maximumLength {
            name.removeLast(name.count - maximumLength)
        }
        return String(decoding: name, as: UTF8.self)
    }

    private static func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    private static func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
