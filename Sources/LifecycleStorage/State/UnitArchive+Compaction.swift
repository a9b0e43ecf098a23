// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine

/// The archive is appended to, never rewritten, except by compaction: a shard that grew large is rewritten with each
/// unit's newest record only, the records of units gone longer than `archive_retention_days` cut to their tombstones
/// (``UnitRecord/retired``), and tombstones older than the journal's oldest entry left out. Names that never repeat
/// (`run-u123.service`) would otherwise grow the archive for as long as the host runs.
extension UnitArchive {
    /// A shard is compacted once it is larger than this, and than twice what its last compaction left
    /// (``needsCompaction(size:lastCompacted:)``): a shard whose records are all kept is not rewritten at every append.
    public static let compactionSize = 256 << 10

    /// Whether a shard of `size` bytes, which its last compaction (in this process) left at `lastCompacted` bytes, is
    /// compacted now.
    public static func needsCompaction(size: Int, lastCompacted: Int?) -> Bool {
        size > max(compactionSize, 2 * (lastCompacted ?? 0))
    }

    /// Rewrites shard `name` as ``compacted(_:expiredBefore:journalHeldSince:)`` gives it: to a temporary file, made
    /// durable, then renamed over the shard, so a crash leaves the old shard or the new one.
    ///
    /// - Returns: the shard's size afterwards.
    /// - Throws: ``StateStoreError/io(path:operation:errno:)`` naming the failed step; the shard is then unchanged.
    public func compact(
        shard name: String, expiredBefore: Milliseconds?, journalHeldSince: Milliseconds?
    ) throws(StateStoreError) -> Int {
        guard let bytes = try read(name) else { return 0 }
        let kept = Self.compacted(bytes, expiredBefore: expiredBefore, journalHeldSince: journalHeldSince)
        let temporary = name + ".compacting"
        do {
            let directoryFD = try Posix.openFile(directory, flags: O_RDONLY | O_DIRECTORY)
            defer { Posix.closeIgnoringErrors(directoryFD) }
            let fd = try Posix.openFile(
                temporary, relativeTo: directoryFD, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: StateStore.fileMode
            )
            defer { Posix.closeIgnoringErrors(fd) }
            try Posix.writeAll(fd, kept)
            try Posix.sync(fd)
            indexCompacted(kept, shard: name, shardFD: fd, directoryFD: directoryFD)
            try Posix.renameFile(temporary, to: name, in: directoryFD)
            try Posix.sync(directoryFD)
        } catch {
            throw .io(path: directory + "/" + name, operation: "compact (\(error.call))", errno: error.errno)
        }
        return kept.count
    }

    /// The lines of a shard that a compaction keeps, in their order: each unit's newest record, cut to its tombstone
    /// (``UnitRecord/tombstone``) when the unit's last activity (``UnitRecord/lastActivity``) is before
    /// `expiredBefore` (nil: none expires). A tombstone stays while the journal may hold the unit's dispatches: its
    /// time is not before `journalHeldSince`, the journal's oldest entry (nil when unknown: it goes, as nothing says
    /// the journal holds them). A line that does not parse (cut short by a crash) goes, as reading skips it anyway;
    /// one of a newer schema than this build's stays as it is, since what it holds is not known here.
    public static func compacted(_ bytes: [UInt8], expiredBefore: Milliseconds?, journalHeldSince: Milliseconds?) -> [UInt8] {
        var lines: [(range: Range<Int>, unit: String?)] = []
        var newest: [String: Int] = [:]
        var expired: [String: UnitRecord] = [:]
        var start = 0
        while start < bytes.count {
            let end = lineEnd(in: bytes, from: start)
            defer { start = end + 1 }
            guard end > start, case .success(let document) = StateFileDecoder.parse(Array(bytes[start..<end])) else {
                continue
            }
            guard (try? StateFileDecoder.checkVersions(document, path: "")) != nil else {
                lines.append((start..<end, nil))
                continue
            }
            guard let record = try? UnitRecord(stateFile: StateFileObject(document)) else { continue }
            newest[record.unit] = lines.count
            lines.append((start..<end, record.unit))
            if record.retired != nil || expiredBefore.map({ (record.lastActivity ?? .min) < $0 }) == true {
                expired[record.unit] = record.tombstone
            } else {
                expired.removeValue(forKey: record.unit)
            }
        }
        var kept: [UInt8] = []
        for (index, line) in lines.enumerated() {
            if let unit = line.unit, newest[unit] != index { continue }
            if let unit = line.unit, let tombstone = expired[unit] {
                guard let heldSince = journalHeldSince, (tombstone.retired ?? .min) >= heldSince else { continue }
                var writer = JSONLayoutWriter(.compact)
                tombstone.write(to: &writer)
                kept += writer.bytes
            } else {
                kept += bytes[line.range]
            }
            kept.append(UInt8(ascii: "\n"))
        }
        return kept
    }
}
