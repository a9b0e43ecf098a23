// SPDX-License-Identifier: Apache-2.0

/// Where an entry stands in journald's numbering: the id of the sequence (`s=` of its cursor, one per line of files
/// journald wrote one after the other) and its number in it (`i=`, in hex). Within one sequence the numbers only
/// grow, file after file, so they order the entries of every file of that sequence; this is how sd-journal orders
/// the entries of two files that share a sequence id (docs/architecture.md, "PID 1's history, one file at a time").
public struct JournalSequenceNumber: Sendable, Hashable, Comparable {
    /// The sequence's id: 32 hex digits.
    public var sequenceID: String
    public var number: UInt64

    public init(sequenceID: String, number: UInt64) {
        self.sequenceID = sequenceID
        self.number = number
    }

    /// The `s=` and `i=` parts of a cursor as sd-journal writes it (`s=…;i=…;b=…;m=…;t=…;x=…`); nil when the cursor
    /// does not hold them in that form.
    public init?(cursor: String) {
        var sequenceID: Substring?
        var number: UInt64?
        for part in cursor.split(separator: ";") {
            if part.hasPrefix("s=") {
                sequenceID = part.dropFirst(2)
            } else if part.hasPrefix("i=") {
                number = UInt64(part.dropFirst(2), radix: 16)
            }
        }
        guard let sequenceID, sequenceID.count == 32, sequenceID.allSatisfy(\.isHexDigit), let number else { return nil }
        self.init(sequenceID: String(sequenceID), number: number)
    }

    /// Only numbers of one sequence compare: callers check the ids first.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.number < rhs.number }
}
