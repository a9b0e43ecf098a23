// SPDX-License-Identifier: Apache-2.0

import Foundation
import Glibc
import LifecycleEngine
import LifecycleSystemd
import Synchronization
import Testing

/// Real journal files, written by `systemd-journal-remote` from export text, read by cursor and after damage: a
/// damaged file is left out of the read, the rest is read, and the damage is reported once.
@Suite(.enabled(if: JournalRemote.isAvailable, "systemd-journal-remote is not installed"))
struct JournalReaderDamageTests {
    static let journalRemote = JournalRemote.path
    static let boot = "0123456789abcdef0123456789abcdef"

    /// A directory with `name` holding entries `range` (TEST_INDEX=i, one a second), written by systemd-journal-remote
    /// (``JournalRemote``).
    static func journalFile(_ range: Range<Int>, in directory: String, name: String) throws -> String {
        try journalFile(range, in: directory, name: name) { "MESSAGE=entry \($0)\nTEST_INDEX=\($0)\n" }
    }

    /// A directory with `name` holding one entry for each of `range`, one a second, with the fields `fields` gives
    /// (`FIELD=value` lines), written by systemd-journal-remote (``JournalRemote``).
    static func journalFile(
        _ range: Range<Int>, in directory: String, name: String, fields: (Int) -> String
    ) throws -> String {
        let path = directory + "/" + name
        var export = ""
        for index in range {
            export += "__REALTIME_TIMESTAMP=\(1_767_225_600_000_000 + UInt64(index) * 1_000_000)\n"
            export += "__MONOTONIC_TIMESTAMP=\(1_000_000 + UInt64(index) * 1_000_000)\n_BOOT_ID=\(boot)\n"
            export += fields(index) + "\n"
        }
        let input = directory + "/\(name).export"
        try export.write(toFile: input, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: journalRemote)
        process.arguments = ["--output=" + path, input]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return path
    }

    static func temporaryDirectory() throws -> String {
        var template = Array("/tmp/lifecycled-journal-damage.XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return try #require(made.map { String(cString: $0) })
    }

    /// Copies `path` to `copy` with `bytes` written at `offset`.
    static func damaged(_ path: String, to copy: String, at offset: Int, with bytes: [UInt8]) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        try data.write(to: URL(fileURLWithPath: copy))
    }

    func indexes(_ entries: [JournalEntry]) -> [Int] { entries.compactMap { $0.fields["TEST_INDEX"].flatMap { Int($0) } } }

