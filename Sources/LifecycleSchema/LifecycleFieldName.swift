// SPDX-License-Identifier: Apache-2.0

/// Journal field names for lifecycle data (docs/journal.md, "Fields").
///
/// journald keeps a field only if its name is made of `[A-Z0-9_]`, does not start with `_` or a digit, and has at
/// most 64 characters; it drops any other field silently and the send still succeeds. Payload keys come from outside
/// (custom event data), so each one is mapped onto a name journald keeps.
public enum LifecycleFieldName {
    /// The prefix of every lifecycle field. Starting with a letter, it also keeps names from starting with `_` (which
    /// journald reserves for trusted fields) or a digit.
    public static let prefix = "LIFECYCLE_"

    /// The longest name journald keeps (its `JOURNAL_FIELD_NAME_MAX`).
    public static let maximumLength = 64

    /// The field name for a payload key, as docs/journal.md specifies it.
    ///
    /// ASCII letters are upper-cased, digits and `_` kept, and every other character becomes `_`; the result gets the
    /// prefix `LIFECYCLE_` unless it already starts with it, and is cut to 64 characters. So
    /// `lifecycle_dayssincelaunch` becomes `LIFECYCLE_DAYSSINCELAUNCH`, `build-id` becomes `LIFECYCLE_BUILD_ID`, and
    /// `MESSAGE` becomes `LIFECYCLE_MESSAGE`, which can never replace the entry's own `MESSAGE`.
    ///
    /// "Character" means a Swift `Character` (a grapheme cluster): dictionary keys that Swift treats as equal, such
    /// as a precomposed and a decomposed `é`, then get the same name. Only ASCII is upper-cased, so the length of the
    /// name never depends on Unicode case rules (`ß` would become `SS`).
    ///
    /// Different keys can give the same name (`a-b` and `a_b`); callers that emit several keys must decide which
    /// one wins.
    ///
    /// - Parameter key: any key.
    /// - Returns: a name of 10 to 64 characters from `[A-Z0-9_]` that starts with `LIFECYCLE_`.
    public static func sanitize(_ key: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(min(key.utf8.count, maximumLength) + prefix.utf8.count)
        // Every payload key goes through here for every dispatch. For ASCII without a carriage return (CR LF is one
        // Character) each byte is one Character, so the bytes can be mapped without breaking graphemes.
        if key.utf8.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "\r") }) {
            for byte in key.utf8 { bytes.append(nameByte(byte)) }
        } else {
            for character in key { bytes.append(character.asciiValue.map(nameByte) ?? UInt8(ascii: "_")) }
        }
        if !bytes.starts(with: prefix.utf8) {
            bytes.insert(contentsOf: prefix.utf8, at: 0)
        }
        if bytes.count > maximumLength {
            bytes.removeLast(bytes.count - maximumLength)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// An ASCII byte of a key as it is in a field name.
    private static func nameByte(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - 0x20
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): byte
        default: UInt8(ascii: "_")
        }
    }
}
