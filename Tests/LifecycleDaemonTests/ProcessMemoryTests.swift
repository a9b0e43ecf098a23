// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import LifecycleDaemon
import Testing

/// ``MemoryMapping`` on `/proc/PID/maps` lines, and ``ProcessMemory/releaseCodePages()`` on this test process.
struct ProcessMemoryTests {
    @Test func parsesAMappingOfAFile() throws {
        let line = "55d0c4a00000-55d0c5a11000 r-xp 00000000 00:1f 1234567          /opt/lifecycled/bin/lifecycled"
        let mapping = try #require(MemoryMapping(line: Substring(line)))
        #expect(mapping.addresses == 0x55d0_c4a0_0000..<0x55d0_c5a1_1000)
        #expect(mapping.isReadable && !mapping.isWritable && mapping.isExecutable)
        #expect(mapping.device == "00:1f")
        #expect(mapping.inode == 1_234_567)
        #expect(mapping.path == "/opt/lifecycled/bin/lifecycled")
    }

    @Test func keepsSpacesInAPathAndReadsAnonymousMemory() throws {
        let deleted = try #require(MemoryMapping(line: "1000-2000 rw-p 00001000 08:01 42   /usr/bin/a b (deleted)"))
        #expect(deleted.path == "/usr/bin/a b (deleted)")
        #expect(deleted.isWritable && !deleted.isExecutable)
        let anonymous = try #require(MemoryMapping(line: "7ffd0000-7ffd1000 rw-p 00000000 00:00 0"))
        #expect(anonymous.inode == 0 && anonymous.path.isEmpty)
        #expect(!anonymous.mapsSameFile(as: anonymous), "anonymous memory is no file")
        #expect(deleted.mapsSameFile(as: deleted))
    }

    @Test func refusesLinesOfAnotherShape() {
        #expect(MemoryMapping(line: "") == nil)
        #expect(MemoryMapping(line: "1000 r-xp 0 08:01 42 /a") == nil, "no range")
        #expect(MemoryMapping(line: "2000-1000 r-xp 0 08:01 42 /a") == nil, "end before start")
        #expect(MemoryMapping(line: "1000-2000 r-x 0 08:01 42 /a") == nil, "three permission letters")
        #expect(MemoryMapping(line: "1000-2000 r-xp 0 08:01 x /a") == nil, "no inode")
    }

    /// The test binary's code pages resident before and after: most go, and the process goes on running its code.
    @Test func releasingCodePagesDropsTheExecutablesResidentCode() throws {
        let before = try Self.residentExecutableCodeKB()
        try #require(before >= 512, "the test binary's code should be resident after running tests, found \(before) KB")
        ProcessMemory.releaseCodePages()
        let after = try Self.residentExecutableCodeKB()
        #expect(after * 2 < before, "resident code of the executable: \(before) KB before, \(after) KB after")
    }

    /// Sums `Rss:` of the executable, non-writable mappings of `/proc/self/exe` in `/proc/self/smaps`.
    private static func residentExecutableCodeKB() throws -> Int {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let smaps = try String(contentsOfFile: "/proc/self/smaps", encoding: .utf8)
        var total = 0
        var inCode = false
        for line in smaps.split(separator: "\n") {
            if let mapping = MemoryMapping(line: line) {
                inCode = mapping.path == executable && mapping.isExecutable && !mapping.isWritable
            } else if inCode, line.hasPrefix("Rss:") {
                total += Int(line.split(separator: " ")[1]) ?? 0
            }
        }
        return total
    }
}
