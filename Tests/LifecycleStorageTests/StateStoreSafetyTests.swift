// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage
import Testing

import Glibc

/// What the state store refuses to do: downgrade newer files, escape its directory, write when it must not.
struct StateStoreSafetyTests {
    private func makeStore(_ directory: TemporaryDirectory, readOnly: Bool = false) -> StateStore {
        StateStore(directory: directory.path, readOnly: readOnly, clock: { StateStoreTests.now })
    }

    static let newerRecord = StateStoreTests.golden.replacingOccurrences(
        of: #""schema_version" : 1,\#n  "sequence""#,
        with: #""schema_version" : 2,\#n  "sequence""#
    )
    static let newerState = StateStoreTests.golden.replacingOccurrences(
        of: #""schema_version" : 1,\#n    "timestamp_first_launch""#,
        with: #""schema_version" : 99,\#n    "timestamp_first_launch""#
    )

    @Test("the fixtures really change the versions")
    func fixtures() {
        #expect(Self.newerRecord != StateStoreTests.golden)
        #expect(Self.newerState != StateStoreTests.golden)
    }

    @Test("a file from a newer lifecycled is refused on load, on load-all and on save, and left untouched")
    func newerSchemaRefused() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        let path = try directory.write(Self.newerRecord, to: "units/nginx.service.json")
        let refusal = StateStoreError.unsupportedVersion(path: path, key: "schema_version", found: 2, supported: 1)
        var warnings: [StateStoreWarning] = []
        #expect(throws: refusal) { try store.load(unit: "nginx.service", warnings: &warnings) }
        #expect(throws: refusal) { try store.loadAll() }
        #expect(throws: refusal) { try store.save(StateStoreTests.sampleRecord()) }
        #expect(directory.text("units/nginx.service.json") == Self.newerRecord)
        #expect(directory.list("units") == ["nginx.service.json"])
        #expect(warnings.isEmpty)
        #expect(
            refusal.description
                == "\(path): schema_version 2 is newer than the supported version 1; "
                + "refusing to read or overwrite a state file written by a newer lifecycled"
        )
    }

    @Test("a newer engine state inside a current record is refused too")
    func newerStateRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(Self.newerState, to: "units/nginx.service.json")
        let refusal = StateStoreError.unsupportedVersion(
            path: path,
            key: "state.schema_version",
            found: 99,
            supported: 1
        )
        #expect(throws: refusal) { try makeStore(directory).loadAll() }
        #expect(throws: refusal) { try makeStore(directory).save(StateStoreTests.sampleRecord()) }
        #expect(directory.text("units/nginx.service.json") == Self.newerState)
    }

    @Test("a newer version is refused even when the rest of the file no longer decodes")
    func newerSchemaWithNewLayout() throws {
        let directory = try TemporaryDirectory()
        let text = #"{"schema_version": 3, "units": {"nginx.service": {}}}"#
        let path = try directory.write(text, to: "units/nginx.service.json")
        #expect(throws: StateStoreError.unsupportedVersion(path: path, key: "schema_version", found: 3, supported: 1)) {
            try makeStore(directory).loadAll()
        }
        #expect(directory.text("units/nginx.service.json") == text)
    }

    static let invalidNames: [(String, String)] = [
        ("", "the name is empty"),
        (".", "\".\" is not a unit name"),
        ("..", "\"..\" is not a unit name"),
        ("../../etc/passwd", "the name contains '/'"),
        ("a/b.service", "the name contains '/'"),
        (".hidden.service", "the name starts with '.'"),
        ("bad\nname.service", "the name contains a control character"),
        ("del\u{7F}.service", "the name contains a control character"),
        ("é\u{1F}.service", "the name contains a control character"),
        (String(repeating: "x", count: 256), "the name is longer than 255 bytes, systemd's limit for unit names"),
    ]

    @Test("invalid unit names are refused before they touch the file system", arguments: invalidNames)
    func refusesInvalidName(_ name: String, _ reason: String) throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        let refusal = StateStoreError.invalidUnitName(name, reason: reason)
        var warnings: [StateStoreWarning] = []
        #expect(throws: refusal) { try store.save(UnitRecord(unit: name)) }
        #expect(throws: refusal) { try store.load(unit: name, warnings: &warnings) }
        #expect(throws: refusal) { try store.path(forUnit: name) }
        #expect(throws: refusal) { try StateFileWriter(store: store).save(UnitRecord(unit: name)) }
        #expect(directory.list() == [])
    }

    @Test("names with characters beyond ASCII, '.' and '~' inside are kept as they are")
    func acceptsOtherNames() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        let names = ["é-漢字.service", "a.b.service", "x~y.service", "\u{80}\u{FFFF}.service"]
        for name in names {
            try StateFileWriter(store: store).save(UnitRecord(unit: name))
            #expect(try store.path(forUnit: name) == store.unitsDirectory + "/" + name + ".json")
        }
        #expect(try store.loadAll().records.map(\.unit).sorted() == names.sorted())
    }

    @Test("the longest name kept as <unit>.json fits every file name the store makes; one byte more is hashed")
    func longestName() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        let name = String(repeating: "x", count: 214) + ".service"
        try store.save(UnitRecord(unit: name))
        try directory.write("corrupt", to: "units/\(name).json")
        #expect(try store.loadAll().warnings.count == 1)
        try directory.write("corrupt", to: "units/\(name).json")
        #expect(try store.loadAll().warnings.count == 1)
        try store.save(UnitRecord(unit: "y" + name))
        #expect(!directory.list("units").contains("y\(name).json"))
        #expect(try store.loadAll().records.map(\.unit) == ["y" + name])
    }

    @Test("escaped and template unit names are ordinary file names")
    func escapedNames() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        let names = [#"dev-disk-by\x2did-ata.device"#, "getty@tty1.service", "user-1000.slice", "a:b.service"]
        for name in names { try store.save(UnitRecord(unit: name)) }
        #expect(
            try store.loadAll().records.map(\.unit)
                == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        )
    }

    @Test("a state directory that cannot be created gives an error naming the path and the errno")
    func blockedDirectory() throws {
        let directory = try TemporaryDirectory()
        let blocker = try directory.write("not a directory", to: "state")
        let store = StateStore(directory: blocker)
        let expected = StateStoreError.io(path: blocker + "/units", operation: "create directory", errno: ENOTDIR)
        #expect(throws: expected) { try store.save(StateStoreTests.sampleRecord()) }
        #expect(expected.description == "Failed to create directory \(blocker)/units: Not a directory (ENOTDIR)")
    }

    @Test("an unwritable units directory gives an error and leaves no temporary file", .enabled(if: getuid() != 0))
    func unwritableDirectory() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        try store.save(StateStoreTests.sampleRecord())
        chmod(directory.path + "/units", 0o555)
        let path = directory.path + "/units/nginx.service.json"
        #expect(throws: StateStoreError.io(path: path, operation: "create a temporary file for", errno: EACCES)) {
            try store.save(StateStoreTests.sampleRecord())
        }
        chmod(directory.path + "/units", 0o755)
        #expect(directory.list("units") == ["nginx.service.json"])
    }

    @Test("a read-only store leaves corrupt and temporary files alone and refuses to save")
    func readOnly() throws {
        let directory = try TemporaryDirectory()
        try directory.write("{oops", to: "units/nginx.service.json")
        try directory.write("{}", to: "units/.nginx.service.json.Ab12Cd")
        let store = makeStore(directory, readOnly: true)
        let contents = try store.loadAll()
        let path = directory.path + "/units/nginx.service.json"
        #expect(contents.records.isEmpty)
        #expect(contents.warnings.map(\.action) == [.leftInPlace])
        #expect(contents.warnings.first?.path == path)
        #expect(directory.list("units") == [".nginx.service.json.Ab12Cd", "nginx.service.json"])
        #expect(throws: StateStoreError.readOnly(path: path)) { try store.save(StateStoreTests.sampleRecord()) }
    }

    @Test("stray files in the units directory are ignored or reported, never loaded")
    func strayFiles() throws {
        let directory = try TemporaryDirectory()
        let store = makeStore(directory)
        try store.save(StateStoreTests.sampleRecord())
        try directory.write("notes", to: "units/README")
        try directory.write("{}", to: "units/" + String(repeating: "z", count: 230) + ".json")
        let contents = try store.loadAll()
        #expect(contents.records == [StateStoreTests.sampleRecord()])
        #expect(contents.warnings.map(\.action) == [.ignored])
    }
}
