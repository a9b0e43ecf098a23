// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
@testable import LifecycleStorage
import Testing

/// The archive's index of names (`NN.names`): it rules out a name without reading the shard, and whatever happens
/// around it (a crash between the index and the shard, an older lifecycled appending without it, a compaction, a
/// damaged index), a look finds exactly what reading the whole shard finds.
struct UnitArchiveNameIndexTests {
    func record(_ unit: String, sequence: UInt64) -> UnitRecord {
        var state = UnitState()
        state.totalLaunchCount = Int(sequence)
        return UnitRecord(
            unit: unit, state: state, invocationID: String(repeating: "b", count: 32), runEnded: true,
            sequence: sequence
        )
    }

    func line(_ record: UnitRecord) -> [UInt8] {
        var writer = JSONLayoutWriter(.compact)
        record.write(to: &writer)
        return writer.bytes + [UInt8(ascii: "\n")]
    }

    /// Appends `bytes` to `path` as an older lifecycled would: without the index.
    func appendRaw(_ bytes: [UInt8], to path: String) {
        mkdir(String(path[..<path.lastIndex(of: "/")!]), 0o755)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
        precondition(fd >= 0, "open \(path)")
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    func contents(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        return (try? Posix.readAll(fd, limit: 1 << 30)) ?? []
    }

    @Test("a line's unit name hashes as the name itself does, escapes and all")
    func hashes() {
        for name in ["web.service", #"we"ird\name.service"#, "naïve-ü.service", "run-u1.service"] {
            let bytes = line(record(name, sequence: 3))
            #expect(ArchiveNameIndex.hashes(ofLinesIn: bytes) == [ArchiveNameIndex.hash(of: name)], "\(name)")
        }
        let index = ArchiveNameIndex(coverage: .init(inode: 42, size: 1_000, tail: 7), hashes: [1, 2, .max])
        #expect(ArchiveNameIndex(index.bytes) == index)
        #expect(ArchiveNameIndex(Array(index.bytes.dropLast(3)))?.hashes == [1, 2], "a torn last hash is left out")
        #expect(ArchiveNameIndex(Array("LCNY".utf8) + index.bytes.dropFirst(4)) == nil)
    }

    @Test("a name the index does not hold is ruled out without reading the shard")
    func rulesOut() throws {
        let directory = try TemporaryDirectory()
        let archive = UnitArchive(stateDirectory: directory.path, indexedShardSize: 0)
        let unit = "run-u100.service"
        let shard = archive.shardPath(of: unit)
        let indexPath = directory.path + "/archive/"
            + ArchiveNameIndex.fileName(ofShard: String(shard.split(separator: "/").last!))
        try archive.append([record(unit, sequence: 5)])
        #expect(try archive.records(of: [unit]).map(\.sequence) == [5])
        // The index emptied of its names, its coverage kept: believed, it rules the unit out.
        var index = try #require(ArchiveNameIndex(contents(indexPath)))
        #expect(index.hashes == [ArchiveNameIndex.hash(of: unit)])
        index.hashes = []
        let fd = open(indexPath, O_WRONLY | O_TRUNC)
        _ = index.bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #expect(try archive.records(of: [unit]).isEmpty, "ruled out by the index")
        #expect(try UnitArchive(stateDirectory: directory.path).records(of: [unit]).map(\.sequence) == [5],
                "a shard under 64 KB is read whole, its index unread")
        // Without the index, the shard is read whole.
        unlink(indexPath)
        #expect(try archive.records(of: [unit]).map(\.sequence) == [5])
    }

    /// What can happen to a shard and its index.
    enum Step: CaseIterable {
        case append, appendWithoutIndex, crashAfterIndex, tornLine, compact, removeIndex, damageIndex
    }

    @Test("whatever happens to the shards and their indexes, a look finds what reading the whole shard finds",
          arguments: 1...24)
    func matchesWholeRead(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let directory = try TemporaryDirectory()
        // Half the seeds index every shard; the others only those past a few records, so that shards cross the size.
        let archive = UnitArchive(stateDirectory: directory.path, indexedShardSize: seed % 2 == 0 ? 0 : 1_500)
        // Names of two shards, so that they share files; and names never archived, of the same shards.
        let first = archive.shardPath(of: "unit-0.service")
        let second = try #require(
            (1...10_000).lazy.map { "unit-\($0).service" }.map(archive.shardPath(of:)).first { $0 != first }
        )
        let names = (0...20_000).lazy.map { "unit-\($0).service" }
            .filter { [first, second].contains(archive.shardPath(of: $0)) }
        let pool = Array(names.prefix(12))
        let never = Array(names.dropFirst(12).prefix(6))
        var sequence: UInt64 = 0
        for _ in 0..<40 {
            let step = Step.allCases.randomElement(using: &random)!
            let shard = [first, second].randomElement(using: &random)!
            let shardName = String(shard.split(separator: "/").last!)
            let indexPath = directory.path + "/archive/" + ArchiveNameIndex.fileName(ofShard: shardName)
            let batch = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                sequence += 1
                return record(pool.randomElement(using: &random)!, sequence: sequence)
            }
            switch step {
            case .append:
                try archive.append(batch)
            case .appendWithoutIndex:
                for record in batch { appendRaw(line(record), to: archive.shardPath(of: record.unit)) }
            case .crashAfterIndex:
                // The index made to name the lines, and the crash before they reach the shard.
                let lines = batch.filter { archive.shardPath(of: $0.unit) == shard }.flatMap(line)
                try? Posix.makeDirectory(directory.path + "/archive", mode: 0o755)
                let fd = open(shard, O_RDWR | O_APPEND | O_CREAT, 0o644)
                let size = contents(shard).count
                archive.indexAppend(lines, toShard: shardName, shardFD: fd, size: size)
                close(fd)
            case .tornLine:
                appendRaw(Array(line(batch[0]).prefix(40)), to: shard)
            case .compact:
                if access(shard, F_OK) == 0 {
                    _ = try archive.compact(shard: shardName, expiredBefore: nil, journalHeldSince: nil)
                }
            case .removeIndex:
                unlink(indexPath)
            case .damageIndex:
                let fd = open(indexPath, O_WRONLY)
                if fd >= 0 {
                    var byte = UInt8.random(in: 0...255, using: &random)
                    _ = pwrite(fd, &byte, 1, off_t(Int.random(in: 0..<ArchiveNameIndex.headerSize, using: &random)))
                    close(fd)
                }
            }
            for name in pool + never {
                let whole = UnitArchive.newestRecord(of: name, in: contents(archive.shardPath(of: name)))
                let found = try archive.records(of: [name])
                #expect(found == (whole.map { [$0] } ?? []), "seed \(seed), after \(step): \(name)")
            }
        }
    }
}
