// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// The local system journal's files, each held open by a descriptor (``SystemJournalFiles/opened(attempts:)``: a
/// rotation or a vacuum while they were opened makes them opened again), in the order of their entries
/// (``JournalFileSequence``): what ``JournalReader`` reads one file at a time. The files a later rotation adds hold
/// only entries newer than the listing.
struct LocalJournalFileSet {
    let sequence: JournalFileSequence<Int32>
    private let descriptors: [Int32]

    /// The files of `files` as one succession; nil when they are not one (two sequences, numbers that overlap, a
    /// file sd-journal cannot open) or kept changing: then the journal is read whole, as sd-journal opens it.
    static func open(_ files: SystemJournalFiles) -> LocalJournalFileSet? {
        files.opened().flatMap { succession(of: $0.map(\.descriptor)) }
    }

    /// `descriptors` as one succession, or nil (then closed).
    private static func succession(of descriptors: [Int32]) -> LocalJournalFileSet? {
        var members: [JournalFileSequence<Int32>.Member] = []
        for descriptor in descriptors {
            switch FileEntries(descriptor) {
            case .numbered(let first, let last):
                members.append(.init(file: descriptor, first: first, last: last))
            case .none:
                continue  // no entry yet: it holds nothing the read could want
            case .unknown:
                descriptors.forEach { _ = Glibc.close($0) }
                return nil
            }
        }
        guard let sequence = JournalFileSequence(members) else {
            descriptors.forEach { _ = Glibc.close($0) }
            return nil
        }
        return LocalJournalFileSet(sequence: sequence, descriptors: descriptors)
    }

    /// Closes every file of the set.
    func close() {
        descriptors.forEach { _ = Glibc.close($0) }
    }

    /// The numbers of a file's first and last entries.
    private enum FileEntries {
        case numbered(first: JournalSequenceNumber, last: JournalSequenceNumber)
        /// The file holds no entry.
        case none
        /// sd-journal could not open the file or read its ends, or their cursors are not in the known form.
        case unknown

        init(_ descriptor: Int32) {
            guard let journal = try? JournalReader.open(descriptor: descriptor) else {
                self = .unknown
                return
            }
            defer { sd_journal_close(journal) }
            guard sd_journal_seek_head(journal) >= 0 else {
                self = .unknown
                return
            }
            let moved = sd_journal_next(journal)
            if moved == 0 {
                self = .none
                return
            }
            guard moved > 0, let first = Self.number(journal), sd_journal_seek_tail(journal) >= 0,
                  sd_journal_previous(journal) > 0, let last = Self.number(journal)
            else {
                self = .unknown
                return
            }
            self = .numbered(first: first, last: last)
        }

        private static func number(_ journal: OpaquePointer) -> JournalSequenceNumber? {
            JournalReader.cursor(of: journal).flatMap(JournalSequenceNumber.init(cursor:))
        }
    }
}
