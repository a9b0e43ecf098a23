// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// One journal entry, with the fields that were asked for.
public struct JournalEntry: Sendable, Hashable {
    /// When journald received the entry, in microseconds since the epoch.
    public var realtimeMicroseconds: UInt64
    public var fields: [String: String]
}

/// Reads the local system journal (what PID 1 recorded about units while lifecycled was not looking), or journal
/// files collected from other machines (``JournalSource``).
///
/// Every call opens the journal, reads and closes it, so nothing is kept between calls and any thread may use it
/// (sd-journal objects are not thread-safe, but each call has its own).
public struct JournalReader: Sendable {
    public let source: JournalSource

    public init(source: JournalSource = .local) {
        self.source = source
    }

    /// The entries matching every `match` (`FIELD=value`; matches of different fields must all hold, of one field
    /// any), oldest first, from `since` (microseconds since the epoch; nil: the oldest entry), with the values of
    /// `fields`.
    ///
    /// Wraps `sd_journal_open(3)`, `sd_journal_add_match(3)`, `sd_journal_seek_realtime_usec(3)`,
    /// `sd_journal_next(3)` and `sd_journal_get_data(3)`.
    public func entries(matching matches: [String], fields: [String], since: UInt64? = nil) throws(SystemdError) -> [JournalEntry] {
        var entries: [JournalEntry] = []
        try forEachEntry(matching: matches, fields: fields, since: since) { entries.append($0) }
        return entries
    }

    /// Calls `body` with each entry ``entries(matching:fields:since:)`` would return, oldest first, without holding
    /// them all: a long journal is read in the memory of one entry.
    public func forEachEntry(
        matching matches: [String], fields: [String], since: UInt64? = nil, _ body: (JournalEntry) -> Void
    ) throws(SystemdError) {
        let journal = try open(matching: matches)
        defer { sd_journal_close(journal) }
        if let since {
            try check(sd_journal_seek_realtime_usec(journal, since), "seek the journal")
        }
        while try check(sd_journal_next(journal), "read the journal") > 0 {
            body(try Self.entry(in: journal, fields: fields))
        }
    }

    /// The newest entry matching every `match` for which `accept` is true, reading backwards from the newest; nil
    /// when there is none.
    ///
    /// Wraps `sd_journal_seek_tail(3)` and `sd_journal_previous(3)` besides the calls above.
    public func newestEntry(
        matching matches: [String],
        fields: [String],
        where accept: (JournalEntry) -> Bool = { _ in true }
    ) throws(SystemdError) -> JournalEntry? {
        let journal = try open(matching: matches)
        defer { sd_journal_close(journal) }
        try check(sd_journal_seek_tail(journal), "seek the journal")
        while try check(sd_journal_previous(journal), "read the journal") > 0 {
            let entry = try Self.entry(in: journal, fields: fields)
            if accept(entry) { return entry }
        }
        return nil
    }

    /// Calls `handle` with each entry matching every `match` that is written from now on, oldest first, waiting for
    /// new ones, until `handle` returns false.
    ///
    /// Wraps `sd_journal_seek_tail(3)`, `sd_journal_previous(3)` (so that the next entry is the first new one) and
    /// `sd_journal_wait(3)` besides the calls above.
    public func follow(
        matching matches: [String], fields: [String], _ handle: (JournalEntry) -> Bool
    ) throws(SystemdError) {
        let journal = try open(matching: matches)
        defer { sd_journal_close(journal) }
        try check(sd_journal_seek_tail(journal), "seek the journal")
        _ = try check(sd_journal_previous(journal), "read the journal")
        while true {
            while try check(sd_journal_next(journal), "read the journal") > 0 {
                guard handle(try Self.entry(in: journal, fields: fields)) else { return }
            }
            try check(sd_journal_wait(journal, UInt64.max), "wait for the journal")
        }
    }

    /// For each query (a list of `FIELD=value` matches, as in ``entries(matching:fields:since:)``), its newest entries,
    /// newest first, for as long as `keep` accepts them (it gets the query's index and the entry); one open journal
    /// serves all queries.
    public func newestEntries(
        for queries: [[String]],
        fields: [String],
        while keep: (Int, JournalEntry) -> Bool
    ) throws(SystemdError) -> [[JournalEntry]] {
        let journal = try open(matching: [])
        defer { sd_journal_close(journal) }
        var results: [[JournalEntry]] = []
        results.reserveCapacity(queries.count)
        for (index, matches) in queries.enumerated() {
            try add(matches, to: journal)
            try check(sd_journal_seek_tail(journal), "seek the journal")
            var entries: [JournalEntry] = []
            while try check(sd_journal_previous(journal), "read the journal") > 0 {
                let entry = try Self.entry(in: journal, fields: fields)
                guard keep(index, entry) else { break }
                entries.append(entry)
            }
            results.append(entries)
        }
        return results
    }

    /// For each query (a list of `FIELD=value` matches, as in ``entries(matching:fields:)``), whether the journal holds
    /// at least one entry matching it. One open journal serves all queries, which are answered from the journal's
    /// field index, so thousands of them cost milliseconds.
    public func contains(_ queries: [[String]]) throws(SystemdError) -> [Bool] {
        try holdings(of: queries).found
    }

