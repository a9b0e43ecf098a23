// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// `NN.names` beside an archive shard `NN.jsonl`: a 64-bit hash of the unit name of every line the shard holds, so
/// that looking for a name the archive does not hold (every new unit's, which a churn of names that never repeat
/// brings each second) reads a few bytes per record instead of the whole shard (docs/PERFORMANCE.md, "A new name's
/// look in the archive, with an index of names").
///
/// The index only ever says "not here" for sure: a hash found sends the look to the shard, so a collision costs a
/// read, never a record. It is trusted only while it covers the shard exactly: its header holds the shard's inode, the
/// size it covers and a hash of the shard's last bytes (``Coverage``). A shard appended to without it (a crash between
/// the two, an older lifecycled after a downgrade) or rewritten (a compaction) no longer matches, and is read whole,
/// as it was without an index, until its next append makes the index again. (The last bytes tell apart lines of the
/// same length: a crash after the index named some, and an older lifecycled appending others.)
///
/// Layout, little-endian: `LCNX`, the version (1), the shard's inode, the size covered, the hash of its last bytes,
/// then one hash per line.
struct ArchiveNameIndex: Equatable {
    /// What of the shard an index covers.
    struct Coverage: Equatable {
        var inode: UInt64
        /// The shard's size, in bytes.
        var size: UInt64
        /// ``ArchiveNameIndex/fnv1a(_:)`` of the shard's last ``tailLength`` bytes (all of a shorter one).
        var tail: UInt64
    }

    var coverage: Coverage
    var hashes: [UInt64]

    /// How many of a shard's last bytes its coverage hashes: most of a record's line.
    static let tailLength = 64

    static let magic = Array("LCNX".utf8)
    static let version: UInt32 = 1
    static let headerSize = 32

    /// The name of the index of shard `shard` (`NN.jsonl` → `NN.names`).
    static func fileName(ofShard shard: String) -> String {
        (shard.hasSuffix(".jsonl") ? String(shard.dropLast(".jsonl".count)) : shard) + ".names"
    }

    /// The hash of `unit`, as its lines hold it.
    static func hash(of unit: String) -> UInt64 {
        fnv1a(member(of: unit)[...])
    }

    /// `"unit":"<name>"`, escaped as a record's line holds it (`UnitRecord.write(to:)`, compact).
    static func member(of unit: String) -> [UInt8] {
        var writer = JSONLayoutWriter(.compact)
        writer.beginObject()
        writer.member("unit", unit)
        return Array(writer.bytes.dropFirst())
    }

    /// The hash of the unit name of each line of `bytes` that has one: its last `"unit":"…"` member (a record's keys
    /// are sorted, and only `update_count`, a number, follows `unit`, so the last such bytes are the top-level name's).
    static func hashes(ofLinesIn bytes: [UInt8]) -> [UInt64] {
        var hashes: [UInt64] = []
        var start = 0
        while start < bytes.count {
            let end = UnitArchive.lineEnd(in: bytes, from: start)
            if let member = lastUnitMember(in: bytes[start..<end]) { hashes.append(fnv1a(member)) }
            start = end + 1
        }
        return hashes
    }

    private static let memberStart = Array(#""unit":""#.utf8)

    /// The bytes of the line's last `"unit":"…"` member, its closing quote included; nil for a line without one.
    static func lastUnitMember(in line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var candidate = line.endIndex - memberStart.count
        while candidate >= line.startIndex {
            if line[candidate] == UInt8(ascii: "\""),
               line[candidate..<(candidate + memberStart.count)].elementsEqual(memberStart) {
                var index = candidate + memberStart.count
                while index < line.endIndex {
                    switch line[index] {
                    case UInt8(ascii: "\\"): index += 2
                    case UInt8(ascii: "\""): return line[candidate...index]
                    default: index += 1
                    }
                }
                return nil
            }
            candidate -= 1
        }
        return nil
    }

    /// 64-bit FNV-1a: stable across builds and machines.
    static func fnv1a(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The header and the hashes, as the file holds them.
    var bytes: [UInt8] {
        var bytes = Self.header(coverage)
        bytes.reserveCapacity(Self.headerSize + 8 * hashes.count)
        for hash in hashes { Self.append(hash, to: &bytes) }
        return bytes
    }

    static func header(_ coverage: Coverage) -> [UInt8] {
        var bytes = magic
        withUnsafeBytes(of: version.littleEndian) { bytes.append(contentsOf: $0) }
        append(coverage.inode, to: &bytes)
        append(coverage.size, to: &bytes)
        append(coverage.tail, to: &bytes)
        return bytes
    }

    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    init(coverage: Coverage, hashes: [UInt64]) {
        self.coverage = coverage
        self.hashes = hashes
    }

    /// The index a file holds; nil for one that is not an index of this version (it is then made again). Bytes after
    /// the last whole hash are left out.
    init?(_ bytes: [UInt8]) {
        guard let header = Self.parseHeader(bytes) else { return nil }
        coverage = header
        let count = (bytes.count - Self.headerSize) / 8
        hashes = bytes.withUnsafeBytes { raw in
            (0..<count).map {
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: Self.headerSize + 8 * $0, as: UInt64.self))
            }
        }
    }

    /// The coverage a header holds.
    static func parseHeader(_ bytes: [UInt8]) -> Coverage? {
        guard bytes.count >= headerSize, bytes[0..<4].elementsEqual(magic) else { return nil }
        return bytes.withUnsafeBytes { raw in
            guard UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) == version else {
                return nil
            }
            func field(_ offset: Int) -> UInt64 {
                UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            }
            return Coverage(inode: field(8), size: field(16), tail: field(24))
        }
    }

    /// Which of `wanted` the index file `bytes` holds, read in place; nil when `bytes` is no index covering `shard`
    /// as it is (the shard is then read whole).
    static func holds(_ wanted: [UInt64], in bytes: [UInt8], shard: Coverage) -> [Bool]? {
        guard parseHeader(bytes) == shard else { return nil }
        var held = [Bool](repeating: false, count: wanted.count)
        bytes.withUnsafeBytes { raw in
            var offset = headerSize
            while offset + 8 <= raw.count {
                let hash = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                for (index, want) in wanted.enumerated() where want == hash { held[index] = true }
                offset += 8
            }
        }
        return held
    }
}
