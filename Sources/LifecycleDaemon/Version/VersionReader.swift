// SPDX-License-Identifier: Apache-2.0

import Crypto
import LifecycleEngine

/// Computes the version of a unit for its configured ``VersionSource`` (docs/configuration.md, "Version source").
///
/// - `executable`: the SHA-256 of the main executable, as 64 lower-case hex digits. The file is streamed in chunks,
///   and its digest is cached by device, inode, size and modification time (in nanoseconds), so an unchanged
///   executable is read once however often its units start, while a replaced one (new inode, as package managers
///   do with a rename) or one rewritten in place (new modification time) is read again. The cache holds at most
///   ``defaultCacheCapacity`` digests unless told otherwise.
/// - `unit_file`: the SHA-256 of the unit file and its drop-ins, see ``unitFileDigest(fragmentPath:dropInPaths:)``.
/// - `environment:NAME`: the value of `NAME` in the unit's `Environment=`.
/// - `none`: no version.
///
/// A struct with `mutating` methods, not a class behind a `Mutex`: the daemon's actor owns the reader as stored
/// state, so the actor already serialises every call, and a value cannot be shared with a second owner by accident.
/// A lock would only guard against callers that do not exist, and would be held across file reads.
///
/// The cache trusts the file system's timestamps: a file rewritten in place with the same size within one tick of a
/// coarse clock (file systems without nanosecond timestamps), or whose modification time is set back on purpose,
/// keeps its old digest.
public struct VersionReader: Sendable {
    /// How many executable digests are kept unless ``init(cacheCapacity:)`` says otherwise.
    public static let defaultCacheCapacity = 4096

    private var cache: DigestCache

    /// - Parameter cacheCapacity: the most executable digests kept; 0 disables the cache.
    public init(cacheCapacity: Int = Self.defaultCacheCapacity) {
        cache = DigestCache(capacity: cacheCapacity)
    }

    /// How many executable digests the cache holds now.
    public var cachedDigestCount: Int { cache.count }

    /// The unit's version for `source`.
    ///
    /// - Parameters:
    ///   - source: where the version comes from.
    ///   - inputs: what systemd reported about the unit.
    /// - Returns: the version, or nil when the source gives none: `none`, a unit without a main executable or without
    ///   unit files, or a variable that is not set.
    /// - Throws: ``VersionReadError`` naming the file that could not be read and why.
    public mutating func version(of source: VersionSource, inputs: UnitVersionInputs) throws(VersionReadError)
        -> String?
    {
        switch source {
        case .executable:
            guard let path = inputs.executablePath else { return nil }
            return try executableDigest(atPath: path)
        case .unitFile:
            return try Self.unitFileDigest(fragmentPath: inputs.fragmentPath, dropInPaths: inputs.dropInPaths)
        case .environment(let name):
            return Self.environmentValue(named: name, in: inputs.environment)
        case .none:
            return nil
        }
    }

    /// The SHA-256 of the file at `path` as lower-case hex, from the cache when the file is unchanged.
    ///
    /// - Throws: ``VersionReadError`` if the file cannot be opened, is not a regular file, or cannot be read.
    public mutating func executableDigest(atPath path: String) throws(VersionReadError) -> String {
        if let identity = FileIdentity(statingPath: path), let digest = cache.digest(for: identity) { return digest }
        let file = try ReadableFile(opening: path)
        // The identity inserted comes from the open descriptor, so a rename between the check and the read cannot
        // pair one file's identity with another file's bytes.
        if let digest = cache.digest(for: file.identity) { return digest }
        var hasher = SHA256()
        try file.forEachChunk { hasher.update(bufferPointer: $0) }
        let digest = LowerHex.string(hasher.finalize())
        cache.insert(digest, for: file.identity)
        return digest
    }

    /// The SHA-256, as lower-case hex, of the unit file followed by its drop-ins in the given order; nil when there is
    /// neither.
    ///
    /// Each file contributes its path, a NUL byte (which no path contains), its length as 8 bytes big-endian, then its
    /// bytes. With the boundaries in the hash, moving bytes from one file to the next, renaming a drop-in or changing
    /// the order changes the version, where hashing the bytes back to back would not.
    ///
    /// - Throws: ``VersionReadError`` naming the first file that cannot be read.
    public static func unitFileDigest(fragmentPath: String?, dropInPaths: [String]) throws(VersionReadError)
        -> String?
    {
        let paths = (fragmentPath.map { [$0] } ?? []) + dropInPaths
        guard !paths.isEmpty else { return nil }
        var hasher = SHA256()
        for path in paths {
            // Read whole, unlike executables: the length goes first, and a length taken from fstat(2) could differ
            // from the bytes read if the file changes meanwhile. Unit files are a few kilobytes.
            let contents = try ReadableFile(opening: path).readAll()
            var header = Array(path.utf8)
            header.append(0)
            withUnsafeBytes(of: UInt64(contents.count).bigEndian) { header.append(contentsOf: $0) }
            header.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            contents.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        }
        return LowerHex.string(hasher.finalize())
    }

    /// The value of the variable `name` in an `Environment=` list of `KEY=value` strings, or nil when it is not set.
    ///
    /// The value is everything after the first `=` (so `A=b=c` gives `b=c`), and may be empty. Names are compared
    /// byte for byte, as the environment does. If a name appears twice the last assignment wins, as it does when
    /// systemd applies `Environment=` lines in order. Entries without `=` are not assignments and are skipped.
    public static func environmentValue(named name: String, in environment: [String]) -> String? {
        var value: String?
        for assignment in environment {
            let utf8 = assignment.utf8
            guard let equals = utf8.firstIndex(of: UInt8(ascii: "=")),
                utf8[..<equals].elementsEqual(name.utf8)
            else { continue }
            value = String(assignment[utf8.index(after: equals)...])
        }
        return value
    }
}
