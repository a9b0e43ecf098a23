// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

extension JournalReader {
    /// How many times the local journal's files are listed again for files a rotation renamed while they were read,
    /// before the rest is read with every file open at once.
    static let uniqueValuesListings = 8

    /// Every value of `field` the journal's files hold that `keep` keeps, whatever entry holds it: sd-journal answers
    /// from each file's index of the field's values, without reading entries, and applies no match
    /// (`sd_journal_query_unique(3)`), so the set holds the values of every entry a read of the same journal can
    /// find. A file whose values cannot be read fails the call rather than leave them out. `keep` is asked as the
    /// values come, so that the set holds only those: a host's journal can name hundreds of thousands of units.
    ///
    /// The local journal and a ``JournalSource/files(_:)`` source are read one file at a time, each closed before the
    /// next: sd-journal, asked for the values of all its files at once, looks each value of every file up in every
    /// file before it, and keeps what it touched mapped until it is closed (a journal of 20 files: 70 MB resident,
    /// against 9 MB for each file alone; docs/PERFORMANCE.md, "The journal's units read file by file"). The local
    /// journal's files are listed again after they are read, and those that appeared meanwhile are read too: a
    /// rotation between the listing and the read renames `system.journal` to an archived name, under which its
    /// entries are then read (the new `system.journal` holds only entries newer than the read's start). A file gone
    /// meanwhile (vacuumed, or renamed) is skipped.
    ///
    /// Wraps `sd_journal_query_unique(3)` and `sd_journal_enumerate_unique(3)`.
    public func uniqueValues(
        of field: String, keeping keep: (String) -> Bool = { _ in true }
    ) throws(SystemdError) -> Set<String> {
        switch source {
        case .local:
            guard let files = SystemJournalFiles.local else { return try uniqueValuesAtOnce(of: field, keeping: keep) }
            return try uniqueValues(of: field, in: files, keeping: keep)
        case .files(let paths):
            return try uniqueValues(of: field, inEachOf: paths, keeping: keep, listed: false)
        case .directory:
            // sd-journal's own rules pick a directory's files (and its machines' subdirectories): read as it opens them.
            return try uniqueValuesAtOnce(of: field, keeping: keep)
        }
    }

    /// The values of `field` in the system journal's `files`, one file at a time, listed again until no file is new.
    func uniqueValues(
        of field: String, in files: SystemJournalFiles, keeping keep: (String) -> Bool
    ) throws(SystemdError) -> Set<String> {
        var values: Set<String> = []
        var read: Set<String> = []
        for _ in 0..<Self.uniqueValuesListings {
            let unread = files.paths().filter { !read.contains($0) }
            if unread.isEmpty { return values }
            read.formUnion(unread)
            values.formUnion(try uniqueValues(of: field, inEachOf: unread, keeping: keep, listed: true))
        }
        // Renamed again and again (journald rotating faster than the files are read): every file at once.
        return values.union(try uniqueValuesAtOnce(of: field, keeping: keep))
    }

    /// The values of `field` in each of `paths`, opened one at a time. A file that cannot be opened is left out and
    /// reported (``JournalDamage``), unless it was `listed` and no longer exists. Paths given, not `listed`, fail the
    /// call when none opens, as sd-journal fails to open them together.
    private func uniqueValues(
        of field: String, inEachOf paths: [String], keeping keep: (String) -> Bool, listed: Bool
    ) throws(SystemdError) -> Set<String> {
        var values: Set<String> = []
        var damage = JournalDamage()
        defer { if !damage.isEmpty { damaged(damage) } }
        var opened = 0
        for path in paths {
            let journal: OpaquePointer
            do {
                var single = JournalDamage()  // one file: it opens, or it fails
                journal = try JournalReader(source: .files([path])).openSource(damage: &single)
            } catch where listed && error.errno == ENOENT {
                continue  // vacuumed, or renamed by a rotation: a listing again finds it under its new name
            } catch {
                damage.unreadableFiles.append((path, error))
                continue
            }
            defer { sd_journal_close(journal) }
            opened += 1
            try Self.enumerateUnique(field, of: journal, keeping: keep, into: &values)
        }
        if !listed, opened == 0, let first = damage.unreadableFiles.first {
            damage = JournalDamage()
            throw first.error
        }
        return values
    }

    /// The values of `field` in every file of ``source``, opened at once.
    private func uniqueValuesAtOnce(
        of field: String, keeping keep: (String) -> Bool
    ) throws(SystemdError) -> Set<String> {
        var walk = Walk()
        let journal = try openSource(damage: &walk.damage)
        defer { close(journal, walk) }
        var values: Set<String> = []
        try Self.enumerateUnique(field, of: journal, keeping: keep, into: &values)
        return values
    }

    /// Adds the values of `field` that `keep` keeps in the files `journal` has open to `values`.
    private static func enumerateUnique(
        _ field: String, of journal: OpaquePointer, keeping keep: (String) -> Bool, into values: inout Set<String>
    ) throws(SystemdError) {
        try check(field.withCString { sd_journal_query_unique(journal, $0) }, "list the journal's values of \(field)")
        let prefix = field.utf8.count + 1  // "FIELD="
        var data: UnsafeRawPointer?
        var length = 0
        while try check(sd_journal_enumerate_unique(journal, &data, &length), "list the journal's values of \(field)") > 0 {
            guard let data, length >= prefix else { continue }
            let bytes = UnsafeRawBufferPointer(start: data + prefix, count: length - prefix)
            let value = String(decoding: bytes, as: UTF8.self)
            if keep(value) { values.insert(value) }
        }
    }
}
