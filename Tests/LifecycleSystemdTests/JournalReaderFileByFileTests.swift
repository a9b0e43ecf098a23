// SPDX-License-Identifier: Apache-2.0

import Foundation
import Glibc
import LifecycleEngine
@testable import LifecycleSystemd
import Testing

/// The local journal read one file at a time (``JournalReader/forEachEntryFileByFile(matching:fields:since:limit:_:)``)
/// on real journal files numbered as journald numbers one sequence: every slice, from a time or after a cursor, with a
/// match or none, gives the entries, cursors and ends that sd-journal gives with every file open at once.
@Suite(.enabled(if: JournalRemote.isAvailable, "systemd-journal-remote is not installed"))
struct JournalReaderFileByFileTests {
    typealias Files = JournalReaderDamageTests
    static let machine = "fedcba9876543210fedcba9876543210"
    static let sequenceID = "5eb0e4c1d2a3b4c5d6e7f8091a2b3c4d"

    /// Renumbers the entries of the journal file at `path` as entries `first`, `first + 1`, … of the sequence
    /// `sequenceID`, as if journald had written them: the header's sequence id (offset 72) and its head and tail
    /// numbers (168, 160), and each entry object's number (16 bytes into it).
    static func renumber(_ path: String, from first: UInt64, sequenceID: String = sequenceID) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        func u64(_ offset: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(data[offset + $1]) << (8 * $1) } }
        func put(_ value: UInt64, at offset: Int) {
            for byte in 0..<8 { data[offset + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
        }
        let id = stride(from: 0, to: 32, by: 2).map { start -> UInt8 in
            let digits = sequenceID.utf8.dropFirst(start).prefix(2)
            return UInt8(String(decoding: digits, as: UTF8.self), radix: 16)!
        }
        data.replaceSubrange(72..<88, with: id)
        var offset = Int(u64(88))
        let end = offset + Int(u64(96))
        var number = first
        while offset < end, u64(offset + 8) > 0 {
            if data[offset] == 3 {  // OBJECT_ENTRY
                put(number, at: offset + 16)
                number += 1
            }
            offset += Int((u64(offset + 8) + 7) & ~7)
        }
        put(first, at: 168)
        put(number - 1, at: 160)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// `range`'s entries (TEST_INDEX, PARITY) written to `name` under `root`'s machine directory, numbered from `first`.
    static func systemFile(
        _ range: Range<Int>, numberedFrom first: UInt64, in root: String, name: String,
        sequenceID: String = sequenceID
    ) throws -> String {
        let directory = root + "/" + machine
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = try Files.journalFile(range, in: directory, name: name, fields: {
            "MESSAGE=entry \($0)\nTEST_INDEX=\($0)\nPARITY=\($0 % 2 == 0 ? "even" : "odd")\n"
        })
        try renumber(path, from: first, sequenceID: sequenceID)
        return path
    }

    /// Three files of one sequence, with gaps between their numbers (a user's journal took them), the newest
    /// `system.journal`.
    static func threeFiles(in root: String) throws -> [String] {
        [
            try systemFile(0..<10, numberedFrom: 1, in: root, name: "system@0001.journal"),
            try systemFile(10..<20, numberedFrom: 14, in: root, name: "system@0002.journal"),
            try systemFile(20..<30, numberedFrom: 30, in: root, name: "system.journal"),
        ]
    }

    static func realtime(of index: Int) -> UInt64 { 1_767_225_600_000_000 + UInt64(index) * 1_000_000 }

    /// One slice's answer: the entries' indexes, and where it stopped (with `found`, after a cursor).
    struct Slice: Equatable, CustomStringConvertible {
        var indexes: [Int]
        var found: Bool?
        var stoppedAt: String?
        var description: String { "\(indexes) found: \(String(describing: found)) stopped at: \(stoppedAt ?? "end")" }
    }

    /// Every slice of `limit` entries from `since` to the end, as `read` gives them.
    func slices(
        matching matches: [String], since: UInt64, limit: Int,
        first: (inout [Int]) throws -> String?, after: (String, inout [Int]) throws -> (Bool, String?)
    ) throws -> [Slice] {
        var indexes: [Int] = []
        var stoppedAt = try first(&indexes)
        var slices = [Slice(indexes: indexes, stoppedAt: stoppedAt)]
        while let cursor = stoppedAt, slices.count < 100 {
            indexes = []
            let (found, next) = try after(cursor, &indexes)
            slices.append(Slice(indexes: indexes, found: found, stoppedAt: next))
            stoppedAt = next
        }
        return slices
    }

    func index(_ entry: JournalEntry) -> Int { Int(entry.fields["TEST_INDEX"] ?? "") ?? -1 }

    @Test("one file at a time: every slice, from a time or after a cursor, as with every file open at once")
    func sameAsWhole() throws {
        let root = try Files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let paths = try Self.threeFiles(in: root)
        let local = SystemJournalFiles(roots: [root], machineID: Self.machine)
        // The files are one succession, so the reads below go one file at a time.
        let set = try #require(LocalJournalFileSet.open(local))
        #expect(set.sequence.members.map { [$0.first.number, $0.last.number] } == [[1, 10], [14, 23], [30, 39]])
        set.close()
        let reader = JournalReader(source: .files(paths))
        let fields = ["TEST_INDEX"]
        var compared = 0
        for matches in [[], ["PARITY=even"], ["TEST_INDEX=3", "TEST_INDEX=25"]] {
            for since in [0, Self.realtime(of: 5), Self.realtime(of: 10), Self.realtime(of: 25), Self.realtime(of: 99)] {
                for limit in [1, 3, 10, 11, Int.max] {
                    let whole = try slices(matching: matches, since: since, limit: limit, first: { indexes in
                        try reader.forEachEntry(matching: matches, fields: fields, since: since, limit: limit) {
                            indexes.append(index($0))
                        }
                    }, after: { cursor, indexes in
                        try reader.forEachEntry(matching: matches, fields: fields, after: cursor, limit: limit) {
                            indexes.append(index($0))
                        }
                    })
                    let byFile = try slices(matching: matches, since: since, limit: limit, first: { indexes in
                        try reader.forEachEntry(in: local, matching: matches, fields: fields, since: since, limit: limit) {
                            indexes.append(index($0))
                        }
                    }, after: { cursor, indexes in
                        try reader.forEachEntry(in: local, matching: matches, fields: fields, after: cursor, limit: limit) {
                            indexes.append(index($0))
                        }
                    })
                    #expect(byFile == whole, "matches \(matches), since \(since), limit \(limit)")
                    compared += whole.count
                }
            }
        }
        #expect(compared > 100)
    }

    @Test("after an entry no file holds (vacuumed, or a user's journal's): not found, the later files read")
    func cursorInGap() throws {
        let root = try Files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let paths = try Self.threeFiles(in: root)
        let local = SystemJournalFiles(roots: [root], machineID: Self.machine)
        let reader = JournalReader(source: .files(paths))
        for number in [12, 26, 45] {
            let cursor = "s=\(Self.sequenceID);i=\(String(number, radix: 16));b=\(Files.boot);m=0;t=0;x=0"
            var whole: [Int] = []
            let wholeRead = try reader.forEachEntry(matching: [], fields: ["TEST_INDEX"], after: cursor) {
                whole.append(index($0))
            }
            var byFile: [Int] = []
            let read = try reader.forEachEntry(in: local, matching: [], fields: ["TEST_INDEX"], after: cursor, limit: .max) {
                byFile.append(index($0))
            }
            #expect(!read.found && !wholeRead.found)
            #expect(byFile == whole)
            #expect(byFile == Array((number < 14 ? 10 : number < 30 ? 20 : 30)..<30))
        }
    }

    @Test("files of two sequences (a journal set aside after a crash): no succession, the journal read whole")
    func twoSequences() throws {
        let root = try Files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let written = try Self.systemFile(0..<10, numberedFrom: 1, in: root, name: "system@0001.journal")
        let b = try Self.systemFile(
            10..<20, numberedFrom: 1, in: root, name: "system.journal", sequenceID: JournalFileSequenceTests.other
        )
        let a = written + "~"  // set aside as dirty: systemd-journal-remote writes only names ending in .journal
        try FileManager.default.moveItem(atPath: written, toPath: a)
        let local = SystemJournalFiles(roots: [root], machineID: Self.machine)
        #expect(LocalJournalFileSet.open(local) == nil)
        var indexes: [Int] = []
        _ = try JournalReader(source: .files([a, b])).forEachEntry(
            in: local, matching: [], fields: ["TEST_INDEX"], since: 0, limit: .max
        ) { indexes.append(index($0)) }
        #expect(indexes == Array(0..<20))
    }

    /// The descriptors this process holds on files under `root` (other tests running meanwhile hold their own).
    static func descriptors(under root: String) throws -> [String] {
        let real = URL(fileURLWithPath: root).resolvingSymlinksInPath().path + "/"
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
        }.filter { $0.hasPrefix(real) }
    }

    @Test("reads and looks one file at a time leave no descriptor open, however many there are")
    func noDescriptorLeft() throws {
        let root = try Files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        _ = try Self.threeFiles(in: root)
        let local = SystemJournalFiles(roots: [root], machineID: Self.machine)
        let reader = JournalReader()
        var read = 0
        for _ in 0..<20 {
            var stoppedAt = try reader.forEachEntry(in: local, matching: [], fields: ["TEST_INDEX"], since: 0, limit: 7) {
                _ in read += 1
            }
            while let cursor = stoppedAt {
                stoppedAt = try reader.forEachEntry(
                    in: local, matching: [], fields: ["TEST_INDEX"], after: cursor, limit: 7
                ) { _ in read += 1 }.stoppedAt
            }
            _ = try reader.holdingsInEachFile(
                of: JournalReaderHoldingsByFileTests.queries, recent: JournalReaderHoldingsByFileTests.recent, in: local
            )
        }
        #expect(read == 20 * 30, "every entry read, each time")
        #expect(try Self.descriptors(under: root).isEmpty)
    }
}
