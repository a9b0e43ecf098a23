// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleSystemd
import Testing

/// Look-ups of recent entries (`JournalReader.holdings(of:recent:)`) in real journal files: the walks back from the
/// tail meet the newest entries, and only what they do not meet is looked up one by one, with the same answers.
@Suite(.enabled(if: JournalRemote.isAvailable, "systemd-journal-remote is not installed"))
struct JournalReaderHoldingsTests {
    /// Entries 0..<40 alternate between units `a` and `b`: unit `a` holds numbers 0, 2, … 38, `b` 1, 3, … 39, each with
    /// the time `t<number>`.
    static func withUnits(_ body: (JournalReader) throws -> Void) throws {
        let directory = try JournalReaderDamageTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try JournalReaderDamageTests.journalFile(0..<40, in: directory, name: "units.journal", fields: {
            "MESSAGE=entry \($0)\nSYSLOG_IDENTIFIER=walker\nWALK_UNIT=\($0 % 2 == 0 ? "a" : "b")\nWALK_NUMBER=\($0)\nWALK_TIME=t\($0)\n"
        })
        try body(JournalReader(source: .files([file])))
    }

    /// Unit `a`'s entries 0..<20 in one file and 20..<40 in another (the newest), as in ``withUnits(_:)``; the
    /// reader reads both, and the newest file's path is given too.
    static func withTwoFiles(_ body: (JournalReader, String) throws -> Void) throws {
        let directory = try JournalReaderDamageTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fields = { (index: Int) in
            "MESSAGE=entry \(index)\nSYSLOG_IDENTIFIER=walker\nWALK_UNIT=a\nWALK_NUMBER=\(index)\nWALK_TIME=t\(index)\n"
        }
        let old = try JournalReaderDamageTests.journalFile(0..<20, in: directory, name: "old.journal", fields: fields)
        let new = try JournalReaderDamageTests.journalFile(20..<40, in: directory, name: "new.journal", fields: fields)
        try body(JournalReader(source: .files([old, new])), new)
    }

    static func entry(_ unit: String, _ number: Int, time: String? = nil) -> RecentEntryQuery {
        RecentEntryQuery(
            walked: ["SYSLOG_IDENTIFIER=walker", "WALK_UNIT=\(unit)"],
            held: ["WALK_NUMBER=\(number)", "WALK_TIME=\(time ?? "t\(number)")"]
        )
    }

    @Test("the newest entries of each unit are met by one walk; nothing is looked up one by one")
    func newestAreWalked() throws {
        try Self.withUnits { reader in
            let recent = [39, 38, 37, 36, 35, 34, 32, 31].map { Self.entry($0 % 2 == 0 ? "a" : "b", $0) }
            let holdings = try reader.holdings(of: [["WALK_UNIT=a"], ["WALK_UNIT=c"]], recent: recent)
            #expect(holdings.found == [true, false])
            #expect(holdings.recentFound == Array(repeating: true, count: 8))
            #expect(holdings.lookedUp == 0)
            #expect(holdings.oldest == 1_767_225_600_000_000)
        }
    }

    @Test("entries beyond a walk's reach, or missing, are looked up one by one, with the same answers")
    func beyondTheWalkIsLookedUp() throws {
        let directory = try JournalReaderDamageTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try JournalReaderDamageTests.journalFile(0..<60, in: directory, name: "long.journal", fields: {
            "MESSAGE=entry \($0)\nSYSLOG_IDENTIFIER=walker\nWALK_UNIT=a\nWALK_NUMBER=\($0)\nWALK_TIME=t\($0)\n"
        })
        // The walk reads the 4 + 24 newest entries (numbers 59 down to 32): 2 is beyond it, 61 is nowhere, and 58
        // with another time is not that entry.
        let recent = [Self.entry("a", 59), Self.entry("a", 2), Self.entry("a", 61), Self.entry("a", 58, time: "t0")]
        let long = try JournalReader(source: .files([file])).holdings(of: [], recent: recent)
        #expect(long.recentFound == [true, true, false, false])
        #expect(long.lookedUp == 3)
        // Behind 20 newer entries (a recovery's next round, sent while the look waited): still met by the walk.
        let behind = try JournalReader(source: .files([file])).holdings(of: [], recent: (36...39).reversed().map {
            Self.entry("a", $0)
        })
        #expect(behind.recentFound == [true, true, true, true])
        #expect(behind.lookedUp == 0)
        try Self.withUnits { reader in
            // A unit with no entries: its walk meets nothing.
            let none = try reader.holdings(of: [], recent: (1...4).map { Self.entry("c", $0) })
            #expect(none.recentFound == [false, false, false, false])
            #expect(none.lookedUp == 4)
            // Fewer than four of a unit are looked up, not walked for.
            let few = try reader.holdings(of: [], recent: [Self.entry("a", 38), Self.entry("b", 39)])
            #expect(few.recentFound == [true, true])
            #expect(few.lookedUp == 2)
        }
    }

