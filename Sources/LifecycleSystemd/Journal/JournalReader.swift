// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc
import LifecycleEngine

/// What a read of the journal had to leave out: entries sd-journal could not step to, and journal files that could
/// not be opened (a damaged header, a file cut short). The rest was read.
public struct JournalDamage: Sendable, Equatable, CustomStringConvertible {
    /// Steps to the next (or previous) entry that failed.
    public var unreadableEntries = 0
    /// The files of a ``JournalSource/files(_:)`` source that could not be opened, with why.
    public var unreadableFiles: [(path: String, error: SystemdError)] = []
    /// The first error of an entry that could not be read.
    public var firstError: SystemdError?

    public var isEmpty: Bool { unreadableEntries == 0 && unreadableFiles.isEmpty }

    public var description: String {
        var parts: [String] = []
        if unreadableEntries > 0 {
            parts.append("\(unreadableEntries) unreadable entries skipped" + (firstError.map { " (\($0))" } ?? ""))
        }
        parts += unreadableFiles.map { "\($0.path) left out (\($0.error))" }
        return parts.joined(separator: "; ")
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.unreadableEntries == rhs.unreadableEntries && lhs.firstError == rhs.firstError
            && lhs.unreadableFiles.elementsEqual(rhs.unreadableFiles) { $0.path == $1.path && $0.error == $1.error }
    }
}

/// Reads the local system journal (what PID 1 recorded about units while lifecycled was not looking), or journal
/// files collected from other machines (``JournalSource``).
///
/// Every call opens the journal, reads and closes it, so nothing is kept between calls and any thread may use it
/// (sd-journal objects are not thread-safe, but each call has its own).
///
/// A damaged journal file does not stop a read: an entry sd-journal cannot step to is skipped, and a file of a
/// ``JournalSource/files(_:)`` source that cannot be opened is left out; each call that had to skip anything reports it
/// once to `damaged`, with the counts.
public struct JournalReader: Sendable {
    public let source: JournalSource
    /// Told once per call what that call had to leave out.
    public let damaged: @Sendable (JournalDamage) -> Void

    /// How many queries ``holdings(of:)`` answers before it closes the journal and opens it again. Each query looks
    /// its values up in the hash tables and entry arrays of every journal file, touching pages of its own (each
    /// fault maps the 64 KB around it), and sd-journal keeps them mapped while the journal is open: hundreds of
    /// queries on a large journal held 200 MB at their peak (docs/PERFORMANCE.md, "Units that never come back"), and
    /// 64 still held several MB more than 16 under a churn of 100 units a second ("Memory under name churn"). 20: a
    /// recovery's round of 16 dispatches, with its probe and the evidence asked with them, in one opening (with 16,
    /// the round's last query or two opened the whole journal again).
    static let queriesPerOpening = 20

    /// How many failed steps in a row end a read: sd-journal drops a file it cannot iterate and moves on, so a step
    /// fails again and again only when the entry it found cannot be mapped, and then the rest is out of reach.
    static let consecutiveFailureLimit = 64

    /// How many entries a forward read takes before it closes the journal and opens it again at the entry it read
    /// last. sd-journal maps the files in windows of 8 MB and keeps them mapped while the journal is open, so a read
    /// of a long history would hold every page it touched: tens of MB of resident memory (docs/PERFORMANCE.md, "A
    /// long history on day one": each entry read touches a few pages of its own, 2,000 entries held 15 MB). Opening
    /// again costs about a millisecond.
    public let entriesPerOpening: Int

    public init(
        source: JournalSource = .local, entriesPerOpening: Int = 500,
        damaged: @escaping @Sendable (JournalDamage) -> Void = { _ in }
    ) {
        self.source = source
        self.entriesPerOpening = max(1, entriesPerOpening)
        self.damaged = damaged
    }

    /// The entries matching every `match` (`FIELD=value`; matches of different fields must all hold, of one field
    /// any), oldest first, from `since` (microseconds since the epoch; nil: the oldest entry), with the values of
    /// `fields`, and with their cursors when `withCursors`.
    ///
    /// Wraps `sd_journal_open(3)`, `sd_journal_add_match(3)`, `sd_journal_seek_realtime_usec(3)`,
    /// `sd_journal_next(3)` and `sd_journal_get_data(3)`.
    public func entries(
        matching matches: [String], fields: [String], since: UInt64? = nil, withCursors: Bool = false
    ) throws(SystemdError) -> [JournalEntry] {
        var entries: [JournalEntry] = []
        try forEachEntry(matching: matches, fields: fields, since: since, withCursors: withCursors) { entries.append($0) }
        return entries
    }

