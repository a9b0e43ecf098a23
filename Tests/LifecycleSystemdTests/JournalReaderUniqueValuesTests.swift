// SPDX-License-Identifier: Apache-2.0

import Foundation
import Glibc
@testable import LifecycleSystemd
import Synchronization
import Testing

/// ``JournalReader/uniqueValues(of:keeping:)`` on real journal files (``JournalReaderDamageTests/journalFile(_:in:name:)``):
/// every value of the field, whatever entry holds it, each once, or those kept; read one file at a time, the system
/// journal's files as `sd_journal_open(3)` would pick them (``SystemJournalFiles``), those a rotation renamed included.
struct JournalReaderUniqueValuesTests {
    typealias Files = JournalReaderDamageTests
    static let machine = "0123456789abcdef0123456789abcdef"

    @Test("every value of a field the files hold, once each, across files; a field no entry has gives none", .enabled(if: JournalRemote.isAvailable, "systemd-journal-remote is not installed"))
    func uniqueValues() throws {
        let directory = try Files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try Files.journalFile(0..<5, in: directory, name: "first.journal")
        let second = try Files.journalFile(3..<8, in: directory, name: "second.journal")
        let reader = JournalReader(source: .files([first, second]))
        #expect(try reader.uniqueValues(of: "TEST_INDEX") == Set((0..<8).map(String.init)))
        #expect(try reader.uniqueValues(of: "MESSAGE").count == 8)
        #expect(try reader.uniqueValues(of: "UNIT").isEmpty)
        #expect(try reader.uniqueValues(of: "TEST_INDEX", keeping: { Int($0)! % 2 == 0 }) == ["0", "2", "4", "6"])
    }

    @Test(
        "a file given that cannot be opened is left out and reported, the others read; none opening fails the call",
        .enabled(if: JournalRemote.isAvailable, "systemd-journal-remote is not installed")
    )
    func unreadableFileGiven() throws {
        let directory = try Files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try Files.journalFile(0..<3, in: directory, name: "first.journal")
        let missing = directory + "/missing.journal"
        let reports = Mutex<[JournalDamage]>([])
        let reader = JournalReader(source: .files([first, missing])) { damage in reports.withLock { $0.append(damage) } }
        #expect(try reader.uniqueValues(of: "TEST_INDEX") == ["0", "1", "2"])
        #expect(reports.withLock { $0.map { $0.unreadableFiles.map(\.path) } } == [[missing]])
        #expect(throws: SystemdError.self) { try JournalReader(source: .files([missing])).uniqueValues(of: "TEST_INDEX") }
    }

    @Test("the system journal's files: system.journal and its archives, dirty ones too, at the top and in this machine's directory")
    func systemJournalFiles() throws {
        let root = try Files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let own = root + "/" + Self.machine
        let other = root + "/fedcba9876543210fedcba9876543210"
        for path in [own, other, own + ".ns", own + "/system@dir.journal"] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        let names = [
            "system.journal", "system@a-1-2.journal", "system@b-3-4.journal~", "user-1000.journal", "systemd.journal",
            "system.journal.tmp", "system@c.export",
        ]
        for name in names { #expect(FileManager.default.createFile(atPath: own + "/" + name, contents: Data())) }
        for directory in [root, other, own + ".ns"] {
            #expect(FileManager.default.createFile(atPath: directory + "/system.journal", contents: Data()))
        }
        let files = SystemJournalFiles(roots: [root, root + "/absent"], machineID: Self.machine)
        #expect(files.paths() == [
            own + "/system.journal", own + "/system@a-1-2.journal", own + "/system@b-3-4.journal~", root + "/system.journal",
        ].sorted())
        #expect(files.online() == [own + "/system.journal"], "the file journald writes to, under the roots that have it")
    }

    @Test("no file journald writes to while it has archives: waited for, a rotation's moment; none at all: not waited for")
    func onlineAfterRotation() throws {
        let root = try Files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let own = root + "/" + Self.machine
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        let files = SystemJournalFiles(roots: [root], machineID: Self.machine)
        var pauses = 0
        #expect(files.onlineAfterRotation(attempts: 1_000, pause: { pauses += 1 }) == [], "no files: given up at once")
        #expect(pauses == 0)
        #expect(FileManager.default.createFile(atPath: own + "/system@a-1-2.journal", contents: Data()))
        // journald makes the next file a moment after archiving the last: here, during the second pause.
        pauses = 0
        let next = files.onlineAfterRotation(attempts: 200) {
            pauses += 1
            if pauses == 2 { _ = FileManager.default.createFile(atPath: own + "/system.journal", contents: Data()) }
        }
        #expect(next == [own + "/system.journal"])
        #expect(pauses == 2)
        // Never made (journald stopped): given up after the attempts.
        try FileManager.default.removeItem(atPath: own + "/system.journal")
        pauses = 0
        #expect(files.onlineAfterRotation(attempts: 3, pause: { pauses += 1 }) == [])
        #expect(pauses == 3)
    }

    @Test("a rotation between the listing and the read: the archived file, under its new name, is read too", .enabled(if: JournalRemote.isAvailable, "systemd-journal-remote is not installed"))
    func rotationWhileReading() throws {
        let root = try Files.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Two roots, so that the written file is listed after an archive and renamed while the archive is read.
        let (first, second) = (root + "/a/" + Self.machine, root + "/b/" + Self.machine)
        for path in [first, second] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        _ = try Files.journalFile(0..<3, in: first, name: "system@old.journal")
        _ = try Files.journalFile(3..<6, in: second, name: "system.journal")
        let newer = try Files.journalFile(6..<9, in: root, name: "newer.journal")
        var rotated = false
        let reader = JournalReader()
        let values = try reader.uniqueValues(
            of: "TEST_INDEX", in: SystemJournalFiles(roots: [root + "/a", root + "/b"], machineID: Self.machine)
        ) { _ in
            if !rotated {
                rotated = true
                rename(second + "/system.journal", second + "/system@rotated.journal")
                rename(newer, second + "/system.journal")
            }
            return true
        }
        #expect(rotated)
        #expect(values == Set((0..<9).map(String.init)), "the archive, the file renamed and the new file")
    }
}
