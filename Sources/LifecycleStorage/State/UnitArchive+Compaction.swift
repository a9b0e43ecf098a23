// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine

/// The archive is appended to, never rewritten, except by compaction: a shard that grew large is rewritten with each
/// unit's newest record only, less the records of units gone longer than `archive_retention_days`. Names that never
/// repeat (`run-u123.service`) would otherwise grow the archive for as long as the host runs.
extension UnitArchive {
    /// A shard is compacted once it is larger than this, and than twice what its last compaction left
    /// (``needsCompaction(size:lastCompacted:)``): a shard whose records are all kept is not rewritten at every append.
    public static let compactionSize = 256 << 10

    /// Whether a shard of `size` bytes, which its last compaction (in this process) left at `lastCompacted` bytes, is
    /// compacted now.
    public static func needsCompaction(size: Int, lastCompacted: Int?) -> Bool {
        size > max(compactionSize, 2 * (lastCompacted ?? 0))
    }

    /// Rewrites shard `name` as ``compacted(_:expiredBefore:)`` gives it: to a temporary file, made durable, then
    /// renamed over the shard, so a crash leaves the old shard or the new one.
    ///
    /// - Returns: the shard's size afterwards.
    /// - Throws: ``StateStoreError/io(path:operation:errno:)`` naming the failed step; the shard is then unchanged.
    public func compact(shard name: String, expiredBefore: Milliseconds?) throws(StateStoreError) -> Int {
        guard let bytes = try read(name) else { return 0 }
        let kept = Self.compacted(bytes, expiredBefore: expiredBefore)
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
            try Posix.renameFile(temporary, to: name, in: directoryFD)
            try Posix.sync(directoryFD)
        } catch {
            throw .io(path: directory + "/" + name, operation: "compact (\(error.call))", errno: error.errno)
        }
        return kept.count
    }

    /// The lines of a shard that a compaction keeps, in their order: each unit's newest record, unless the unit's
    /// last activity (``UnitRecord/lastActivity``) is before `expiredBefore` (nil: none expires). A line that does
    /// not parse (cut short by a crash) goes, as reading skips it anyway; one of a newer schema than this build's
    /// stays as it is, since what it holds is not known here.
    public static func compacted(_ bytes: [UInt8], expiredBefore: Milliseconds?) -> [UInt8] {
        var lines: [(range: Range<Int>, unit: String?)] = []
        var newest: [String: Int] = [:]
        var expired: Set<String> = []
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
            if let expiredBefore, (record.lastActivity ?? .min) < expiredBefore {
                expired.insert(record.unit)
            } else {
                expired.remove(record.unit)
            }
        }
        var kept: [UInt8] = []
        for (index, line) in lines.enumerated() {
            if let unit = line.unit, newest[unit] != index || expired.contains(unit) { continue }
            kept += bytes[line.range]
            kept.append(UInt8(ascii: "\n"))
        }
        return kept
    }
}
