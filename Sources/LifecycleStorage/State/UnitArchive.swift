// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

import Glibc

/// The records of units that systemd no longer has loaded: `<directory>/archive/NN.jsonl`, one compact JSON record
/// (the state file's form) per line, appended.
///
/// Units whose names never repeat (`run-u123.service`, socket-activated `foo@42-….service`) would otherwise keep a
/// record in memory, in the metrics and in the state directory for ever. An archived record leaves all three and comes
/// back when its unit runs again, so that its counters and sequence numbers go on.
///
/// Why this layout:
/// - A unit's lines all go to one of ``shardCount`` files, by a hash of its name, so that finding a unit reads a
///   small part of the archive, and nothing of it is read at start.
/// - Appending is one `write` and one `fsync` per file for a whole batch; nothing is ever rewritten, so a crash
///   leaves at most a partial last line, which reading skips. The next append ends that line first, so that its
///   first record is a line of its own rather than glued to the torn one.
/// - A unit archived again appends a newer line; the last line of a unit is its record.
/// - Beside each shard, `NN.names` holds a hash of each line's unit name (``ArchiveNameIndex``), so that a name the
///   shard does not hold is ruled out without reading it.
public struct UnitArchive: Sendable {
    /// How many files the archive is spread over.
    public static let shardCount = 256
    /// A shard larger than this is not read (it would take a long time and much memory): its units start fresh.
    static let maximumShardSize = 256 << 20

    /// The archive's directory, `<state directory>/archive`.
    public let directory: String

    /// The size from which a shard's index is read before the shard (``indexedUnits(_:inShard:open:)``).
    let indexedShardSize: Int

    /// The archive of the state directory `stateDirectory`. Nothing is read or created until it is used.
    public init(stateDirectory: String) {
        self.init(stateDirectory: stateDirectory, indexedShardSize: Self.indexedShardSize)
    }

    /// With `indexedShardSize` 0, every shard's index is read first (tests).
    init(stateDirectory: String, indexedShardSize: Int) {
        directory = stateDirectory + "/archive"
        self.indexedShardSize = indexedShardSize
    }

    /// The file that holds the lines of `unit`.
    public func shardPath(of unit: String) -> String {
        directory + "/" + Self.shardName(of: unit)
    }

    /// `NN.jsonl`, from the 32-bit FNV-1a hash of the name: stable across builds and machines, unlike `hashValue`.
    static func shardName(of unit: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in unit.utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        let shard = Int(hash % UInt32(shardCount))
        let hex = String(shard, radix: 16)
        return (hex.count == 1 ? "0" + hex : hex) + ".jsonl"
    }

    /// Appends `records`, each as one line of its unit's shard, and makes them durable.
    ///
    /// - Returns: the size of each shard written to, by name, after the append.
    /// - Throws: ``StateStoreError/io(path:operation:errno:)`` naming the file of the failed step; the records of
    ///   the shards written before it are archived, the others are not.
    @discardableResult
    public func append(_ records: [UnitRecord]) throws(StateStoreError) -> [String: Int] {
        guard !records.isEmpty else { return [:] }
        do {
            try Posix.makeDirectory(directory, mode: 0o755)
        } catch {
            throw .io(path: directory, operation: "create directory", errno: error.errno)
        }
        var lines: [String: [UInt8]] = [:]
        for record in records {
            var writer = JSONLayoutWriter(.compact)
            record.write(to: &writer)
            lines[Self.shardName(of: record.unit), default: []] += writer.bytes + [UInt8(ascii: "\n")]
        }
        var sizes: [String: Int] = [:]
        for (name, bytes) in lines.sorted(by: { $0.key < $1.key }) {
            let path = directory + "/" + name
            do {
                let fd = try Posix.openFile(path, flags: O_RDWR | O_APPEND | O_CREAT, mode: StateStore.fileMode)
                defer { Posix.closeIgnoringErrors(fd) }
                let size = Int(try Posix.status(of: fd).st_size)
                let isTorn = try Posix.lastByte(fd).map { $0 != UInt8(ascii: "\n") } ?? false
                let appended = isTorn ? [UInt8(ascii: "\n")] + bytes : bytes
                indexAppend(appended, toShard: name, shardFD: fd, size: size)
                try Posix.writeAll(fd, appended)
                try Posix.sync(fd)
                sizes[name] = size + appended.count
            } catch {
                throw .io(path: path, operation: error.call, errno: error.errno)
            }
        }
        // A shard created just now must survive a crash too.
        do {
            let fd = try Posix.openFile(directory, flags: O_RDONLY | O_DIRECTORY)
            defer { Posix.closeIgnoringErrors(fd) }
            try Posix.sync(fd)
        } catch {
            throw .io(path: directory, operation: error.call, errno: error.errno)
        }
        return sizes
    }

    /// The archived records of `units`, each from its newest line; units never archived are left out. Each shard is
    /// read once, however many of the units it holds, and not at all when its index of names
    /// (``ArchiveNameIndex``) holds none of them.
    ///
    /// - Throws: ``StateStoreError/io(path:operation:errno:)`` when a shard exists but cannot be read.
    public func records(of units: some Sequence<String>) throws(StateStoreError) -> [UnitRecord] {
        var byShard: [String: [String]] = [:]
        for unit in units {
            byShard[Self.shardName(of: unit), default: []].append(unit)
        }
        var found: [UnitRecord] = []
        for (name, units) in byShard.sorted(by: { $0.key < $1.key }) {
            let path = directory + "/" + name
            let fd: CInt
            do {
                fd = try Posix.openFile(path, flags: O_RDONLY)
            } catch where error.errno == ENOENT {
                continue
            } catch {
                throw .io(path: path, operation: "open", errno: error.errno)
            }
            defer { Posix.closeIgnoringErrors(fd) }
            // A large shard's index rules out the names it does not hold without reading it; a small one is read
            // whole at once, for fewer system calls than its index would take.
            let wanted = indexedUnits(units, inShard: name, open: fd) ?? units
            guard !wanted.isEmpty else { continue }
            let bytes: [UInt8]
            do {
                bytes = try Posix.readAll(fd, limit: Self.maximumShardSize)
            } catch {
                throw .io(path: path, operation: "read", errno: error.errno)
            }
            for unit in wanted {
                if let record = Self.newestRecord(of: unit, in: bytes) { found.append(record) }
            }
        }
        return found
    }

