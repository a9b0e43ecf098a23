// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import Testing

import Glibc

@testable import LifecycleStorage

/// Unit names up to systemd's 255 bytes: the state files of names too long for `<unit>.json` are named by a prefix
/// and a hash, and hold the unit they are of (docs/configuration.md, "State files").
struct LongUnitNameTests {
    private func makeStore(_ directory: TemporaryDirectory, readOnly: Bool = false) -> StateStore {
        StateStore(directory: directory.path, readOnly: readOnly, clock: { StateStoreTests.now })
    }

    /// A name of exactly `bytes` bytes: `lc-long-`, then `fill`, then `.service`.
    static func name(bytes: Int, fill: Character = "x", tail: String = "") -> String {
        let fixed = "lc-long-".utf8.count + tail.utf8.count + ".service".utf8.count
        return "lc-long-" + String(repeating: fill, count: bytes - fixed) + tail + ".service"
    }

    /// A record of `unit` with its own counters, to tell records apart.
    static func record(_ unit: String, launches: Int) -> UnitRecord {
        var record = StateStoreTests.sampleRecord(unit: unit)
        record.state.launchCount = launches
        record.state.totalLaunchCount = launches
        return record
    }

    /// The 255-byte name whose file name was worked out by hand: its first 189 bytes, `~`, and the first 32 digits
    /// of the SHA-256 of the whole name (Python's `hashlib.sha256(name.encode()).hexdigest()[:32]`).
    static let longest = name(bytes: 255)
    static let longestFile = "lc-long-" + String(repeating: "x", count: 181) + "~f53cb3f192ded613e495e16990900ff9.json"

    @Test("names whose file names fit keep <unit>.json; longer ones get a prefix and a hash, within NAME_MAX")
    func fileNames() {
        #expect(UnitFileName.stateFile(of: "nginx.service") == "nginx.service.json")
        let fits = Self.name(bytes: UnitFileName.maximumStemBytes)
        #expect(UnitFileName.maximumStemBytes == 222)
        #expect(UnitFileName.stateFile(of: fits) == fits + ".json")
        #expect(UnitFileName.stateFile(of: Self.longest) == Self.longestFile)
        for bytes in [223, 240, 250, 255] {
            let file = UnitFileName.stateFile(of: Self.name(bytes: bytes))
            #expect(file.utf8.count == 227)
            #expect(UnitFileName.entry(file) == .hashed)
            // The longest name made from it, a corrupt file's, fits into 255 bytes.
            let aside = UnitFileName.corruptFile(ofStateFile: file, stamp: "20261121T213000Z", attempt: 99)
            #expect(aside.utf8.count == 255)
        }
    }

    @Test("a prefix ends between characters, so the file name is valid UTF-8")
    func multibytePrefix() {
        let unit = "lc-" + String(repeating: "é", count: 120) + ".service"
        #expect(unit.utf8.count == 251)
        let file = UnitFileName.stateFile(of: unit)
        #expect(String(validating: Array(file.utf8), as: UTF8.self) != nil)
        #expect(file.hasPrefix("lc-" + String(repeating: "é", count: 93) + "~"))
        #expect(file.utf8.count <= 227)
    }

    @Test("a name that looks hashed is hashed too, so it never shares a file with a long name")
    func hashLookingName() {
        let unit = "odd~f53cb3f192ded613e495e16990900ff9"
        let file = UnitFileName.stateFile(of: unit)
        #expect(file != unit + ".json")
        #expect(file.hasPrefix(unit + "~"))
        #expect(UnitFileName.entry(unit + ".json") == .hashed)
    }

