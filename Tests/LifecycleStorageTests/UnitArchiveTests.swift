// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage
import Testing

import Glibc

/// The archive of units systemd unloaded: appended in shards, found by name, the newest line of a unit winning.
struct UnitArchiveTests {
    func record(_ unit: String, sequence: UInt64, launches: Int = 1) -> UnitRecord {
        var state = UnitState()
        state.totalLaunchCount = launches
        return UnitRecord(unit: unit, state: state, invocationID: String(repeating: "a", count: 32), runEnded: true, sequence: sequence)
    }

    @Test("records come back as they were archived; units never archived are not found")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let archive = UnitArchive(stateDirectory: directory.path)
        #expect(try archive.records(of: ["web.service"]).isEmpty, "no archive yet")
        var web = record("web.service", sequence: 4, launches: 2)
        web.updateCount = 3  // written after "unit"
        let job = record("run-u42.service", sequence: 2)
        try archive.append([web, job])
        #expect(try archive.records(of: ["web.service"]) == [web])
        let found = try archive.records(of: ["run-u42.service", "web.service", "other.service"])
        #expect(found.sorted { $0.unit < $1.unit } == [job, web])
    }

    @Test("a unit archived twice: its newest line is its record")
    func newestWins() throws {
        let directory = try TemporaryDirectory()
        let archive = UnitArchive(stateDirectory: directory.path)
        try archive.append([record("web.service", sequence: 2)])
        try archive.append([record("web.service", sequence: 9)])
        #expect(try archive.records(of: ["web.service"]).map(\.sequence) == [9])
    }

    @Test("a line cut short by a crash is skipped; the lines before it still count")
    func partialLine() throws {
        let directory = try TemporaryDirectory()
        let archive = UnitArchive(stateDirectory: directory.path)
        try archive.append([record("web.service", sequence: 2)])
        let path = archive.shardPath(of: "web.service")
        let fd = open(path, O_WRONLY | O_APPEND)
        #expect(fd >= 0)
        let cut = Array(#"{"invocation_id":"aaaa","schema_version":1,"sequence":3,"state":{"#.utf8)
        _ = cut.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #expect(try archive.records(of: ["web.service"]).map(\.sequence) == [2])

        // The next append starts on a line of its own: its record is not glued onto the torn one.
        try archive.append([record("web.service", sequence: 4)])
        #expect(try archive.records(of: ["web.service"]).map(\.sequence) == [4])
    }

    @Test("every archived unit, each from its newest line, across shards; lines that do not parse are skipped")
    func allRecords() throws {
        let directory = try TemporaryDirectory()
        let archive = UnitArchive(stateDirectory: directory.path)
        #expect(try archive.allRecords().isEmpty, "no archive yet")
        try archive.append([record("web.service", sequence: 2), record("run-u1.service", sequence: 1)])
        try archive.append([record("web.service", sequence: 5), record("db.service", sequence: 3)])
        let fd = open(archive.shardPath(of: "db.service"), O_WRONLY | O_APPEND)
        _ = Array("{\"unit\":\"torn".utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        let all = try archive.allRecords()
        #expect(all.map(\.unit) == ["db.service", "run-u1.service", "web.service"])
        #expect(all.map(\.sequence) == [3, 1, 5])
    }

    @Test("a name that only contains another unit's name is not taken for it")
    func exactName() throws {
        let directory = try TemporaryDirectory()
        let archive = UnitArchive(stateDirectory: directory.path)
        try archive.append([record("web.service", sequence: 2)])
        #expect(try archive.records(of: ["eb.service"]).isEmpty)
    }

    @Test("shards are spread by a hash of the name that is the same on every machine")
    func shards() {
        let archive = UnitArchive(stateDirectory: "/var/lib/lifecycled")
        // The 32-bit FNV-1a hash of "web.service" is 0x0ba2e5ec: shard 0xec of 256.
        #expect(archive.shardPath(of: "web.service") == "/var/lib/lifecycled/archive/ec.jsonl")
        let names = (0..<2_000).map { "run-u\($0).service" }
        #expect(Set(names.map(archive.shardPath(of:))).count > 240, "2,000 names use nearly every shard")
    }

    @Test("the state files of archived units are deleted; a unit without one is no error")
    func removeStateFiles() throws {
        let directory = try TemporaryDirectory()
        let store = StateStore(directory: directory.path)
        let writer = StateFileWriter(store: store)
        try writer.save(record("web.service", sequence: 2))
        try writer.remove(["web.service", "never.service"])
        #expect(try store.loadAll().records.isEmpty)
    }
}
