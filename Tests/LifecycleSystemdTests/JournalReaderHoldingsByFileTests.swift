// SPDX-License-Identifier: Apache-2.0

import Foundation
import Glibc
import LifecycleEngine
@testable import LifecycleSystemd
import Synchronization
import Testing

/// A look's ask of the whole journal with its files opened one at a time
/// (``JournalReader/holdingsInEachFile(of:recent:in:)``), on real journal files: the same answers as with every file
/// open at once, the oldest entry included; a damaged file left out and reported once.
@Suite(.enabled(if: JournalRemote.isAvailable, "systemd-journal-remote is not installed"))
struct JournalReaderHoldingsByFileTests {
    typealias Files = JournalReaderDamageTests
    static let machine = JournalReaderFileByFileTests.machine

    /// Two archived files and the one journald writes, under `root`'s machine directory, entries 0..<30 (TEST_INDEX,
    /// PARITY).
    static func threeFiles(in root: String) throws -> [String] {
        let directory = root + "/" + machine
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var paths: [String] = []
        for (range, name) in [(0..<10, "system@0001.journal"), (10..<20, "system@0002.journal"), (20..<30, "system.journal")] {
            paths.append(try Files.journalFile(range, in: directory, name: name, fields: {
                "MESSAGE=entry \($0)\nTEST_INDEX=\($0)\nPARITY=\($0 % 2 == 0 ? "even" : "odd")\n"
            }))
        }
        return paths
    }

    static let queries = [["TEST_INDEX=3"], ["PARITY=odd", "TEST_INDEX=15"], ["TEST_INDEX=25"], ["TEST_INDEX=99"],
                          ["PARITY=even", "TEST_INDEX=15"]]
    static let recent = [
        RecentEntryQuery(walked: ["PARITY=odd"], held: ["TEST_INDEX=29"]),
        RecentEntryQuery(walked: ["PARITY=even"], held: ["TEST_INDEX=29"]),
        RecentEntryQuery(walked: ["PARITY=odd"], held: ["TEST_INDEX=1"]),
        RecentEntryQuery(walked: ["PARITY=even"], held: ["TEST_INDEX=12"]),
        RecentEntryQuery(walked: ["PARITY=even"], held: ["TEST_INDEX=40"]),
    ]

    @Test("one file at a time: every query and recent entry answered as with every file open, the oldest entry too")
    func sameAsWhole() throws {
        let root = try Files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let paths = try Self.threeFiles(in: root)
        let whole = try JournalReader(source: .files(paths)).holdings(of: Self.queries, recent: Self.recent)
        let local = SystemJournalFiles(roots: [root], machineID: Self.machine)
        let byFile = try #require(try JournalReader().holdingsInEachFile(of: Self.queries, recent: Self.recent, in: local))
        #expect(byFile.found == [true, true, true, false, false])
        #expect(byFile.recentFound == [true, false, true, true, false])
        #expect(byFile.found == whole.found)
        #expect(byFile.recentFound == whole.recentFound)
        #expect(byFile.oldest == 1_767_225_600_000_000)
        #expect(byFile.oldest == whole.oldest)
    }

    @Test("a file sd-journal cannot open: left out and reported once, the others answer")
    func damagedFile() throws {
        let root = try Files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let paths = try Self.threeFiles(in: root)
        // The oldest file's signature ("LPKSHHRH") overwritten: sd-journal refuses it.
        try Files.damaged(paths[0], to: paths[0], at: 0, with: Array("XXXXXXXX".utf8))
        let reports = Mutex<[JournalDamage]>([])
        let reader = JournalReader { damage in reports.withLock { $0.append(damage) } }
        let local = SystemJournalFiles(roots: [root], machineID: Self.machine)
        let byFile = try #require(try reader.holdingsInEachFile(of: Self.queries, recent: Self.recent, in: local))
        #expect(byFile.found == [false, true, true, false, false])
        #expect(byFile.recentFound == [true, false, false, true, false])
        #expect(byFile.oldest == 1_767_225_600_000_000 + 10 * 1_000_000)
        #expect(reports.withLock { $0.map { $0.unreadableFiles.map(\.path) } } == [[paths[0]]])
    }
}
