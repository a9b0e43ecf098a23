// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleSystemd
import Testing

/// ``JournalReader/uniqueValues(of:keeping:)`` on real journal files (``JournalReaderDamageTests/journalFile(_:in:name:)``):
/// every value of the field, whatever entry holds it, each once, or those kept.
struct JournalReaderUniqueValuesTests {
    @Test("every value of a field the files hold, once each, across files; a field no entry has gives none")
    func uniqueValues() throws {
        let directory = try JournalReaderDamageTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard let first = try JournalReaderDamageTests.journalFile(0..<5, in: directory, name: "first.journal"),
            let second = try JournalReaderDamageTests.journalFile(3..<8, in: directory, name: "second.journal")
        else { return }
        let reader = JournalReader(source: .files([first, second]))
        #expect(try reader.uniqueValues(of: "TEST_INDEX") == Set((0..<8).map(String.init)))
        #expect(try reader.uniqueValues(of: "MESSAGE").count == 8)
        #expect(try reader.uniqueValues(of: "UNIT").isEmpty)
        #expect(try reader.uniqueValues(of: "TEST_INDEX", keeping: { Int($0)! % 2 == 0 }) == ["0", "2", "4", "6"])
    }
}
