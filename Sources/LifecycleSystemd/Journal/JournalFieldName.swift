// SPDX-License-Identifier: Apache-2.0

/// The rules for journal field names (`LifecycleFieldName` in the daemon maps payload keys onto them).
///
/// `sd_journal_sendv(3)`: "The variable name must be in uppercase and consist only of characters, numbers and
/// underscores, and may not begin with an underscore." Measured on systemd 252, journald also drops names longer
/// than 64 characters; names starting with a digit are avoided as well. journald drops a bad field silently and the
/// call still succeeds, so ``JournalSink`` refuses such names instead.
public enum JournalFieldName {
    /// The longest name journald keeps.
    public static let maximumLength = 64

    /// Whether journald keeps a field with this name: `[A-Z0-9_]`, not starting with `_` or a digit, 1 to 64
    /// characters.
    public static func isValid(_ name: String) -> Bool {
        isValid(utf8: name.utf8)
    }

    /// ``isValid(_:)`` of a name's UTF-8.
    public static func isValid(utf8 name: some Collection<UInt8>) -> Bool {
        guard let first = name.first, name.count <= maximumLength else { return false }
        guard first != UInt8(ascii: "_"), !isDigit(first) else { return false }
        return name.allSatisfy { isUpper($0) || isDigit($0) || $0 == UInt8(ascii: "_") }
    }

    private static func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
