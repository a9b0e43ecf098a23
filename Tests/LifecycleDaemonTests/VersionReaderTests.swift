// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import LifecycleDaemon
import LifecycleEngine
import Testing

import Glibc

/// ``VersionReader`` against real files. Expected digests were computed outside Swift, with `sha256sum`.
struct VersionReaderTests {
    /// `printf 'hello\n' | sha256sum`
    static let helloDigest = "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"
    /// `printf 'HELLO\n' | sha256sum`
    static let upperHelloDigest = "3b09aeb6f5f5336beb205d7f720371bc927cd46c21922e334d47ba264acb5ba4"
    /// `printf 'world\n' | sha256sum`
    static let worldDigest = "e258d248fda94c63753607f7c4494ee0fcbe92f1a76bfdac795c9d84101eb317"

    @Test("an executable's version is the SHA-256 of its bytes in lower-case hex, across chunk boundaries")
    func executableDigest() throws {
        let directory = try Scratch()
        // The byte pattern i % 251, so no chunk repeats the previous one; digests from Python's hashlib.
        let cases: [(count: Int, digest: String)] = [
            (0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (65_536, "4b640d85ab3ba30fd02c9fc9db4a8928f416322ad27022ea58a65aaee68a4df2"),
            (200_000, "e24bc62381f1224fbbb74688663f8f9743b9680b193edd666835e97b06e730eb"),
        ]
        var reader = VersionReader()
        for (count, digest) in cases {
            let path = try directory.write((0..<count).map { UInt8($0 % 251) }, to: "bin-\(count)")
            let inputs = UnitVersionInputs(executablePath: path)
            #expect(try reader.version(of: .executable, inputs: inputs) == digest, "\(count) bytes")
        }
        let hello = try directory.write("hello\n", to: "nginx")
        let inputs = UnitVersionInputs(executablePath: hello)
        #expect(try reader.version(of: .executable, inputs: inputs) == Self.helloDigest)
    }

    @Test("an unchanged file is not read again; a new modification time or a new inode is")
    func cacheFollowsIdentity() throws {
        let directory = try Scratch()
        let path = try directory.write("hello\n", to: "nginx")
        var reader = VersionReader()
        #expect(try reader.executableDigest(atPath: path) == Self.helloDigest)
        #expect(reader.cachedDigestCount == 1)

        // Same inode, same size, modification time put back: only a read of the bytes could see the change.
        let modified = try directory.modificationTime(path)
        try directory.overwriteInPlace(path, with: "HELLO\n")
        try directory.setModificationTime(path, modified)
        #expect(try reader.executableDigest(atPath: path) == Self.helloDigest)

        let nextNanosecond = timespec(tv_sec: modified.tv_sec, tv_nsec: (modified.tv_nsec + 1) % 1_000_000_000)
        try directory.setModificationTime(path, nextNanosecond)
        #expect(try reader.executableDigest(atPath: path) == Self.upperHelloDigest)

        // A package manager's update: a new file renamed over the old one, here with the same size and time.
        let current = try directory.modificationTime(path)
        let replacement = try directory.write("world\n", to: "nginx.new")
        try directory.setModificationTime(replacement, current)
        #expect(rename(replacement, path) == 0)
        #expect(try reader.executableDigest(atPath: path) == Self.worldDigest)
    }

    @Test("a start's look in the cache: the identity of the file a path leads to, a link followed as open(2) does")
    func identityByPath() throws {
        let directory = try Scratch()
        let path = try directory.write("hello\n", to: "python3.12")
        let link = directory.path + "/python3"
        #expect(symlink(path, link) == 0)
        let identity = try #require(FileIdentity(statingPath: path))
        #expect(FileIdentity(statingPath: link) == identity, "a link has its target's identity: the digest is found")
        #expect(try ReadableFile(opening: link).identity == identity, "the same as a read through the open file")
        #expect(FileIdentity(statingPath: directory.path) == nil, "a directory has none")
        #expect(FileIdentity(statingPath: directory.path + "/missing") == nil, "nor a path that leads nowhere")

        var reader = VersionReader()
        #expect(try reader.executableDigest(atPath: link) == Self.helloDigest)
        // Replaced through the link's target: a new inode, so a new digest, though the link is unchanged.
        _ = try directory.write("world\n", to: "python3.12.new")
        #expect(rename(directory.path + "/python3.12.new", path) == 0)
        #expect(try reader.executableDigest(atPath: link) == Self.worldDigest)
        #expect(reader.cachedDigestCount == 2)
    }

    @Test("the cache is bounded: the oldest digest makes room, and capacity 0 caches nothing")
    func cacheIsBounded() throws {
        let directory = try Scratch()
        let first = try directory.write("hello\n", to: "a")
        let second = try directory.write("world\n", to: "b")
        var reader = VersionReader(cacheCapacity: 1)
        _ = try reader.executableDigest(atPath: first)
        _ = try reader.executableDigest(atPath: second)
        #expect(reader.cachedDigestCount == 1)
        // Had the first digest been kept, this in-place change with its time put back would not be seen.
        let modified = try directory.modificationTime(first)
        try directory.overwriteInPlace(first, with: "HELLO\n")
        try directory.setModificationTime(first, modified)
        #expect(try reader.executableDigest(atPath: first) == Self.upperHelloDigest)

        var uncached = VersionReader(cacheCapacity: 0)
        _ = try uncached.executableDigest(atPath: second)
        let secondModified = try directory.modificationTime(second)
        try directory.overwriteInPlace(second, with: "WORLD\n")
        try directory.setModificationTime(second, secondModified)
        #expect(try uncached.executableDigest(atPath: second) != Self.worldDigest)
        #expect(uncached.cachedDigestCount == 0)
    }

    @Test("unit_file hashes each file's path, a NUL, its length as 8 bytes big-endian, then its bytes, in order")
    func unitFileFormat() throws {
        let directory = try Scratch()
        let unit = try directory.write("[Service]\nExecStart=/usr/sbin/nginx\n", to: "nginx.service")
        let dropIn = try directory.write("[Service]\nNice=5\n", to: "10-nice.conf")
        var framed: [UInt8] = []
        for (path, text) in [(unit, "[Service]\nExecStart=/usr/sbin/nginx\n"), (dropIn, "[Service]\nNice=5\n")] {
            framed += Array(path.utf8) + [0] + [0, 0, 0, 0, 0, 0, 0, UInt8(text.utf8.count)] + Array(text.utf8)
        }
        // The SHA-256 of the framing, through the executable path, whose digests are pinned against sha256sum above.
        var reader = VersionReader()
        let expected = try reader.executableDigest(atPath: directory.write(framed, to: "framed"))
        let inputs = UnitVersionInputs(fragmentPath: unit, dropInPaths: [dropIn])
        #expect(try reader.version(of: .unitFile, inputs: inputs) == expected)
    }

    @Test("unit_file changes with the order of the files and when bytes move from one file to the next")
    func unitFileBoundaries() throws {
        let directory = try Scratch()
        let a = try directory.write("ab", to: "a.conf")
        let b = try directory.write("c", to: "b.conf")
        let forward = try VersionReader.unitFileDigest(fragmentPath: a, dropInPaths: [b])
        let backward = try VersionReader.unitFileDigest(fragmentPath: b, dropInPaths: [a])
        #expect(forward != nil && backward != nil && forward != backward)

        try directory.overwriteInPlace(a, with: "a")
        try directory.overwriteInPlace(b, with: "bc")
        let moved = try VersionReader.unitFileDigest(fragmentPath: a, dropInPaths: [b])
        #expect(moved != forward)

        // Drop-ins without a unit file still give a version; no files at all give none.
        #expect(try VersionReader.unitFileDigest(fragmentPath: nil, dropInPaths: [b]) != nil)
        #expect(try VersionReader.unitFileDigest(fragmentPath: nil, dropInPaths: []) == nil)
    }

    @Test("environment:NAME is the value after the first '=', the last assignment wins, a missing name is nil")
    func environment() throws {
        let environment = ["A=b=c", "EMPTY=", "NOT_AN_ASSIGNMENT", "AB=x", "C=1", "C=2", "=odd"]
        var reader = VersionReader()
        func version(_ name: String) throws -> String? {
            try reader.version(of: .environment(name), inputs: UnitVersionInputs(environment: environment))
        }
        #expect(try version("A") == "b=c")
        #expect(try version("EMPTY") == "")
        #expect(try version("NOT_AN_ASSIGNMENT") == nil)
        #expect(try version("C") == "2")
        #expect(try version("B") == nil)
        #expect(try version("a") == nil)
        #expect(VersionReader.environmentValue(named: "A", in: []) == nil)
    }

    @Test("none, and a unit without an executable or unit files, have no version and read nothing")
    func noVersion() throws {
        var reader = VersionReader()
        let missing = UnitVersionInputs(executablePath: "/nonexistent/none", fragmentPath: "/nonexistent/unit")
        #expect(try reader.version(of: .none, inputs: missing) == nil)
        #expect(try reader.version(of: .executable, inputs: UnitVersionInputs()) == nil)
        #expect(try reader.version(of: .unitFile, inputs: UnitVersionInputs()) == nil)
    }

    @Test("a file that cannot be read gives an error naming the path, the step and the errno")
    func unreadable() throws {
        let directory = try Scratch()
        var reader = VersionReader()
        let missing = directory.path + "/missing"
        #expect(throws: VersionReadError(path: missing, operation: "open", errno: ENOENT)) {
            try reader.version(of: .executable, inputs: UnitVersionInputs(executablePath: missing))
        }
        let unit = try directory.write("[Unit]\n", to: "x.service")
        do {
            _ = try reader.version(of: .unitFile, inputs: UnitVersionInputs(fragmentPath: unit, dropInPaths: [missing]))
            Issue.record("a missing drop-in must be an error")
        } catch {
            #expect(error == VersionReadError(path: missing, operation: "open", errno: ENOENT))
            #expect(error.description == "Failed to open \(missing): No such file or directory")
        }
        #expect(throws: VersionReadError(path: directory.path, operation: "read", errno: EISDIR)) {
            try reader.executableDigest(atPath: directory.path)
        }
        #expect(reader.cachedDigestCount == 0)
    }
}

/// A directory of its own per test, removed afterwards.
private final class Scratch {
    let path: String

    init() throws {
        var template = Array((NSTemporaryDirectory() + "/version-reader-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        path = String(cString: created)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Creates (or replaces, with a new inode) the file `name`; returns its path.
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    func write(_ text: String, to name: String) throws -> String {
        try write(Array(text.utf8), to: name)
    }

    /// Rewrites a file's bytes through the same inode, the way an in-place edit does.
    func overwriteInPlace(_ file: String, with text: String) throws {
        let descriptor = open(file, O_WRONLY | O_TRUNC)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        #expect(Glibc.write(descriptor, bytes, bytes.count) == bytes.count)
    }

    func modificationTime(_ file: String) throws -> timespec {
        var status = stat()
        guard stat(file, &status) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        return status.st_mtim
    }

    /// Sets the modification time with nanoseconds (utimensat(2)); the access time, which the reader ignores, too.
    func setModificationTime(_ file: String, _ time: timespec) throws {
        let times = [time, time]
        guard utimensat(AT_FDCWD, file, times, 0) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }
}
