// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// A dispatch as one of lifecycled's own journal entries holds it: enough to apply it to a unit's state again.
public struct JournaledDispatch: Sendable, Equatable {
    public var unit: String
    public var sequence: UInt64
    public var kind: DispatchKind
    public var time: Milliseconds
    public var invocationID: String?
    /// The unit's stored version after the event (`LIFECYCLE_VERSION`), nil when none was known or the entry predates
    /// the field.
    public var version: String?
    /// True when the autotracker sent it (`LIFECYCLE_AUTOTRACKED=true`), false for a manual event.
    public var isAutotracked: Bool
    /// For a crash notice, how the run failed (`LIFECYCLE_UNIT_RESULT`, `_EXIT_CODE`, `_EXIT_STATUS`); else nil.
    public var failure: RunFailure?

    /// The journal fields ``init(fields:)`` reads.
    public static let fields = [
        "MESSAGE_ID", "LIFECYCLE_UNIT", "LIFECYCLE_SEQUENCE", "LIFECYCLE_TIME", "LIFECYCLE_INVOCATION_ID",
        "LIFECYCLE_VERSION", "LIFECYCLE_AUTOTRACKED", "LIFECYCLE_UNIT_RESULT", "LIFECYCLE_EXIT_CODE",
        "LIFECYCLE_EXIT_STATUS",
    ]

    public init(
        unit: String, sequence: UInt64, kind: DispatchKind, time: Milliseconds, invocationID: String? = nil,
        version: String? = nil, isAutotracked: Bool = true, failure: RunFailure? = nil
    ) {
        self.unit = unit
        self.sequence = sequence
        self.kind = kind
        self.time = time
        self.invocationID = invocationID
        self.version = version
        self.isAutotracked = isAutotracked
        self.failure = failure
    }

    /// Reads an entry's fields; nil when it is not a dispatch of this schema.
    public init?(fields: [String: String]) {
        guard let unit = fields["LIFECYCLE_UNIT"],
            let sequence = fields["LIFECYCLE_SEQUENCE"].flatMap({ UInt64($0) }),
            let kind = DispatchKind.allCases.first(where: { $0.messageID == fields["MESSAGE_ID"] }),
            let time = fields["LIFECYCLE_TIME"].flatMap(TimestampParser.milliseconds(from:))
        else { return nil }
        self.init(
            unit: unit, sequence: sequence, kind: kind, time: time, invocationID: fields["LIFECYCLE_INVOCATION_ID"],
            version: fields["LIFECYCLE_VERSION"], isAutotracked: fields["LIFECYCLE_AUTOTRACKED"] == "true",
            failure: kind == .crash ? RunFailure(journalFields: fields, time: time) : nil
        )
    }
}