    /// Calls `body` with each entry ``entries(matching:fields:since:)`` would return, oldest first, without holding
    /// them all: a long journal is read in the memory of one entry. After `limit` entries it stops, and returns the
    /// cursor of the last one, to go on from with ``forEachEntry(matching:fields:after:limit:_:)``; nil when it read
    /// to the end.
    @discardableResult
    public func forEachEntry(
        matching matches: [String], fields: [String], since: UInt64? = nil, limit: Int = .max,
        withCursors: Bool = false, _ body: (JournalEntry) -> Void
    ) throws(SystemdError) -> String? {
        var walk = Walk()
        var journal = try open(matching: matches, damage: &walk.damage)
        defer { close(journal, walk) }
        if let since {
            try check(sd_journal_seek_realtime_usec(journal, since), "seek the journal")
        }
        return try walkForward(
            &journal, reopen: reopener(matching: matches), fields: fields, walk: &walk, skipping: nil, limit: limit,
            withCursors: withCursors, body
        )
    }

    /// The entries ``forEachEntry(matching:fields:after:_:)`` gives, and whether the entry at `cursor` was found.
    public func entries(
        matching matches: [String], fields: [String], after cursor: String
    ) throws(SystemdError) -> (entries: [JournalEntry], found: Bool) {
        var entries: [JournalEntry] = []
        let found = try forEachEntry(matching: matches, fields: fields, after: cursor) { entries.append($0) }.found
        return (entries, found)
    }

    /// Calls `body` with each entry matching every `match`, oldest first, written after the entry at `cursor`
    /// (`sd_journal_seek_cursor(3)`), as ``forEachEntry(matching:fields:since:limit:_:)`` gives them, up to `limit`
    /// of them. When the journal no longer holds that entry (retention removed it), sd-journal seeks to where it would
    /// be, and `found` is false; `stoppedAt` is the cursor to go on from when the limit stopped the read.
    ///
    /// Wraps `sd_journal_seek_cursor(3)` and `sd_journal_test_cursor(3)` besides the calls above.
    @discardableResult
    public func forEachEntry(
        matching matches: [String], fields: [String], after cursor: String, limit: Int = .max,
        _ body: (JournalEntry) -> Void
    ) throws(SystemdError) -> (found: Bool, stoppedAt: String?) {
        var walk = Walk()
        var journal = try open(matching: [], damage: &walk.damage)
        defer { close(journal, walk) }
        // Whether the entry is still there: seek to it with no match, step onto it, and compare.
        try check(cursor.withCString { sd_journal_seek_cursor(journal, $0) }, "seek the journal to \(cursor)")
        let found = try check(sd_journal_next(journal), "read the journal") > 0
            && cursor.withCString { sd_journal_test_cursor(journal, $0) } > 0
        try Self.add(matches, to: journal)
        try check(cursor.withCString { sd_journal_seek_cursor(journal, $0) }, "seek the journal to \(cursor)")
        // The entry at the cursor was taken into account already.
        let stoppedAt = try walkForward(
            &journal, reopen: reopener(matching: matches), fields: fields, walk: &walk, skipping: cursor, limit: limit,
            withCursors: false, body
        )
        return (found, stoppedAt)
    }

    /// Opens ``source`` again with `matches`, for a read that closes the journal on its way
    /// (``walkForward(_:reopen:fields:walk:skipping:limit:withCursors:_:)``). The files left out were reported by the
    /// first opening.
    private func reopener(matching matches: [String]) -> () throws(SystemdError) -> OpaquePointer {
        { () throws(SystemdError) in
            var again = JournalDamage()
            return try open(matching: matches, damage: &again)
        }
    }

    /// Reads forward from where `journal` stands, calling `body` with each entry but the one at `skipping` (the
    /// first entry, when it is that one). Every ``entriesPerOpening`` entries it closes the journal and opens it again
    /// with `reopen`, at the entry read last, which the new opening then skips. After `limit` entries it stops and
    /// returns the cursor of the last one; nil when it read to the end. With `withCursors`, each entry carries its
    /// cursor.
    func walkForward(
        _ journal: inout OpaquePointer, reopen: () throws(SystemdError) -> OpaquePointer, fields: [String],
        walk: inout Walk, skipping cursor: String?, limit: Int, withCursors: Bool, _ body: (JournalEntry) -> Void
    ) throws(SystemdError) -> String? {
        var skipped = cursor
        var count = 0
        while var entry = walk.step(journal, sd_journal_next, fields: fields) {
            if let position = skipped {
                skipped = nil
                if position.withCString({ sd_journal_test_cursor(journal, $0) }) > 0 { continue }
            }
            if withCursors { entry.cursor = Self.cursor(of: journal) }
            body(entry)
            count += 1
            // Without a cursor to go on from, the read goes on instead: stopping would lose the rest.
            if count >= limit, let position = Self.cursor(of: journal) { return position }
            guard count % entriesPerOpening == 0, let position = Self.cursor(of: journal) else { continue }
            sd_journal_close(journal)
            journal = try reopen()
            try check(position.withCString { sd_journal_seek_cursor(journal, $0) }, "seek the journal to \(position)")
            skipped = position
        }
        return nil
    }

