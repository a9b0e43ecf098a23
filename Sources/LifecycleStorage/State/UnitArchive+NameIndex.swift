// SPDX-License-Identifier: Apache-2.0

import Glibc

/// Keeping each shard's index of names (``ArchiveNameIndex``) and reading it first.
///
/// The index never makes a record go missing: it is written, and made durable, before the shard's lines it names,
/// its coverage last, so whenever it covers the shard as it is it names every line of it (or more). Whatever fails
/// around it leaves an index that does not cover its shard, which is then read whole. So no step of it fails an
/// append: a failed index only costs reads.
extension UnitArchive {
    /// A shard smaller than this is read whole, its index left unread: both cost about the same.
    public static let indexedShardSize = 64 << 10

    /// The units of `units` the index of shard `name` (open as `fd`) may hold (all of them may be in the shard when it
    /// says so); nil when the shard is small, or no index covers it: the shard must then be read.
    func indexedUnits(_ units: [String], inShard name: String, open fd: CInt) -> [String]? {
        guard let info = try? Posix.status(of: fd), Int(info.st_size) > indexedShardSize,
              let shard = try? Self.coverage(
                  of: fd, inode: UInt64(info.st_ino), size: Int(info.st_size), appending: []
              ),
              let index = try? readIndex(ofShard: name),
              let held = ArchiveNameIndex.holds(units.map(ArchiveNameIndex.hash(of:)), in: index, shard: shard)
        else { return nil }
        return zip(units, held).compactMap { $1 ? $0 : nil }
    }

    /// The coverage of the shard open as `fd`, `size` bytes now, once `appended` is written after them.
    private static func coverage(
        of fd: CInt, inode: UInt64, size: Int, appending appended: [UInt8]
    ) throws(SystemCallError) -> ArchiveNameIndex.Coverage {
        let before = max(0, min(size, ArchiveNameIndex.tailLength - appended.count))
        let tail = try Posix.read(fd, count: before, at: size - before) + appended.suffix(ArchiveNameIndex.tailLength)
        return ArchiveNameIndex.Coverage(
            inode: inode, size: UInt64(size + appended.count), tail: ArchiveNameIndex.fnv1a(tail[...])
        )
    }

    /// The bytes of shard `name`'s index; nil when it has none.
    private func readIndex(ofShard name: String) throws(SystemCallError) -> [UInt8]? {
        let fd: CInt
        do {
            fd = try Posix.openFile(directory + "/" + ArchiveNameIndex.fileName(ofShard: name), flags: O_RDONLY)
        } catch where error.errno == ENOENT {
            return nil
        }
        defer { Posix.closeIgnoringErrors(fd) }
        return try Posix.readAll(fd, limit: Self.maximumShardSize / 8)
    }

    /// Makes the index of shard `name` name the lines of `appended` too, before it is appended to the shard (open as
    /// `shardFD`, `size` bytes now): the hashes are appended and made durable, then the coverage after the append. An
    /// index that does not cover the shard as it is now is made again from the whole shard. A shard that stays under
    /// ``indexedShardSize`` gets none.
    func indexAppend(_ appended: [UInt8], toShard name: String, shardFD: CInt, size: Int) {
        // A shard read whole needs no index: the append that makes it larger makes the index from all of it.
        // Nor does one too large to be read (``maximumShardSize``): its index would not be made from it.
        guard size + appended.count > indexedShardSize, size <= Self.maximumShardSize else { return }
        let added = ArchiveNameIndex.hashes(ofLinesIn: appended)
        do throws(SystemCallError) {
            let inode = UInt64(try Posix.status(of: shardFD).st_ino)
            let now = try Self.coverage(of: shardFD, inode: inode, size: size, appending: [])
            let after = try Self.coverage(of: shardFD, inode: inode, size: size, appending: appended)
            let path = directory + "/" + ArchiveNameIndex.fileName(ofShard: name)
            let fd = try Posix.openFile(path, flags: O_RDWR | O_CREAT, mode: StateStore.fileMode)
            defer { Posix.closeIgnoringErrors(fd) }
            if ArchiveNameIndex.parseHeader(try Posix.read(fd, count: ArchiveNameIndex.headerSize, at: 0)) == now {
                // Past a torn last hash: whole hashes only.
                let end = ArchiveNameIndex.headerSize
                    + (Int(try Posix.status(of: fd).st_size) - ArchiveNameIndex.headerSize) / 8 * 8
                var bytes: [UInt8] = []
                for hash in added { ArchiveNameIndex.append(hash, to: &bytes) }
                try Posix.write(fd, bytes, at: end)
            } else {
                // Made again: the whole shard's names and the new ones, covering nothing until the end.
                let shard = try Posix.read(shardFD, count: size, at: 0)
                let index = ArchiveNameIndex(
                    coverage: .init(inode: 0, size: 0, tail: 0),
                    hashes: ArchiveNameIndex.hashes(ofLinesIn: shard) + added
                )
                try Posix.truncate(fd, to: 0)
                try Posix.write(fd, index.bytes, at: 0)
            }
            try Posix.sync(fd)
            try Posix.write(fd, ArchiveNameIndex.header(after), at: 0)
            try Posix.sync(fd)
        } catch {
            // The index does not cover the shard after the append: the shard is read whole until the next one.
        }
    }

    /// Writes the index of a compacted shard (`kept`, in the file `shardFD` that is about to replace shard `name`) and
    /// renames it over the old index, before the shard is renamed: a crash between the two leaves an index of
    /// another file, which covers nothing.
    func indexCompacted(_ kept: [UInt8], shard name: String, shardFD: CInt, directoryFD: CInt) {
        do throws(SystemCallError) {
            let inode = UInt64(try Posix.status(of: shardFD).st_ino)
            let index = ArchiveNameIndex(
                coverage: try Self.coverage(of: shardFD, inode: inode, size: 0, appending: kept),
                hashes: ArchiveNameIndex.hashes(ofLinesIn: kept)
            )
            let indexName = ArchiveNameIndex.fileName(ofShard: name)
            let temporary = indexName + ".compacting"
            let fd = try Posix.openFile(
                temporary, relativeTo: directoryFD, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: StateStore.fileMode
            )
            defer { Posix.closeIgnoringErrors(fd) }
            try Posix.writeAll(fd, index.bytes)
            try Posix.sync(fd)
            try Posix.renameFile(temporary, to: indexName, in: directoryFD)
        } catch {
            // The old index names the old file: it covers nothing once the shard is renamed.
        }
    }
}
