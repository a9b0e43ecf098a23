// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc
import LifecycleEngine

/// An entry looked for among the newest entries matching ``walked``: found when one of them holds every
/// `FIELD=value` of ``held``. Queries that share ``walked`` are answered by one read back from the journal's tail.
public struct RecentEntryQuery: Sendable, Equatable {
    /// The matches the entry shares with others (as in ``JournalReader/entries(matching:fields:since:withCursors:)``).
    public var walked: [String]
    /// What sets the entry apart (`FIELD=value`), compared with what it holds.
    public var held: [String]

    public init(walked: [String], held: [String]) {
        self.walked = walked
        self.held = held
    }

    /// The same entry as one query of ``JournalReader/holdings(of:recent:)``.
    public var matches: [String] { walked + held }
}

/// A journal a look opened, kept open for the looks that follow
/// (``JournalReader/holdings(of:recent:newestFiles:keeping:)``): opening the journal maps every file's header, hash
/// tables and entry arrays afresh. It sees the files that were there when it was opened, not those journald opens
/// later (a rotation), and keeps those it removes (a vacuum) until it is closed: whoever keeps it lets it go soon, and
/// after any look that missed something.
public final class OpenedJournal {
    fileprivate var pointer: OpaquePointer
    /// Queries asked since it was opened (``JournalReader/queriesPerOpening``).
    fileprivate var asked = 0

    fileprivate init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        sd_journal_close(pointer)
    }
}

/// What a look at the journal found (``JournalReader/holdings(of:recent:)``).
public struct JournalHoldings: Sendable, Equatable {
    /// For each query, whether an entry matches it.
    public var found: [Bool]
    /// For each recent entry, whether the journal holds it.
    public var recentFound: [Bool]
    /// How many of the recent entries the walks did not meet, and were looked up one by one.
    public var lookedUp: Int
    /// How many queries and recent entries the newest files did not hold, and were asked of the whole journal.
    public var askedWhole = 0
    /// The time of the oldest entry the journal still holds (µs since the epoch; nil when it holds none, or when the
    /// newest files answered everything and the whole journal was not opened), before which retention may have
    /// removed entries.
    public var oldest: UInt64?

    public init(found: [Bool], recentFound: [Bool], lookedUp: Int, oldest: UInt64?) {
        self.found = found
        self.recentFound = recentFound
        self.lookedUp = lookedUp
        self.oldest = oldest
    }
}

extension JournalReader {
    /// How many of a walk's entries may be other than the ones it looks for before the rest are looked up one by
    /// one: entries sent again, or sent after the look was asked for. A recovery sends its next round of 16 while a
    /// look at the last one waits for the journal's thread (niced below the loop's): with room for 8 only, such a
    /// walk met none of its entries, and each was looked up, searching sd-journal's longest entry arrays
    /// (docs/PERFORMANCE.md, "A day-one history's memory, looked at again").
    static let walkSlack = 24

    /// The fewest recent entries of one walked match that are walked for; fewer are looked up one by one. A walk
    /// reads each entry's fields, which for one or two entries costs more than their look-ups: under a churn of
    /// units, each with a dispatch or two waiting, walks cost 10 % more instructions a run than look-ups
    /// (docs/PERFORMANCE.md, "Looks that read the newest entries").
    static let smallestWalk = 4

    /// What the journal holds: for each query, as in ``contains(_:)``, whether an entry matches it, asked first and
    /// in the order given; then, for each recent entry, whether the journal holds it; and the time of its oldest
    /// entry.
    ///
    /// Recent entries that share their ``RecentEntryQuery/walked`` matches, ``smallestWalk`` or more, are read back
    /// from the journal's tail in one walk, for as many entries as they are (and ``walkSlack``); those the walks did
    /// not meet are then asked one by one, in the order given. A query for one entry looks its values up in every
    /// file's hash table, a page of its own for each value (each fault maps the 64 KB around it), where a walk reads
    /// the few pages at the end of the newest file (docs/PERFORMANCE.md, "Looks that read the newest entries"). Only
    /// the look-ups say that an entry is missing: a walk that fails, or ends early, only leaves more of them to ask.
    ///
    /// Wraps `sd_journal_flush_matches(3)`, `sd_journal_seek_head(3)`, `sd_journal_seek_tail(3)`,
    /// `sd_journal_previous(3)` and `sd_journal_get_cutoff_realtime_usec(3)` besides the calls above.
    public func holdings(
        of queries: [[String]], recent: [RecentEntryQuery] = []
    ) throws(SystemdError) -> JournalHoldings {
        var kept: OpenedJournal?
        return try look(for: queries, recent: recent, walking: true, keeping: &kept)
    }

