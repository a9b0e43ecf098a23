// SPDX-License-Identifier: Apache-2.0

/// One journal entry, with the fields that were asked for: what the journal reader gives, and what the pure readers
/// of the journal's history take.
public struct JournalEntry: Sendable, Hashable {
    /// When journald received the entry, in microseconds since the epoch.
    public var realtimeMicroseconds: UInt64
    /// When journald received the entry, in microseconds of the monotonic clock of the boot it was written in
    /// (`_BOOT_ID`, when asked for among the fields).
    public var monotonicMicroseconds: UInt64
    public var fields: [String: String]
    /// The entry's cursor (`sd_journal_get_cursor(3)`), when the read was asked for it.
    public var cursor: String?

    public init(realtimeMicroseconds: UInt64, monotonicMicroseconds: UInt64, fields: [String: String], cursor: String? = nil) {
        self.realtimeMicroseconds = realtimeMicroseconds
        self.monotonicMicroseconds = monotonicMicroseconds
        self.fields = fields
        self.cursor = cursor
    }
}
