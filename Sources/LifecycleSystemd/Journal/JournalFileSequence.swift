// SPDX-License-Identifier: Apache-2.0

/// The files of one journald sequence in the order of their entries, when that order is a plain succession: every
/// file numbered in the same sequence (``JournalSequenceNumber``), and each file's numbers all below the next
/// file's. Then reading the files one after the other gives the entries sd-journal gives with all of them open at
/// once, in the same order, and a read that goes on after an entry needs only the files after it
/// (docs/architecture.md, "PID 1's history, one file at a time"). Anything else (two sequences, numbers that overlap)
/// makes no succession, and the caller reads the journal whole; files without entries are left out before.
public struct JournalFileSequence<File: Sendable>: Sendable {
    /// A file, with the numbers of its first and last entries.
    public struct Member: Sendable {
        public var file: File
        public var first: JournalSequenceNumber
        public var last: JournalSequenceNumber

        public init(file: File, first: JournalSequenceNumber, last: JournalSequenceNumber) {
            self.file = file
            self.first = first
            self.last = last
        }
    }

    /// In the order of their entries.
    public let members: [Member]

    /// nil when `members` (in any order) are not one succession, or there are none.
    public init?(_ members: [Member]) {
        let ordered = members.sorted { $0.first.number < $1.first.number }
        guard let sequenceID = ordered.first?.first.sequenceID else { return nil }
        for member in ordered {
            guard member.first.sequenceID == sequenceID, member.last.sequenceID == sequenceID,
                  member.first <= member.last
            else { return nil }
        }
        for (earlier, later) in zip(ordered, ordered.dropFirst()) where earlier.last >= later.first { return nil }
        self.members = ordered
    }

    /// The sequence's id.
    public var sequenceID: String { members[0].first.sequenceID }

    /// The files that can hold entries after `number`, in order: from the first whose last entry comes after it.
    /// The newest file is always among them, as journald may have written to it since its last entry was read.
    public func files(after number: JournalSequenceNumber) -> ArraySlice<Member> {
        let first = members.firstIndex { $0.last > number } ?? members.count - 1
        return members[first...]
    }

    /// The file whose numbers span `number`: the only one that can hold its entry; nil when none does.
    public func file(holding number: JournalSequenceNumber) -> Member? {
        members.first { $0.first <= number && number <= $0.last }
    }
}