    /// ``holdings(of:recent:)``, asked first of `newestFiles` (the files journald writes to now, as
    /// ``onlineFiles()`` gives them), whose journal `kept` is left open for the next look (opened first when nil;
    /// nil when the look failed, or had to ask the whole journal: closed before that is opened, so that the pages of
    /// both are not mapped at once); only what they do not hold is then asked of the whole journal, opened for that, in
    /// the order given. `recent` comes newest first, in the order journald was sent them: those newer than the newest
    /// one the newest files hold are not asked of the whole journal (no older file can hold them). Each query that
    /// finds its entry in the newest files is answered before any is asked of the whole journal, so an entry missing
    /// from the whole journal was missing after every entry found. The whole journal's files, dozens on a long-lived
    /// host, are not opened at all when the newest files answer everything (docs/PERFORMANCE.md, "Looks that read the
    /// newest entries"); then ``JournalHoldings/oldest`` is nil. Without `newestFiles`, the whole journal is the one
    /// kept.
    ///
    /// With `queriesOnlyBesideMissing`, the queries matter only beside a recent entry missing: when the newest files
    /// hold every recent entry, those they do not answer are answered as missing, and the whole journal is not opened
    /// for them.
    public func holdings(
        of queries: [[String]], recent: [RecentEntryQuery], newestFiles: JournalSource?,
        keeping kept: inout OpenedJournal?, queriesOnlyBesideMissing: Bool = false
    ) throws(SystemdError) -> JournalHoldings {
        guard let newestFiles else { return try look(for: queries, recent: recent, walking: true, keeping: &kept) }
        let newest = JournalReader(source: newestFiles, entriesPerOpening: entriesPerOpening, damaged: damaged)
        var answer: JournalHoldings
        do {
            answer = try newest.look(for: queries, recent: recent, walking: true, keeping: &kept)
        } catch {
            // A file rotated away since it was named, or damaged: the whole journal answers.
            answer = JournalHoldings(
                found: Array(repeating: false, count: queries.count),
                recentFound: Array(repeating: false, count: recent.count), lookedUp: 0, oldest: nil
            )
        }
        // How far back the newest files go says nothing of the whole journal.
        answer.oldest = nil
        let missesRecent = answer.recentFound.contains(false)
        let missing = queriesOnlyBesideMissing && !missesRecent ? [] : queries.indices.filter { !answer.found[$0] }
        // journald writes its entries in the order it takes them, into the newest files: those lack an entry taken
        // after one they hold only because journald has not taken it yet (a look follows a send at once while
        // recovering), and no older file holds it.
        let newestHeld = answer.recentFound.firstIndex(of: true) ?? -1
        let missingRecent = recent.indices.filter { $0 > newestHeld && !answer.recentFound[$0] }
        guard !missing.isEmpty || !missingRecent.isEmpty else { return answer }
        // A look that misses anything lets the newest files go: closed now, their pages and the whole journal's are
        // not mapped at once.
        kept = nil
        let second = try askWhole(missing.map { queries[$0] }, recent: missingRecent.map { recent[$0] })
        for (index, found) in zip(missing, second.found) { answer.found[index] = found }
        for (index, found) in zip(missingRecent, second.recentFound) { answer.recentFound[index] = found }
        answer.askedWhole = missing.count + missingRecent.count
        answer.oldest = second.oldest
        return answer
    }

    /// The whole journal's answers for what the newest files did not hold, with no walk: the local journal's files one
    /// at a time (``holdingsInEachFile(of:recent:in:)``), another source's, or files that kept changing, all open at
    /// once.
    private func askWhole(_ queries: [[String]], recent: [RecentEntryQuery]) throws(SystemdError) -> JournalHoldings {
        if source == .local, let files = SystemJournalFiles.local,
           let answer = try holdingsInEachFile(of: queries, recent: recent, in: files) {
            return answer
        }
        var whole: OpenedJournal?
        return try look(for: queries, recent: recent, walking: false, keeping: &whole)
    }

    /// The files journald writes the system journal to now: `system.journal` of this machine under /var/log/journal
    /// (persistent) and /run/log/journal (volatile, and before journald flushes it), those that exist; nil when
    /// there is none, or the machine's id cannot be read. While journald rotates, the next file is waited for a few
    /// milliseconds (``SystemJournalFiles/onlineAfterRotation(attempts:pause:)``).
    public static func onlineFiles() -> JournalSource? {
        guard let files = SystemJournalFiles.local?.onlineAfterRotation(), !files.isEmpty else { return nil }
        return .files(files)
    }