    @Test("names up to systemd's 255 bytes are valid; longer ones are refused with its limit")
    func lengthLimit() throws {
        try StateStore.validateUnitName(Self.longest)
        let longer = Self.name(bytes: 256)
        #expect(
            throws: StateStoreError.invalidUnitName(
                longer, reason: "the name is longer than 255 bytes, systemd's limit for unit names"
            )
        ) { try StateStore.validateUnitName(longer) }
    }

    @Test("a 255-byte name, escapes included, saves, loads and is listed")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        let escaped = Self.name(bytes: 250, tail: #"-a\x2db"#)
        try store.save(Self.record(Self.longest, launches: 7))
        try store.save(Self.record(escaped, launches: 3))
        try store.save(Self.record("nginx.service", launches: 1))
        #expect(directory.list("units").contains(Self.longestFile))
        #expect(directory.list("units").contains("nginx.service.json"))
        #expect(try store.path(forUnit: Self.longest) == directory.path + "/units/" + Self.longestFile)

        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: Self.longest, warnings: &warnings) == Self.record(Self.longest, launches: 7))
        #expect(try store.load(unit: escaped, warnings: &warnings) == Self.record(escaped, launches: 3))
        #expect(warnings.isEmpty)

        let contents = try makeStore(directory, readOnly: true).loadAll()
        #expect(contents.warnings.isEmpty)
        #expect(
            contents.records == [
                Self.record(escaped, launches: 3), Self.record(Self.longest, launches: 7),
                Self.record("nginx.service", launches: 1),
            ]
        )
        #expect(try store.unitNames().sorted() == [escaped, Self.longest, "nginx.service"])
    }

    @Test("the daemon's writer saves and removes the file of a long name")
    func writer() throws {
        let directory = try TemporaryDirectory()
        let writer = StateFileWriter(store: makeStore(directory))
        try writer.save(Self.record(Self.longest, launches: 2))
        #expect(try makeStore(directory).loadAll().records == [Self.record(Self.longest, launches: 2)])
        try writer.remove([Self.longest])
        #expect(directory.list("units") == [])
    }

    @Test("two long names with one prefix have files of their own")
    func sharedPrefix() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        let first = Self.name(bytes: 250, tail: "-1")
        let second = Self.name(bytes: 250, tail: "-2")
        #expect(UnitFileName.stateFile(of: first) != UnitFileName.stateFile(of: second))
        try store.save(Self.record(first, launches: 1))
        try store.save(Self.record(second, launches: 2))
        #expect(directory.list("units").count == 2)
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: first, warnings: &warnings)?.state.launchCount == 1)
        #expect(try store.load(unit: second, warnings: &warnings)?.state.launchCount == 2)
        #expect(try store.loadAll().records.map(\.unit) == [first, second])
        #expect(warnings.isEmpty)
    }

    @Test("a hashed file holding another unit is not taken for either: it is moved aside")
    func contentNamesAnotherUnit() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        let first = Self.name(bytes: 250, tail: "-1")
        let second = Self.name(bytes: 250, tail: "-2")
        try store.save(Self.record(first, launches: 1))
        let firstFile = UnitFileName.stateFile(of: first)
        let secondFile = UnitFileName.stateFile(of: second)
        let copied = try #require(directory.read("units/" + firstFile))
        try directory.write(copied, to: "units/" + secondFile)

        let contents = try store.loadAll()
        #expect(contents.records == [Self.record(first, launches: 1)])
        let path = directory.path + "/units/" + secondFile
        #expect(
            contents.warnings == [
                StateStoreWarning(
                    path: path, unit: nil, action: .movedAside(to: path + ".corrupt-20261121T213000Z"),
                    reason: "it holds the state of \"\(first)\", whose state file is not \(secondFile)"
                )
            ]
        )

        // Asked for by name, the unit's file must hold that unit.
        try directory.write(copied, to: "units/" + secondFile)
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: second, warnings: &warnings) == nil)
        #expect(warnings.map(\.unit) == [second])
        #expect(warnings.first?.reason == "it holds the state of \"\(first)\", not of \"\(second)\"")

        // A hashed name holding a short name's record, and a long name's record under <unit>.json, are no state files
        // of theirs either.
        try directory.write(StateStoreTests.golden, to: "units/" + secondFile)
        try directory.write(copied, to: "units/\(first).json")
        let again = try store.loadAll()
        #expect(again.records == [Self.record(first, launches: 1)])
        #expect(again.warnings.map(\.action).count == 2)
        #expect(again.warnings.contains { $0.path.hasSuffix("/\(first).json") && $0.action == .ignored })
        #expect(directory.text("units/\(first).json") != nil)
    }

    @Test("a corrupt file of a long name is moved aside with the hashed name, by loading it or loading everything")
    func corruptFile() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        try directory.write("{not json", to: "units/" + Self.longestFile)
        let path = directory.path + "/units/" + Self.longestFile
        let contents = try store.loadAll()
        #expect(contents.records == [])
        #expect(contents.warnings.map(\.unit) == [nil])
        #expect(contents.warnings.map(\.action) == [.movedAside(to: path + ".corrupt-20261121T213000Z")])
        #expect(directory.text("units/\(Self.longestFile).corrupt-20261121T213000Z") == "{not json")

        try directory.write("{not json", to: "units/" + Self.longestFile)
        var warnings: [StateStoreWarning] = []
        #expect(try store.load(unit: Self.longest, warnings: &warnings) == nil)
        #expect(warnings.map(\.unit) == [Self.longest])
        #expect(warnings.map(\.action) == [.movedAside(to: path + ".corrupt-20261121T213000Z-2")])
        // A file that still names its unit, whose file name this is, says whose it was: the daemon rebuilds that unit.
        try directory.write(#"{"schema_version": 1, "unit": "\#(Self.longest)"}"#, to: "units/" + Self.longestFile)
        #expect(try store.loadAll().warnings.map(\.unit) == [Self.longest])
        // Moved-aside files are not state files; the unit starts fresh and saves again.
        try store.save(UnitRecord(unit: Self.longest))
        let after = try store.loadAll()
        #expect(after.records == [UnitRecord(unit: Self.longest)] && after.warnings.isEmpty)
    }

    @Test("a temporary file left by an interrupted save of a long name is removed")
    func temporaryFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write("partial", to: "units/.\(Self.longestFile).AbC123")
        let contents = try makeStore(directory).loadAll()
        #expect(contents.warnings.map(\.action) == [.removedTemporaryFile])
        #expect(directory.list("units") == [])
    }

    @Test("a long name's record is archived and comes back")
    func archive() throws {
        let directory = try TemporaryDirectory()
        let archive = UnitArchive(stateDirectory: directory.path)
        let other = Self.name(bytes: 255, fill: "y")
        try archive.append([Self.record(Self.longest, launches: 5), Self.record(other, launches: 1)])
        #expect(try archive.records(of: [Self.longest]) == [Self.record(Self.longest, launches: 5)])
    }
}