    /// Every archived record, each unit's from its newest line, sorted by unit name, tombstones left out (their
    /// counters expired: ``UnitRecord/retired``): for `lifecyclectl status --all`, which reads the whole archive
    /// (lifecycled itself never does).
    ///
    /// - Throws: ``StateStoreError/io(path:operation:errno:)`` when the archive or a shard cannot be read.
    public func allRecords() throws(StateStoreError) -> [UnitRecord] {
        let names: [String]
        do {
            names = try Posix.directoryEntries(directory) ?? []
        } catch {
            throw .io(path: directory, operation: "read directory", errno: error.errno)
        }
        var newest: [String: UnitRecord] = [:]
        for name in names.sorted() where name.hasSuffix(".jsonl") {
            guard let bytes = try read(name) else { continue }
            var start = 0
            while start < bytes.count {
                let end = Self.lineEnd(in: bytes, from: start)
                defer { start = end + 1 }
                guard end > start,
                    case .success(let document) = StateFileDecoder.parse(Array(bytes[start..<end])),
                    (try? StateFileDecoder.checkVersions(document, path: "")) != nil,
                    let record = try? UnitRecord(stateFile: StateFileObject(document))
                else { continue }
                newest[record.unit] = record
            }
        }
        return newest.values.filter { $0.retired == nil }.sorted { $0.unit < $1.unit }
    }

    /// The contents of shard `name`, nil when it does not exist.
    func read(_ name: String) throws(StateStoreError) -> [UInt8]? {
        let path = directory + "/" + name
        let fd: CInt
        do {
            fd = try Posix.openFile(path, flags: O_RDONLY)
        } catch where error.errno == ENOENT {
            return nil
        } catch {
            throw .io(path: path, operation: "open", errno: error.errno)
        }
        defer { Posix.closeIgnoringErrors(fd) }
        do {
            return try Posix.readAll(fd, limit: Self.maximumShardSize)
        } catch {
            throw .io(path: path, operation: "read", errno: error.errno)
        }
    }

    /// The record of the last complete line of `bytes` that holds `unit`'s record; lines that do not parse (a line
    /// cut by a crash) are skipped.
    ///
    /// Every new unit name is looked up, so this must be cheap for the names that are not there: the shard is first
    /// searched whole for the name's member (`memmem(3)`, many bytes at a time: 33 µs against 53 µs line by line in a
    /// shard of 1,000 records, docs/PERFORMANCE.md). Then, a record's keys being sorted and only `update_count` (at
    /// most 20 digits) following `unit`, a line is a candidate only when its last bytes hold the member, and only
    /// candidates are parsed.
    static func newestRecord(of unit: String, in bytes: [UInt8]) -> UnitRecord? {
        var writer = JSONLayoutWriter(.compact)
        writer.beginObject()
        writer.member("unit", unit)
        let needle = Array(writer.bytes.dropFirst())
        guard holds(bytes, needle) else { return nil }
        let tail = needle.count + #","update_count":"#.utf8.count + 21
        var found: Range<Int>?
        var start = 0
        while start < bytes.count {
            let end = lineEnd(in: bytes, from: start)
            if end - start >= needle.count, contains(bytes, needle, in: max(start, end - tail)..<end) {
                found = start..<end
            }
            start = end + 1
        }
        // The last candidate is the newest; one that does not parse (cut short) gives way to the one before it.
        guard let found else { return nil }
        if case .record(let record)? = try? StateFileDecoder.decode(Array(bytes[found]), unit: unit, path: "") {
            return record
        }
        return newestRecord(of: unit, in: Array(bytes[..<found.lowerBound]))
    }

    /// Where the line that starts at `start` ends (its newline, or the end of `bytes`): `memchr`, which reads many
    /// bytes at a time.
    static func lineEnd(in bytes: [UInt8], from start: Int) -> Int {
        bytes.withUnsafeBufferPointer { buffer -> Int in
            guard let base = buffer.baseAddress,
                  let newline = memchr(base + start, Int32(UInt8(ascii: "\n")), buffer.count - start)
            else { return buffer.count }
            return base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Whether `needle` may be in `bytes`: false only when it is not (true when `memmem` could not be found).
    private static func holds(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let memmem = Self.memmem else { return true }
        return bytes.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { needle in
                memmem(haystack.baseAddress, haystack.count, needle.baseAddress, needle.count) != nil
            }
        }
    }

    private typealias Memmem = @convention(c) (
        UnsafeRawPointer?, Int, UnsafeRawPointer?, Int
    ) -> UnsafeMutableRawPointer?

    /// glibc's `memmem(3)`, a GNU extension the Glibc module does not declare.
    private static let memmem: Memmem? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "memmem") else { return nil }
        return unsafeBitCast(symbol, to: Memmem.self)
    }()

    private static func contains(_ bytes: [UInt8], _ needle: [UInt8], in range: Range<Int>) -> Bool {
        guard range.count >= needle.count else { return false }
        for offset in range.lowerBound...(range.upperBound - needle.count) where bytes[offset] == needle[0] {
            if bytes[offset..<(offset + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }
}