    @Test("many recent entries over several openings of the journal: each answered as with one")
    func acrossOpenings() throws {
        try Self.withUnits { reader in
            let recent = (0..<60).map { Self.entry($0 % 2 == 0 ? "a" : "b", $0) }
            let holdings = try reader.holdings(of: (0..<30).map { ["WALK_NUMBER=\($0)"] }, recent: recent)
            #expect(holdings.found == Array(repeating: true, count: 30))
            #expect(holdings.recentFound == (0..<60).map { $0 < 40 })
            // Each walk reads 30 + 24 entries of its unit: all 20 it holds.
            #expect(holdings.lookedUp == 20)
        }
    }

    @Test("a kept journal serves the looks that follow, opened again every 20 queries; a failed look lets it go")
    func keptJournal() throws {
        try Self.withUnits { reader in
            var kept: OpenedJournal?
            let recent = [39, 37, 35, 33].map { Self.entry("b", $0) }
            let first = try reader.holdings(of: [["WALK_UNIT=a"]], recent: recent, newestFiles: nil, keeping: &kept)
            let journal = try #require(kept)
            for _ in 0..<30 {
                let again = try reader.holdings(of: [["WALK_UNIT=a"]], recent: recent, newestFiles: nil, keeping: &kept)
                #expect(again == first)
                #expect(kept === journal)
            }
            #expect(first.recentFound == [true, true, true, true])
            #expect(throws: SystemdError.self) {
                try reader.holdings(of: [["not a match"]], recent: [], newestFiles: nil, keeping: &kept)
            }
            #expect(kept == nil)
        }
    }

    @Test("asked of the newest files first: only what they do not hold is asked of the whole journal, in order")
    func newestFilesFirst() throws {
        try Self.withTwoFiles { reader, newest in
            var kept: OpenedJournal?
            let recent = [39, 38, 37, 36, 5, 41].map { Self.entry("a", $0) }
            let holdings = try reader.holdings(
                of: [["WALK_NUMBER=30"], ["WALK_NUMBER=3"]], recent: recent, newestFiles: .files([newest]), keeping: &kept
            )
            #expect(holdings.found == [true, true])
            #expect(holdings.recentFound == [true, true, true, true, true, false])
            #expect(holdings.askedWhole == 3, "query 3, and entries 5 and 41")
            #expect(holdings.oldest == 1_767_225_600_000_000, "the whole journal's oldest entry")
            #expect(kept == nil, "the newest files let go before the whole journal was opened")

            // All in the newest files: the whole journal is not opened, and says nothing of how far back it goes.
            let newer = try reader.holdings(
                of: [["WALK_NUMBER=30"]], recent: Array(recent.prefix(4)), newestFiles: .files([newest]), keeping: &kept
            )
            #expect(newer.found == [true] && newer.recentFound == [true, true, true, true])
            #expect(newer.askedWhole == 0)
            #expect(newer.oldest == nil)

            // Entries newer than one the newest files hold, missing from them (journald behind): no older file can
            // hold them, so the whole journal is not asked. With none held, it is asked for every one.
            let behind = try reader.holdings(
                of: [], recent: [Self.entry("a", 42), Self.entry("a", 41), Self.entry("a", 39), Self.entry("a", 3)],
                newestFiles: .files([newest]), keeping: &kept
            )
            #expect(behind.recentFound == [false, false, true, true])
            #expect(behind.askedWhole == 1, "entry 3 only")
            let noneHeld = try reader.holdings(
                of: [], recent: [Self.entry("a", 41), Self.entry("a", 3)], newestFiles: .files([newest]), keeping: &kept
            )
            #expect(noneHeld.recentFound == [false, true])
            #expect(noneHeld.askedWhole == 2)

            // Queries that matter only beside a missing entry: with every recent entry in the newest files, one they
            // do not answer is not asked of the whole journal; with one missing, it is.
            let besideNone = try reader.holdings(
                of: [["WALK_NUMBER=3"]], recent: Array(recent.prefix(4)), newestFiles: .files([newest]), keeping: &kept,
                queriesOnlyBesideMissing: true
            )
            #expect(besideNone.found == [false] && besideNone.recentFound == [true, true, true, true])
            #expect(besideNone.askedWhole == 0)
            let besideMissing = try reader.holdings(
                of: [["WALK_NUMBER=3"]], recent: [Self.entry("a", 39), Self.entry("a", 5)], newestFiles: .files([newest]),
                keeping: &kept, queriesOnlyBesideMissing: true
            )
            #expect(besideMissing.found == [true] && besideMissing.recentFound == [true, true])
            #expect(besideMissing.askedWhole == 2, "query 3, and entry 5")

            // Newest files that cannot be opened (rotated away): the whole journal answers everything.
            var none: OpenedJournal?
            let gone = try reader.holdings(
                of: [], recent: Array(recent.prefix(5)), newestFiles: .files([newest + ".gone"]), keeping: &none
            )
            #expect(gone.recentFound == [true, true, true, true, true])
            #expect(gone.askedWhole == 5)
            #expect(none == nil)
        }
    }
}
