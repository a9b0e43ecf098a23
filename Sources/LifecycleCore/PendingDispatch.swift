// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// One dispatch on its way to the journal: the entry exactly as it is sent (and sent again, byte for byte), with the
/// unit and number that identify it.
public struct PendingDispatch: Sendable, Equatable {
    public var unit: String
    public var sequence: UInt64
    public var entry: DispatchJournalEntry

    public init(unit: String, sequence: UInt64, entry: DispatchJournalEntry) {
        self.unit = unit
        self.sequence = sequence
        self.entry = entry
    }

    /// When the dispatched event happened (`LIFECYCLE_TIME`): the dispatch was made then or later.
    var eventTime: Milliseconds? {
        entry.journalFields[DispatchField.time].flatMap(TimestampParser.milliseconds(from:))
    }

    /// The dispatches a record holds as pending, oldest first; entries without a readable sequence are skipped.
    static func pending(in record: UnitRecord) -> [PendingDispatch] {
        record.pendingDispatches.compactMap { fields in
            fields[DispatchField.sequence].flatMap(UInt64.init).map {
                PendingDispatch(unit: record.unit, sequence: $0, entry: DispatchJournalEntry(journalFields: fields))
            }
        }
    }

    /// The matches that find this dispatch among lifecycled's own root-owned entries: its unit, number and event
    /// time, which a dispatch sent again repeats byte for byte. The time keeps a look from taking an older entry with
    /// the same unit and number for this one (a record that started again after the archive's retention dropped it).
    public var journalQuery: [String] {
        journalUnitMatches + journalIdentity
    }

    /// The matches of every entry of this dispatch's unit: ``journalQuery`` without ``journalIdentity``.
    public var journalUnitMatches: [String] {
        DispatchMatches.unit(unit)
    }

    /// What sets this dispatch's entry apart from its unit's others: its number and event time.
    public var journalIdentity: [String] {
        let time = entry.journalFields[DispatchField.time].map { ["\(DispatchField.time)=\($0)"] } ?? []
        return ["\(DispatchField.sequence)=\(sequence)"] + time
    }
}