    /// The answers of the journal `kept` (opened first when nil), which is left open in `kept`; walks only when
    /// `walking`. It is opened again every ``queriesPerOpening`` queries, counted across looks.
    private func look(
        for queries: [[String]], recent: [RecentEntryQuery], walking: Bool, keeping kept: inout OpenedJournal?
    ) throws(SystemdError) -> JournalHoldings {
        let journal: OpenedJournal
        if let open = kept.take() { journal = open } else { journal = try opened() }
        func takeTurn() throws(SystemdError) {
            if journal.asked >= Self.queriesPerOpening {
                // The files left out were reported by the first opening.
                var again = JournalDamage()
                let fresh = try open(matching: [], damage: &again)
                sd_journal_close(journal.pointer)
                journal.pointer = fresh
                journal.asked = 0
            }
            journal.asked += 1
        }
        var found: [Bool] = []
        found.reserveCapacity(queries.count)
        for matches in queries {
            try takeTurn()
            found.append(try Self.holds(matches, journal: journal.pointer))
        }
        var recentFound = [Bool](repeating: false, count: recent.count)
        for (walked, indices) in Self.groups(recent) where walking && indices.count >= Self.smallestWalk {
            try takeTurn()
            try Self.add(walked, to: journal.pointer)
            let wanted = indices.map { recent[$0].held }
            Self.walkBack(journal.pointer, for: wanted, count: wanted.count + Self.walkSlack) {
                recentFound[indices[$0]] = true
            }
        }
        let unmet = recent.indices.filter { !recentFound[$0] }
        for index in unmet {
            try takeTurn()
            recentFound[index] = try Self.holds(recent[index].matches, journal: journal.pointer)
        }
        var oldest: UInt64 = 0
        var newest: UInt64 = 0
        let held = sd_journal_get_cutoff_realtime_usec(journal.pointer, &oldest, &newest) > 0
        kept = journal
        return JournalHoldings(
            found: found, recentFound: recentFound, lookedUp: unmet.count, oldest: held ? oldest : nil
        )
    }

    /// The journal, opened; what the opening had to leave out is reported.
    private func opened() throws(SystemdError) -> OpenedJournal {
        var damage = JournalDamage()
        let journal = OpenedJournal(try open(matching: [], damage: &damage))
        if !damage.isEmpty { damaged(damage) }
        return journal
    }

    /// Whether an entry matches `matches`. Nothing of the entry is read. A step that fails fails the whole look: taken
    /// as "not there", it would make a dispatch the journal holds look dropped, and send it again (an entry journald
    /// is still writing can fail to read).
    static func holds(_ matches: [String], journal: OpaquePointer) throws(SystemdError) -> Bool {
        try JournalReader.add(matches, to: journal)
        try check(sd_journal_seek_head(journal), "seek the journal")
        return try check(sd_journal_next(journal), "read the journal") > 0
    }

    /// The indices of `recent`, by their walked matches, in the order each first comes.
    private static func groups(_ recent: [RecentEntryQuery]) -> [(walked: [String], indices: [Int])] {
        var groups: [(walked: [String], indices: [Int])] = []
        var position: [[String]: Int] = [:]
        for (index, query) in recent.enumerated() {
            if let at = position[query.walked] {
                groups[at].indices.append(index)
            } else {
                position[query.walked] = groups.count
                groups.append((query.walked, [index]))
            }
        }
        return groups
    }

    /// Reads up to `count` entries back from the tail of `journal` (its matches set), and calls `met` with the index
    /// in `wanted` of each one an entry holds, until all are met. An entry whose data cannot be read ends the walk.
    private static func walkBack(_ journal: OpaquePointer, for wanted: [[String]], count: Int, met: (Int) -> Void) {
        let held = wanted.map { $0.map { Array($0.utf8) } }
        // The `FIELD=` of every datum compared: an entry's data are taken in one pass, each compared where it lies
        // (a dictionary of the entry's fields made a walk cost more than the look-ups it spared).
        var prefixes: [[UInt8]] = []
        for datum in held.joined() {
            guard let equals = datum.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let prefix = Array(datum[...equals])
            if !prefixes.contains(prefix) { prefixes.append(prefix) }
        }
        var left = Array(wanted.indices)
        guard sd_journal_seek_tail(journal) >= 0 else { return }
        for _ in 0..<count where !left.isEmpty {
            guard sd_journal_previous(journal) > 0, let data = data(of: prefixes, in: journal) else { return }
            left.removeAll { index in
                let holds = held[index].allSatisfy { data.contains($0) }
                if holds { met(index) }
                return holds
            }
        }
    }

    /// The first datum (`FIELD=value`) of each field `prefixes` names (`FIELD=`) in the entry `journal` stands on,
    /// those it holds; nil when its data cannot be read.
    ///
    /// Wraps `sd_journal_restart_data(3)` and `sd_journal_enumerate_available_data(3)`.
    private static func data(of prefixes: [[UInt8]], in journal: OpaquePointer) -> [[UInt8]]? {
        var found: [[UInt8]] = []
        var seen = [Bool](repeating: false, count: prefixes.count)
        var pointer: UnsafeRawPointer?
        var length = 0
        sd_journal_restart_data(journal)
        while found.count < prefixes.count {
            let result = sd_journal_enumerate_available_data(journal, &pointer, &length)
            if result < 0 { return nil }
            guard result > 0 else { break }
            guard let pointer else { continue }
            for (index, prefix) in prefixes.enumerated() where !seen[index] && length >= prefix.count {
                guard prefix.withUnsafeBytes({ memcmp(pointer, $0.baseAddress!, prefix.count) }) == 0 else { continue }
                seen[index] = true
                found.append(Array(UnsafeRawBufferPointer(start: pointer, count: length)))
                break
            }
        }
        return found
    }
}