    @Test("a journal file with a damaged header is left out and reported once; the other files are read")
    func damagedFileIsLeftOut() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = try Self.journalFile(0..<20, in: directory, name: "good.journal")
        let bad = directory + "/bad.journal"
        // The file's signature ("LPKSHHRH"): sd-journal refuses the file with EBADMSG.
        try Self.damaged(good, to: bad, at: 0, with: Array("XXXXXXXX".utf8))
        let reports = Mutex<[JournalDamage]>([])
        let reader = JournalReader(source: .files([bad, good]), damaged: { damage in reports.withLock { $0.append(damage) } })
        let entries = try reader.entries(matching: [], fields: ["TEST_INDEX"])
        #expect(indexes(entries) == Array(0..<20))
        let damage = try #require(reports.withLock { $0 }.first)
        #expect(reports.withLock { $0.count } == 1)
        #expect(damage.unreadableFiles.map(\.path) == [bad])
        #expect(damage.description.hasPrefix("\(bad) left out (Failed to open the journal \(bad): not a journal file"))
        // Alone, the damaged file is still an error naming it.
        #expect(throws: SystemdError.self) { try JournalReader(source: .files([bad])).entries(matching: [], fields: []) }
    }

    @Test("a damaged entry is skipped and the read goes on past it")
    func damagedEntryIsSkipped() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let good = try Self.journalFile(0..<50, in: directory, name: "good.journal")
        // The 21st entry object: its type byte overwritten. Objects follow the header (header_size at offset 88).
        let data = try Data(contentsOf: URL(fileURLWithPath: good))
        func u64(_ offset: Int) -> Int { (0..<8).reduce(0) { $0 | Int(data[offset + $1]) << (8 * $1) } }
        var offset = u64(88)
        let end = offset + u64(96)
        var entryObjects: [Int] = []
        while offset < end, u64(offset + 8) > 0 {
            if data[offset] == 3 { entryObjects.append(offset) }  // OBJECT_ENTRY
            offset += (u64(offset + 8) + 7) & ~7
        }
        try #require(entryObjects.count == 50)
        let bad = directory + "/bad.journal"
        try Self.damaged(good, to: bad, at: entryObjects[20], with: [0x55])
        let forward = try JournalReader(source: .files([bad])).entries(matching: [], fields: ["TEST_INDEX"])
        #expect(indexes(forward) == Array(0..<20) + Array(21..<50))
        let newest = try JournalReader(source: .files([bad])).newestEntry(matching: [], fields: ["TEST_INDEX"]) { $0.fields["TEST_INDEX"] == "3" }
        #expect(newest?.fields["TEST_INDEX"] == "3")
    }

    @Test("entries after a cursor: the entry itself left out; the tail is the newest entry")
    func afterCursor() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try Self.journalFile(0..<30, in: directory, name: "a.journal")
        let reader = JournalReader(source: .files([file]))
        let tail = try #require(try reader.tail())
        #expect(tail.bootID == Self.boot)
        #expect(tail.monotonicMicroseconds == 1_000_000 + 29 * 1_000_000)
        #expect(tail.realtimeMicroseconds == 1_767_225_600_000_000 + 29 * 1_000_000)
        #expect(try reader.entries(matching: [], fields: [], after: tail.cursor).entries.isEmpty)
        // The cursor of entry 9: the read starts at entry 10, with or without a match.
        let (all, found) = try reader.entries(matching: [], fields: ["TEST_INDEX"], after: try cursor(of: 9, in: file))
        #expect(found)
        #expect(indexes(all) == Array(10..<30))
        let matched = try reader.entries(matching: ["TEST_INDEX=9", "TEST_INDEX=12"], fields: ["TEST_INDEX"], after: try cursor(of: 9, in: file))
        #expect(indexes(matched.entries) == [12])
    }

    @Test("a cursor whose entry the journal no longer holds: the read starts where it would be, and says so")
    func vacuumedCursor() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let early = try Self.journalFile(0..<10, in: directory, name: "early.journal")
        let late = try Self.journalFile(10..<20, in: directory, name: "late.journal")
        // The early file was removed (vacuumed): only the late one is read.
        let (entries, found) = try JournalReader(source: .files([late])).entries(
            matching: [], fields: ["TEST_INDEX"], after: try cursor(of: 5, in: early)
        )
        #expect(!found)
        #expect(indexes(entries) == Array(10..<20))
    }

    @Test(
        "a read that closes and opens the journal again every few entries gives each entry once, in order",
        arguments: [1, 3, 7]
    )
    func reopening(entriesPerOpening: Int) throws {
        try Self.withEntries0to24(entriesPerOpening: entriesPerOpening) { reader, first in
            #expect(indexes(try reader.entries(matching: [], fields: ["TEST_INDEX"])) == Array(0..<25))
            let after = try reader.entries(matching: [], fields: ["TEST_INDEX"], after: try cursor(of: 4, in: first))
            #expect(indexes(after.entries) == Array(5..<25))
            let odd = (0..<25).filter { $0 % 2 == 1 }.map { "TEST_INDEX=\($0)" }
            #expect(indexes(try reader.entries(matching: odd, fields: ["TEST_INDEX"])) == Array(stride(from: 1, to: 25, by: 2)))
            #expect(indexes(try reader.entries(matching: odd, fields: ["TEST_INDEX"], since: 1_767_225_600_000_000 + 10_000_000)) == Array(stride(from: 11, to: 25, by: 2)))
        }
    }

    @Test("a read in slices of a limited number of entries goes on from each slice's last cursor: every entry once, in order", arguments: [1, 3, 500])
    func readInSlices(entriesPerOpening: Int) throws {
        try Self.withEntries0to24(entriesPerOpening: entriesPerOpening) { reader, _ in
            var read: [JournalEntry] = []
            var slices = 1
            var next = try reader.forEachEntry(matching: [], fields: ["TEST_INDEX"], since: nil, limit: 7) {
                read.append($0)
            }
            while let cursor = next {
                slices += 1
                next = try reader.forEachEntry(matching: [], fields: ["TEST_INDEX"], after: cursor, limit: 7) {
                    read.append($0)
                }.stoppedAt
            }
            #expect(indexes(read) == Array(0..<25))
            #expect(slices == 4, "7 + 7 + 7 + 4 entries")
        }
    }

    @Test("the newest entry that is accepted, with its cursor when asked: the cursor journalctl shows for it")
    func newestWithCursor() throws {
        try Self.withEntries0to24(entriesPerOpening: 500) { reader, first in
            let odd = try reader.newestEntry(matching: [], fields: ["TEST_INDEX"], withCursor: true) {
                $0.fields["TEST_INDEX"].flatMap { Int($0) }.map { $0 < 10 && $0 % 2 == 1 } ?? false
            }
            #expect(odd?.fields["TEST_INDEX"] == "9")
            #expect(odd?.cursor == (try cursor(of: 9, in: first)))
            #expect(try reader.newestEntry(matching: [], fields: ["TEST_INDEX"])?.cursor == nil, "not asked for")
        }
    }

    @Test("look-ups over several openings of the journal: each query answered as with one")
    func holdingsAcrossOpenings() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = try Self.journalFile(0..<25, in: directory, name: "a.journal")
        let queries = (0..<200).map { ["TEST_INDEX=\($0 % 50)"] }
        let holdings = try JournalReader(source: .files([file])).holdings(of: queries)
        #expect(holdings.found == (0..<200).map { $0 % 50 < 25 })
        #expect(holdings.oldest == 1_767_225_600_000_000)
    }

    /// Calls `body` with a reader of two journal files holding entries 0-11 and 12-24, and the first file's path.
    static func withEntries0to24(
        entriesPerOpening: Int, _ body: (JournalReader, String) throws -> Void
    ) throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try journalFile(0..<12, in: directory, name: "a.journal")
        let second = try journalFile(12..<25, in: directory, name: "b.journal")
        try body(JournalReader(source: .files([first, second]), entriesPerOpening: entriesPerOpening), first)
    }

    /// The cursor of entry `index` of `file`, as `journalctl --show-cursor` prints it.
    func cursor(of index: Int, in file: String) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/journalctl")
        process.arguments = ["--file=" + file, "-o", "export", "TEST_INDEX=\(index)"]
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("__CURSOR=") })
        return String(line.dropFirst("__CURSOR=".count))
    }
}

/// systemd-journal-remote, which writes the real journal files these tests read: the suites that need it are skipped
/// without it, saying so.
enum JournalRemote {
    static let path = "/lib/systemd/systemd-journal-remote"
    static var isAvailable: Bool { access(path, X_OK) == 0 }
}