    /// The cursor of the entry `journal` stands on; nil when sd-journal cannot tell.
    static func cursor(of journal: OpaquePointer) -> String? {
        var cursor: UnsafeMutablePointer<CChar>?
        guard sd_journal_get_cursor(journal, &cursor) >= 0, let cursor else { return nil }
        defer { free(cursor) }
        return String(cString: cursor)
    }

    /// The position of the newest entry of the journal, nil when it holds none.
    ///
    /// Wraps `sd_journal_seek_tail(3)`, `sd_journal_previous(3)`, `sd_journal_get_cursor(3)`,
    /// `sd_journal_get_monotonic_usec(3)` and `sd_journal_get_realtime_usec(3)`.
    public func tail() throws(SystemdError) -> JournalPosition? {
        var walk = Walk()
        let journal = try openSource(damage: &walk.damage)
        defer { close(journal, walk) }
        try check(sd_journal_seek_tail(journal), "seek the journal")
        guard try check(sd_journal_previous(journal), "read the journal") > 0 else { return nil }
        var text: UnsafeMutablePointer<CChar>?
        try check(sd_journal_get_cursor(journal, &text), "read the journal's cursor")
        defer { free(text) }
        var monotonic: UInt64 = 0
        var boot = sd_id128_t()
        try check(sd_journal_get_monotonic_usec(journal, &monotonic, &boot), "read an entry's time")
        var realtime: UInt64 = 0
        try check(sd_journal_get_realtime_usec(journal, &realtime), "read an entry's time")
        guard let text else { return nil }
        return JournalPosition(
            cursor: String(cString: text), bootID: Self.string(boot), monotonicMicroseconds: monotonic,
            realtimeMicroseconds: realtime
        )
    }

