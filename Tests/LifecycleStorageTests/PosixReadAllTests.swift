// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import LifecycleStorage

import Glibc

/// ``Posix/readAll(_:limit:)``: read in place into a buffer of the file's size, and on in chunks when the file gives
/// no size or more than it said.
struct PosixReadAllTests {
    /// Bytes that differ from one position to the next, so that a piece read twice or left out shows.
    private static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    }

    private static func read(_ bytes: [UInt8], limit: Int) throws -> [UInt8] {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/file"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        return try Posix.readAll(fd, limit: limit)
    }

    @Test("a file is read whole, whatever its size against the buffer", arguments: [0, 1, 4_095, 65_537, 1_000_003])
    func readsWhole(count: Int) throws {
        #expect(try Self.read(Self.pattern(count), limit: 1 << 21) == Self.pattern(count))
    }

    @Test("a file of the limit is read; one byte more fails with EFBIG")
    func limit() throws {
        #expect(try Self.read(Self.pattern(1_000), limit: 1_000) == Self.pattern(1_000))
        #expect(throws: SystemCallError(errno: EFBIG, call: "read")) {
            try Self.read(Self.pattern(1_001), limit: 1_000)
        }
    }

    @Test("a descriptor that gives no size (a pipe, as /proc's files) is read on to its end, within the limit")
    func noSize() throws {
        var ends: [CInt] = [0, 0]
        #expect(pipe(&ends) == 0)
        let bytes = Self.pattern(100_000)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        let writer = Thread {
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(writeEnd, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(writeEnd)
        }
        writer.start()
        defer { close(readEnd) }
        #expect(try Posix.readAll(readEnd, limit: 1 << 20) == bytes)
    }
}
