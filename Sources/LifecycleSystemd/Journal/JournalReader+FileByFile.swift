// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc
import LifecycleEngine

extension JournalReader {
    /// ``forEachEntry(matching:fields:since:limit:withCursors:_:)``, the local journal read one file at a time.
    ///
    /// sd-journal, with every file open, looks for the next match in each of them and keeps what it touched mapped
    /// until the journal is closed: a slice of a long history mapped several MB more from the whole journal than from
    /// the one file that holds it (docs/PERFORMANCE.md, "What a slice's mapped pages are"). When the journal's files
    /// are one succession (``JournalFileSequence``), reading them one after the other gives the same entries in the
    /// same order; otherwise, and for another source, the journal is read whole.
    @discardableResult
    public func forEachEntryFileByFile(
        matching matches: [String], fields: [String], since: UInt64, limit: Int = .max, _ body: (JournalEntry) -> Void
    ) throws(SystemdError) -> String? {
        guard source == .local, let local = SystemJournalFiles.local else {
            return try forEachEntry(matching: matches, fields: fields, since: since, limit: limit, body)
        }
        return try forEachEntry(in: local, matching: matches, fields: fields, since: since, limit: limit, body)
    }

    /// ``forEachEntry(matching:fields:after:limit:_:)``, the local journal read one file at a time: only the files
    /// after the cursor's entry are opened, one after the other, as
    /// ``forEachEntryFileByFile(matching:fields:since:limit:_:)`` opens them, and the entry is looked for in the one
    /// file that can hold it.
    @discardableResult
    public func forEachEntryFileByFile(
        matching matches: [String], fields: [String], after cursor: String, limit: Int = .max,
        _ body: (JournalEntry) -> Void
    ) throws(SystemdError) -> (found: Bool, stoppedAt: String?) {
        guard source == .local, let local = SystemJournalFiles.local else {
            return try forEachEntry(matching: matches, fields: fields, after: cursor, limit: limit, body)
        }
        return try forEachEntry(in: local, matching: matches, fields: fields, after: cursor, limit: limit, body)
    }

    /// The entries of `local`'s files from `since`, one file after the other when they are one succession; otherwise
    /// read from ``source`` whole (`local` lists the files of ``source``).
    func forEachEntry(
        in local: SystemJournalFiles, matching matches: [String], fields: [String], since: UInt64, limit: Int,
        _ body: (JournalEntry) -> Void
    ) throws(SystemdError) -> String? {
        guard let set = LocalJournalFileSet.open(local) else {
            return try forEachEntry(matching: matches, fields: fields, since: since, limit: limit, body)
        }
        defer { set.close() }
        return try read(set.sequence.members[...], from: .since(since), matches, fields, limit, body)
    }

    /// The entries of `local`'s files after the entry at `cursor`, as
    /// ``forEachEntry(in:matching:fields:since:limit:_:)`` reads them: only the files after that entry, and the
    /// entry looked for in the one file that can hold it.
    func forEachEntry(
        in local: SystemJournalFiles, matching matches: [String], fields: [String], after cursor: String, limit: Int,
        _ body: (JournalEntry) -> Void
    ) throws(SystemdError) -> (found: Bool, stoppedAt: String?) {
        guard let number = JournalSequenceNumber(cursor: cursor), let set = LocalJournalFileSet.open(local) else {
            return try forEachEntry(matching: matches, fields: fields, after: cursor, limit: limit, body)
        }
        defer { set.close() }
        // A cursor of another sequence is placed among the files by time, not by number: the whole journal does that.
        guard set.sequence.sequenceID == number.sequenceID else {
            return try forEachEntry(matching: matches, fields: fields, after: cursor, limit: limit, body)
        }
        let found = try set.sequence.file(holding: number).map { member throws(SystemdError) in
            try Self.holds(member.file, entryAt: cursor)
        } ?? false
        let stoppedAt = try read(set.sequence.files(after: number), from: .after(cursor), matches, fields, limit, body)
        return (found, stoppedAt)
    }

    /// Where the read of a file begins.
    fileprivate enum FileStart {
        case since(UInt64)
        case after(String)
        case head

        var isTime: Bool {
            if case .since = self { return true }
            return false
        }
    }

    /// Reads `members` one after the other, from `start` in the first, up to `limit` entries in all: the cursor of
    /// the last entry when the limit stopped the read, nil when it read to the end of the last file.
    private func read(
        _ members: ArraySlice<JournalFileSequence<Int32>.Member>, from start: FileStart, _ matches: [String],
        _ fields: [String], _ limit: Int, _ body: (JournalEntry) -> Void
    ) throws(SystemdError) -> String? {
        var start = start
        var left = limit
        for member in members {
            let reopen = { () throws(SystemdError) -> OpaquePointer in
                try Self.open(descriptor: member.file, matching: matches)
            }
            var walk = Walk()
            var journal = try reopen()
            defer { close(journal, walk) }
            var skipping: String?
            switch start {
            case .since(let microseconds):
                try check(sd_journal_seek_realtime_usec(journal, microseconds), "seek the journal")
            case .after(let cursor):
                try check(cursor.withCString { sd_journal_seek_cursor(journal, $0) }, "seek the journal to \(cursor)")
                skipping = cursor
            case .head:
                try check(sd_journal_seek_head(journal), "seek the journal")
            }
            var read = 0
            let stoppedAt = try walkForward(
                &journal, reopen: reopen, fields: fields, walk: &walk, skipping: skipping, limit: left,
                withCursors: false
            ) { entry in
                read += 1
                body(entry)
            }
            if let stoppedAt { return stoppedAt }
            left -= read
            // Every entry of a later file comes after those of this one: once one was read, or the start was an
            // entry, the later files are read whole. A time that no entry of this file reaches is looked for in the next.
            if read > 0 || !start.isTime { start = .head }
        }
        return nil
    }

    /// Whether the file open at `descriptor` holds the entry at `cursor`.
    private static func holds(_ descriptor: Int32, entryAt cursor: String) throws(SystemdError) -> Bool {
        let journal = try open(descriptor: descriptor)
        defer { sd_journal_close(journal) }
        try check(cursor.withCString { sd_journal_seek_cursor(journal, $0) }, "seek the journal to \(cursor)")
        return try check(sd_journal_next(journal), "read the journal") > 0
            && cursor.withCString { sd_journal_test_cursor(journal, $0) } > 0
    }

    /// The journal file open at `descriptor` as a journal of its own, with `matches` added; the caller closes it.
    /// sd-journal opens it by `/proc/self/fd/N`, the file the descriptor holds whatever its name is now, with a
    /// descriptor of its own that it closes: `sd_journal_open_files_fd(3)` closes the descriptors it is given in some
    /// versions (systemd 252) and not in others, so the caller could not tell whether to close them.
    static func open(descriptor: Int32, matching matches: [String] = []) throws(SystemdError) -> OpaquePointer {
        var damage = JournalDamage()  // one file: it opens, or it fails
        let file = JournalReader(source: .files(["/proc/self/fd/\(descriptor)"]))
        return try file.open(matching: matches, damage: &damage)
    }
}