    /// The newest entry matching every `match` for which `accept` is true, reading backwards from the newest; nil
    /// when there is none. With `withCursor`, the entry carries its cursor.
    ///
    /// Wraps `sd_journal_seek_tail(3)` and `sd_journal_previous(3)` besides the calls above.
    public func newestEntry(
        matching matches: [String],
        fields: [String],
        withCursor: Bool = false,
        where accept: (JournalEntry) -> Bool = { _ in true }
    ) throws(SystemdError) -> JournalEntry? {
        var walk = Walk()
        let journal = try open(matching: matches, damage: &walk.damage)
        defer { close(journal, walk) }
        try check(sd_journal_seek_tail(journal), "seek the journal")
        while var entry = walk.step(journal, sd_journal_previous, fields: fields) {
            guard accept(entry) else { continue }
            if withCursor { entry.cursor = Self.cursor(of: journal) }
            return entry
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
        var walk = Walk()
        let journal = try open(matching: matches, damage: &walk.damage)
        defer { close(journal, walk) }
        try check(sd_journal_seek_tail(journal), "seek the journal")
        _ = try check(sd_journal_previous(journal), "read the journal")
        while true {
            while let entry = walk.step(journal, sd_journal_next, fields: fields) {
                guard handle(entry) else { return }
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
        var walk = Walk()
        let journal = try open(matching: [], damage: &walk.damage)
        defer { close(journal, walk) }
        var results: [[JournalEntry]] = []
        results.reserveCapacity(queries.count)
        for (index, matches) in queries.enumerated() {
            try Self.add(matches, to: journal)
            try check(sd_journal_seek_tail(journal), "seek the journal")
            var entries: [JournalEntry] = []
            while let entry = walk.step(journal, sd_journal_previous, fields: fields) {
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

    /// This boot's id as the journal's `_BOOT_ID` field spells it (32 hex digits); nil when it cannot be read.
    public static var currentBootID: String? {
        var id = sd_id128_t()
        guard sd_id128_get_boot(&id) >= 0 else { return nil }
        return string(id)
    }

    /// An id128 as the journal spells it: 32 lower-case hex digits.
    static func string(_ id: sd_id128_t) -> String {
        var text = [CChar](repeating: 0, count: 33)
        return text.withUnsafeMutableBufferPointer { buffer in
            sd_id128_to_string(id, buffer.baseAddress!)
            return String(cString: buffer.baseAddress!)
        }
    }

    /// One read's walk through the journal: steps that fail are skipped and counted, not thrown.
    struct Walk {
        var damage = JournalDamage()

        /// Steps with `move` (`sd_journal_next` or `sd_journal_previous`) to the next entry it can read, and reads it;
        /// nil at the end, or when ``JournalReader/consecutiveFailureLimit`` steps in a row failed.
        mutating func step(
            _ journal: OpaquePointer, _ move: (OpaquePointer?) -> Int32, fields: [String]
        ) -> JournalEntry? {
            var failures = 0
            while failures < JournalReader.consecutiveFailureLimit {
                let moved = move(journal)
                if moved == 0 { return nil }
                if moved > 0 {
                    do {
                        return try JournalReader.entry(in: journal, fields: fields)
                    } catch {
                        note(error)
                    }
                } else {
                    note(SystemdError(errno: moved, operation: "read the journal"))
                }
                failures += 1
            }
            return nil
        }

        private mutating func note(_ error: SystemdError) {
            damage.unreadableEntries += 1
            if damage.firstError == nil { damage.firstError = error }
        }
    }

    /// Closes `journal` and reports what the read had to leave out.
    func close(_ journal: OpaquePointer, _ walk: Walk) {
        sd_journal_close(journal)
        if !walk.damage.isEmpty { damaged(walk.damage) }
    }

    /// The journal of ``source``, with `matches` added; the caller closes it. Files left out go into `damage`.
    func open(matching matches: [String], damage: inout JournalDamage) throws(SystemdError) -> OpaquePointer {
        let journal = try openSource(damage: &damage)
        do {
            try Self.add(matches, to: journal)
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
    func openSource(damage: inout JournalDamage) throws(SystemdError) -> OpaquePointer {
        var journal: OpaquePointer?
        let operation = "open the journal \(source.description)"
        switch source {
        case .local:
            try check(sd_journal_open(&journal, Int32(SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM)), "open the journal")
        case .directory(let path):
            try check(path.withCString { sd_journal_open_directory(&journal, $0, 0) }, operation)
        case .files(let paths):
            var readable = paths
            var result = Self.withCStringArray(paths) { sd_journal_open_files(&journal, $0, 0) }
            if result < 0, paths.count > 1 {
                // sd_journal_open_files fails as a whole on one damaged file: open the others without it.
                readable = []
                for path in paths {
                    var alone: OpaquePointer?
                    let opened = Self.withCStringArray([path]) { sd_journal_open_files(&alone, $0, 0) }
                    if opened >= 0, let alone {
                        sd_journal_close(alone)
                        readable.append(path)
                    } else {
                        damage.unreadableFiles.append((path, Self.openError(opened, "open the journal \(path)")))
                    }
                }
                if !readable.isEmpty {
                    result = Self.withCStringArray(readable) { sd_journal_open_files(&journal, $0, 0) }
                }
            }
            if result < 0 { throw Self.openError(result, readable.count == 1 ? "open the journal \(readable[0])" : operation) }
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

    /// sd-journal reports a file that is not a journal file by its header check's errno, whose text ("No data
    /// available", "Bad message") does not say what is wrong.
    private static func openError(_ result: Int32, _ operation: String) -> SystemdError {
        if [-ENODATA, -EBADMSG, -EPROTONOSUPPORT].contains(result) {
            return SystemdError(errno: result, operation: operation, message: "not a journal file")
        }
        return SystemdError(errno: result, operation: operation)
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

    /// Replaces the journal's matches with `matches`, which sd-journal checks in the order given: first the values
    /// many entries share, last those of one entry.
    ///
    /// sd-journal looks each field of a query up in each file's data hash table, in the order of its match list, and
    /// leaves a file at the first field the file does not hold; its list puts the field added last first. So the
    /// matches are added last to first. A look-up for a dispatch (`SYSLOG_IDENTIFIER=lifecycled` … `LIFECYCLE_TIME=`)
    /// then leaves a file without lifecycled's entries at its first field, whose bucket is the same page for every
    /// query, rather than at the value of that one dispatch, a bucket of its own (a page fault per dispatch looked
    /// for and file of PID 1's history): on a day-one history of 20,000 runs lifecycled's page faults went from
    /// 494,000 to 297,000 (docs/PERFORMANCE.md, "The day-one history of 100,000 runs, second round").
    static func add(_ matches: [String], to journal: OpaquePointer) throws(SystemdError) {
        sd_journal_flush_matches(journal)
        for match in matches.reversed() {
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
        var monotonic: UInt64 = 0
        var boot = sd_id128_t()
        _ = sd_journal_get_monotonic_usec(journal, &monotonic, &boot)
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
        return JournalEntry(realtimeMicroseconds: realtime, monotonicMicroseconds: monotonic, fields: values)
    }
}
