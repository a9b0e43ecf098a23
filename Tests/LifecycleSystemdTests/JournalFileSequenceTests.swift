// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd
import Testing

/// ``JournalSequenceNumber`` read from cursors, and ``JournalFileSequence``: which journal files make one succession,
/// which of them a read after an entry needs, and which can hold that entry.
struct JournalFileSequenceTests {
    static let id = "0ce1beed5df84654850badc912b646bc"
    static let other = "528f66b9d922429f8ad4bb031fc45b85"

    func number(_ value: UInt64, _ id: String = id) -> JournalSequenceNumber {
        JournalSequenceNumber(sequenceID: id, number: value)
    }

    func member(_ name: String, _ first: UInt64, _ last: UInt64, _ id: String = id) -> JournalFileSequence<String>.Member {
        .init(file: name, first: number(first, id), last: number(last, id))
    }

    @Test("a cursor's sequence id and number (hex)")
    func cursorNumber() {
        let cursor = "s=\(Self.id);i=1a2b;b=0123456789abcdef0123456789abcdef;m=f4240;t=64748462f8240;x=4a5500196b993ed4"
        #expect(JournalSequenceNumber(cursor: cursor) == number(0x1a2b))
    }

    @Test("a cursor without both parts in the known form is no number", arguments: [
        "", "i=1a2b;b=00", "s=\(id);b=00", "s=\(id);i=xyz", "s=0ce1beed;i=1", "s=\(String(repeating: "g", count: 32));i=1",
    ])
    func malformedCursor(_ cursor: String) {
        #expect(JournalSequenceNumber(cursor: cursor) == nil)
    }

    @Test("files of one sequence, in any order: ordered by their numbers")
    func ordered() throws {
        let sequence = try #require(JournalFileSequence([member("c", 21, 30), member("a", 1, 10), member("b", 11, 20)]))
        #expect(sequence.members.map(\.file) == ["a", "b", "c"])
        #expect(sequence.sequenceID == Self.id)
    }

    @Test("two sequences, numbers that overlap or touch, or no file: no succession")
    func noSuccession() {
        #expect(JournalFileSequence([member("a", 1, 10), member("b", 11, 20, Self.other)]) == nil)
        #expect(JournalFileSequence([member("a", 1, 10), member("b", 10, 20)]) == nil)
        #expect(JournalFileSequence([member("a", 1, 12), member("b", 11, 20)]) == nil)
        #expect(JournalFileSequence([member("a", 5, 1)]) == nil)
        #expect(JournalFileSequence<String>([]) == nil)
    }

    @Test("after an entry: the files from the first whose last entry comes later; the newest always")
    func filesAfter() throws {
        // Gaps between files: other files of the sequence (users' journals) took those numbers.
        let sequence = try #require(JournalFileSequence([member("a", 1, 10), member("b", 15, 20), member("c", 25, 30)]))
        #expect(sequence.files(after: number(0)).map(\.file) == ["a", "b", "c"])
        #expect(sequence.files(after: number(9)).map(\.file) == ["a", "b", "c"])
        #expect(sequence.files(after: number(10)).map(\.file) == ["b", "c"])
        #expect(sequence.files(after: number(12)).map(\.file) == ["b", "c"])
        #expect(sequence.files(after: number(20)).map(\.file) == ["c"])
        #expect(sequence.files(after: number(30)).map(\.file) == ["c"])
        #expect(sequence.files(after: number(99)).map(\.file) == ["c"])
    }

    @Test("the file that can hold an entry: the one whose numbers span it; none in a gap or beyond")
    func fileHolding() throws {
        let sequence = try #require(JournalFileSequence([member("a", 1, 10), member("b", 15, 20)]))
        #expect(sequence.file(holding: number(1))?.file == "a")
        #expect(sequence.file(holding: number(10))?.file == "a")
        #expect(sequence.file(holding: number(15))?.file == "b")
        #expect(sequence.file(holding: number(12)) == nil)
        #expect(sequence.file(holding: number(21)) == nil)
    }
}