    /// What the journal holds: for each query, as in ``contains(_:)``, whether an entry matches it; and the time of
    /// the oldest entry it still holds (µs since the epoch, nil when it holds none), before which retention may
    /// have removed entries.
    ///
    /// Wraps `sd_journal_flush_matches(3)`, `sd_journal_seek_head(3)` and `sd_journal_get_cutoff_realtime_usec(3)`
    /// besides the calls above.
    public func holdings(of queries: [[String]]) throws(SystemdError) -> (found: [Bool], oldest: UInt64?) {
        let journal = try open(matching: [])
        defer { sd_journal_close(journal) }
        var found: [Bool] = []
        found.reserveCapacity(queries.count)
        for matches in queries {
            try add(matches, to: journal)
            try check(sd_journal_seek_head(journal), "seek the journal")
            found.append(try check(sd_journal_next(journal), "read the journal") > 0)
        }
        var oldest: UInt64 = 0
        var newest: UInt64 = 0
        let held = sd_journal_get_cutoff_realtime_usec(journal, &oldest, &newest) > 0
        return (found, held ? oldest : nil)
    }

    /// This boot's id as the journal's `_BOOT_ID` field spells it (32 hex digits); nil when it cannot be read.
    public static var currentBootID: String? {
        var id = sd_id128_t()
        guard sd_id128_get_boot(&id) >= 0 else { return nil }
        var text = [CChar](repeating: 0, count: 33)
        return text.withUnsafeMutableBufferPointer { buffer in
            sd_id128_to_string(id, buffer.baseAddress!)
            return String(cString: buffer.baseAddress!)
        }
    }

    /// The journal of ``source``, with `matches` added; the caller closes it.
    private func open(matching matches: [String]) throws(SystemdError) -> OpaquePointer {
        let journal = try openSource()
        do {
            try add(matches, to: journal)
        } catch {
            sd_journal_close(journal)
            throw error
        }
        return journal
    }

    /// Opens ``source``. sd-journal opens a directory without journal files, or one it may not read, as an empty
    /// journal; that is refused here, so that a mistyped path reads as an error rather than as "nothing happened".
    ///
    /// Wraps `sd_journal_open(3)`, `sd_journal_open_directory(3)`, `sd_journal_open_files(3)` and
    /// `sd_journal_get_usage(3)`.
    private func openSource() throws(SystemdError) -> OpaquePointer {
        var journal: OpaquePointer?
        let operation = "open the journal \(source.description)"
        switch source {
        case .local:
            try check(sd_journal_open(&journal, Int32(SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM)), "open the journal")
        case .directory(let path):
            try check(path.withCString { sd_journal_open_directory(&journal, $0, 0) }, operation)
        case .files(let paths):
            let result = Self.withCStringArray(paths) { sd_journal_open_files(&journal, $0, 0) }
            // sd-journal reports a file that is not a journal file by its header check's errno, whose text
            // ("No data available", "Bad message") does not say what is wrong.
            if [-ENODATA, -EBADMSG, -EPROTONOSUPPORT].contains(result) {
                throw SystemdError(errno: result, operation: operation, message: "not a journal file")
            }
            try check(result, operation)
        }
        guard let journal else { throw SystemdError(errno: EINVAL, operation: operation) }
        if source != .local {
            var bytes: UInt64 = 0
            if sd_journal_get_usage(journal, &bytes) < 0 || bytes == 0 {
                sd_journal_close(journal)
                throw SystemdError(errno: ENOENT, operation: operation, message: "no readable journal file")
            }
        }
        return journal
    }

    /// Calls `body` with `strings` as a NULL-terminated array of C strings, as `sd_journal_open_files(3)` takes them.
    private static func withCStringArray(
        _ strings: [String],
        _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Int32
    ) -> Int32 {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }

    /// Replaces the journal's matches with `matches`.
    private func add(_ matches: [String], to journal: OpaquePointer) throws(SystemdError) {
        sd_journal_flush_matches(journal)
        for match in matches {
            try check(match.withCString { sd_journal_add_match(journal, $0, 0) }, "add the journal match \(match)")
        }
    }

    /// The current entry, with the values of `fields` (the first of each, when a field repeats).
    ///
    /// Wraps `sd_journal_restart_data(3)` and `sd_journal_enumerate_available_data(3)`: the entry's data are walked
    /// once. `sd_journal_get_data(3)` per field would walk them once per field, and each walk decompresses the start
    /// of every compressed field (journald compresses values of 512 bytes and more, like `LIFECYCLE_PAYLOAD`) to
    /// compare its name, making a new zstd context each time: that was an eighth of lifecycled's start-up CPU.
    private static func entry(in journal: OpaquePointer, fields: [String]) throws(SystemdError) -> JournalEntry {
        var realtime: UInt64 = 0
        try check(sd_journal_get_realtime_usec(journal, &realtime), "read an entry's time")
        let names = fields.map { Array($0.utf8) }
        var values: [String: String] = [:]
        var data: UnsafeRawPointer?
        var length = 0
        sd_journal_restart_data(journal)
        while values.count < fields.count, sd_journal_enumerate_available_data(journal, &data, &length) > 0 {
            guard let data else { continue }
            // Each datum is "FIELD=value".
            let bytes = UnsafeRawBufferPointer(start: data, count: length)
            guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")),
                  let index = names.firstIndex(where: { $0.elementsEqual(bytes[..<equals]) }),
                  values[fields[index]] == nil
            else { continue }
            values[fields[index]] = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
        }
        return JournalEntry(realtimeMicroseconds: realtime, fields: values)
    }
}
