// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage
import Testing

import Glibc

/// Compacting a shard of the archive: each unit's newest record, less those of units gone longer than the retention.
struct UnitArchiveCompactionTests {
    /// A record of `unit`, numbered `sequence`, whose last sleep was at `lastSleep` (ms).
    func record(_ unit: String, sequence: UInt64, lastSleep: Milliseconds?) -> UnitRecord {
        var state = UnitState()
        state.lastSleep = lastSleep
        return UnitRecord(unit: unit, state: state, runEnded: true, sequence: sequence)
    }

    func line(_ record: UnitRecord) -> [UInt8] {
        var writer = JSONLayoutWriter(.compact)
        record.write(to: &writer)
        return writer.bytes + [UInt8(ascii: "\n")]
    }

    /// The units and sequence numbers of a shard's lines, in order; "?" for a line that is no record of this build.
    func contents(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: UInt8(ascii: "\n")).map { line in
            let text = String(decoding: line, as: UTF8.self)
            guard let unit = text.firstMatch(of: /"unit":"([^"]+)"/)?.1,
                  let sequence = text.firstMatch(of: /"sequence":(\d+)/)?.1
            else { return "?" }
            return "\(unit)#\(sequence)"
        }
    }

    @Test("each unit's newest record stays, in order; expired units, older lines and cut lines go; a newer schema's line stays")
    func compacted() {
        let newer = Array(#"{"schema_version":99,"unit":"future.service"}"#.utf8) + [UInt8(ascii: "\n")]
        let cut = Array(#"{"invocation_id":"aaaa","schema_version":1,"sequence":3,"state":{"#.utf8) + [UInt8(ascii: "\n")]
        let shard = line(record("a.service", sequence: 1, lastSleep: 1_000)) + line(record("b.service", sequence: 1, lastSleep: 500))
            + newer + line(record("a.service", sequence: 2, lastSleep: 2_000)) + cut
            + line(record("c.service", sequence: 5, lastSleep: nil))
            + line(record("b.service", sequence: 2, lastSleep: 900)) + line(record("d.service", sequence: 1, lastSleep: 100))
            + line(record("d.service", sequence: 2, lastSleep: 5_000))
        #expect(contents(UnitArchive.compacted(shard, expiredBefore: nil, journalHeldSince: nil)) == [
            "?", "a.service#2", "c.service#5", "b.service#2", "d.service#2",
        ])
        #expect(contents(UnitArchive.compacted(shard, expiredBefore: 1_000, journalHeldSince: nil)) == [
            "?", "a.service#2", "d.service#2",
        ], "b's newest is before the cut-off; c was never active; d's older line was, its newest is not; a journal of unknown age keeps no tombstone")
        let kept = UnitArchive.compacted(shard, expiredBefore: 1_000, journalHeldSince: nil)
        #expect(UnitArchive.compacted(kept, expiredBefore: 1_000, journalHeldSince: nil) == kept, "compacting twice changes nothing")
    }

    @Test("an expired unit leaves a tombstone of its sequence while the journal may hold its dispatches, then none")
    func tombstones() throws {
        var full = record("a.service", sequence: 9, lastSleep: 800)
        full.crashResults = ["exit-code": 2]
        let shard = line(full) + line(record("b.service", sequence: 3, lastSleep: 5_000))
        let kept = UnitArchive.compacted(shard, expiredBefore: 1_000, journalHeldSince: 700)
        #expect(contents(kept) == ["a.service#9", "b.service#3"])
        let first = try #require(kept.split(separator: UInt8(ascii: "\n")).first)
        let tombstone = try JSONDecoder().decode(UnitRecord.self, from: Data(first))
        #expect(tombstone == UnitRecord(unit: "a.service", sequence: 9, retired: 800), "the sequence only, and when")
        #expect(UnitArchive.compacted(kept, expiredBefore: 1_000, journalHeldSince: 700) == kept, "kept as it is")
        #expect(contents(UnitArchive.compacted(kept, expiredBefore: 1_000, journalHeldSince: 801)) == ["b.service#3"],
            "the journal no longer holds anything that old: it goes")
        #expect(contents(UnitArchive.compacted(kept, expiredBefore: nil, journalHeldSince: nil)) == ["b.service#3"])
    }

    @Test("a compacted shard is found as before, and its expired units are gone")
    func onDisk() throws {
        let directory = try TemporaryDirectory()
        let archive = UnitArchive(stateDirectory: directory.path)
        // Two units of one shard: find a second name that hashes with the first.
        let first = "run-u0.service"
        let shard = archive.shardPath(of: first)
        let second = try #require((1...10_000).lazy.map { "run-u\($0).service" }.first { archive.shardPath(of: $0) == shard })
        try archive.append([record(first, sequence: 1, lastSleep: 10)])
        try archive.append([record(first, sequence: 2, lastSleep: 20), record(second, sequence: 7, lastSleep: 5_000)])
        let name = String(shard.split(separator: "/").last!)
        let size = try archive.compact(shard: name, expiredBefore: 1_000, journalHeldSince: nil)
        #expect(try archive.records(of: [first]).isEmpty, "expired")
        #expect(try archive.records(of: [second]).map(\.sequence) == [7])
        var info = stat()
        #expect(stat(shard, &info) == 0 && Int(info.st_size) == size)
        #expect(access(shard + ".compacting", F_OK) != 0, "no temporary file left")
    }

    @Test("append tells each shard's size; a shard is compacted past 256 KiB and twice what its last compaction left")
    func whenToCompact() throws {
        let directory = try TemporaryDirectory()
        let archive = UnitArchive(stateDirectory: directory.path)
        let sizes = try archive.append([record("web.service", sequence: 1, lastSleep: 1)])
        let name = String(archive.shardPath(of: "web.service").split(separator: "/").last!)
        #expect(sizes.keys.sorted() == [name])
        #expect(sizes[name] == line(record("web.service", sequence: 1, lastSleep: 1)).count)
        #expect(!UnitArchive.needsCompaction(size: 200_000, lastCompacted: nil))
        #expect(UnitArchive.needsCompaction(size: 300_000, lastCompacted: nil))
        #expect(!UnitArchive.needsCompaction(size: 300_000, lastCompacted: 200_000), "mostly kept records: not again yet")
        #expect(UnitArchive.needsCompaction(size: 400_001, lastCompacted: 200_000))
    }
}
