// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// One journal entry, with the fields that were asked for.
public struct JournalEntry: Sendable, Hashable {
    /// When journald received the entry, in microseconds since the epoch.
    public var realtimeMicroseconds: UInt64
    public var fields: [String: String]
}

/// Reads the local system journal: what PID 1 recorded about units while lifecycled was not looking.
///
/// Every call opens the journal, reads and closes it, so nothing is kept between calls and any thread may use it
/// (sd-journal objects are not thread-safe, but each call has its own).
public struct JournalReader: Sendable {
    public init() {}

    /// The entries matching every `match` (`FIELD=value`; matches of different fields must all hold, of one field
    /// any), oldest first, with the values of `fields`.
    ///
    /// Wraps `sd_journal_open(3)`, `sd_journal_add_match(3)`, `sd_journal_next(3)` and `sd_journal_get_data(3)`.
    public func entries(matching matches: [String], fields: [String]) throws(SystemdError) -> [JournalEntry] {
        var journal: OpaquePointer?
        try check(sd_journal_open(&journal, Int32(SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM)), "open the journal")
        guard let journal else { throw SystemdError(errno: EINVAL, operation: "open the journal") }
        defer { sd_journal_close(journal) }
        for match in matches {
            try check(match.withCString { sd_journal_add_match(journal, $0, 0) }, "add the journal match \(match)")
        }
        var entries: [JournalEntry] = []
        while try check(sd_journal_next(journal), "read the journal") > 0 {
            var realtime: UInt64 = 0
            try check(sd_journal_get_realtime_usec(journal, &realtime), "read an entry's time")
            var values: [String: String] = [:]
            for field in fields {
                if let value = Self.value(of: field, in: journal) { values[field] = value }
            }
            entries.append(JournalEntry(realtimeMicroseconds: realtime, fields: values))
        }
        return entries
    }

    /// For each query (a list of `FIELD=value` matches, as in ``entries(matching:fields:)``), whether the journal holds
    /// at least one entry matching it. One open journal serves all queries, which are answered from the journal's
    /// field index, so thousands of them cost milliseconds.
    ///
    /// Wraps `sd_journal_flush_matches(3)` and `sd_journal_seek_head(3)` besides the calls above.
    public func contains(_ queries: [[String]]) throws(SystemdError) -> [Bool] {
        var journal: OpaquePointer?
        try check(sd_journal_open(&journal, Int32(SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM)), "open the journal")
        guard let journal else { throw SystemdError(errno: EINVAL, operation: "open the journal") }
        defer { sd_journal_close(journal) }
        var found: [Bool] = []
        found.reserveCapacity(queries.count)
        for matches in queries {
            sd_journal_flush_matches(journal)
            for match in matches {
                try check(match.withCString { sd_journal_add_match(journal, $0, 0) }, "add the journal match \(match)")
            }
            try check(sd_journal_seek_head(journal), "seek the journal")
            found.append(try check(sd_journal_next(journal), "read the journal") > 0)
        }
        return found
    }

    /// The value of `field` in the current entry, nil when it has none.
    private static func value(of field: String, in journal: OpaquePointer) -> String? {
        var data: UnsafeRawPointer?
        var length = 0
        guard sd_journal_get_data(journal, field, &data, &length) >= 0, let data else { return nil }
        // The data is "FIELD=value".
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        return String(decoding: bytes[(equals + 1)...], as: UTF8.self)
    }
}
