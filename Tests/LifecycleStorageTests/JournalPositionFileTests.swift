// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

@testable import LifecycleStorage

/// `journal-position.json`: written atomically, read back exactly, and refused with the file and the key named when it
/// is not what lifecycled writes.
struct JournalPositionFileTests {
    static let position = JournalPosition(
        cursor: "s=0123456789abcdef0123456789abcdef;i=1a2b;b=fedcba9876543210fedcba9876543210;m=4c4b40;t=5f8e;x=77",
        bootID: "fedcba9876543210fedcba9876543210", monotonicMicroseconds: 5_000_000, realtimeMicroseconds: 1_767_225_600_000_000
    )

    @Test("a saved position reads back the same; none saved reads as nil")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let file = JournalPositionFile(directory: directory.path + "/state")
        #expect(try file.load() == nil)
        try file.save(Self.position)
        #expect(try file.load() == Self.position)
        var moved = Self.position
        moved.cursor = "s=2"
        try file.save(moved)
        #expect(try file.load() == moved)
    }

    @Test("a damaged file is an error naming the file and what is wrong")
    func malformed() throws {
        let directory = try TemporaryDirectory()
        let file = JournalPositionFile(directory: directory.path)
        let cases: [(String, String)] = [
            ("{\"schema_version\": 1, \"cursor\": \"s=1\", \"boot_id\": \"x\"", "invalid JSON"),
            ("[1]", "expected an object, found an array"),
            ("{\"schema_version\": 1, \"boot_id\": \"fedcba9876543210fedcba9876543210\", \"monotonic_usec\": 1, \"realtime_usec\": 1}",
             "\"cursor\" must be a non-empty string"),
            ("{\"schema_version\": 1, \"cursor\": \"s=1\", \"boot_id\": \"nope\", \"monotonic_usec\": 1, \"realtime_usec\": 1}",
             "\"boot_id\" must be 32 lower-case hex digits"),
            ("{\"schema_version\": 1, \"cursor\": \"s=1\", \"boot_id\": \"fedcba9876543210fedcba9876543210\", \"monotonic_usec\": -1, \"realtime_usec\": 1}",
             "\"monotonic_usec\" must be a number of microseconds"),
            ("{\"schema_version\": 9, \"cursor\": \"s=1\"}", "schema_version 9 is newer than the supported version 1"),
        ]
        for (text, expected) in cases {
            try directory.write(text, to: JournalPositionFile.name)
            #expect(throws: StateStoreError.self) { try file.load() }
            do {
                _ = try file.load()
            } catch {
                #expect(error.description.hasPrefix(file.path + ": "), "\(error)")
                #expect(error.description.contains(expected), "\(error)")
            }
        }
    }
}
