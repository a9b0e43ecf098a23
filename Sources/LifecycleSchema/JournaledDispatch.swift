// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// A dispatch as one of lifecycled's journal entries holds it, read back: what lifecycled's recovery applies to a
/// unit's state again, and what every view of `lifecyclectl` (runs, follow, the fleet view) is built from.
public struct JournaledDispatch: Sendable, Equatable {
    public var unit: String
    public var sequence: UInt64
    public var kind: DispatchKind
    /// The event's name (`LIFECYCLE_EVENT`): `launch`, `wake`, `sleep`, `crash`, or a custom event's own.
    public var event: String
    public var time: Milliseconds
    public var invocationID: String?
    /// The unit's stored version after the event (`LIFECYCLE_VERSION`), nil when none was known or the entry predates
    /// the field.
    public var version: String?
    /// True when the autotracker sent it (`LIFECYCLE_AUTOTRACKED=true`), false for a manual event.
    public var isAutotracked: Bool
    /// True when lifecycled recorded it after the fact (`LIFECYCLE_RECONCILED=true`): it was not listening.
    public var isReconciled: Bool
    /// True for a sleep whose run ended in a way no source showed (`LIFECYCLE_RUN_END=unknown`).
    public var isEndUnknown: Bool
    /// For a crash notice, how the run failed (`LIFECYCLE_UNIT_RESULT`, `_EXIT_CODE`, `_EXIT_STATUS`); else nil.
    public var failure: RunFailure?
    /// For a sleep or crash notice, what the run it ends cost and how it ended (`LIFECYCLE_RUN_…`); empty when
    /// nothing is known (any other dispatch, or one written before the fields).
    public var run = RunRecord()
    /// The timer whose elapse began the run (a launch or wake) or went without a run (a `missed` dispatch), with how
    /// late the run began and why the run was missed (`LIFECYCLE_TIMER`, `_TIMER_LATENESS_SECONDS`,
    /// `LIFECYCLE_MISSED_CAUSE`); nil when none.
    public var timer: String?
    public var timerLatenessSeconds: Double?
    public var missedCause: String?
    /// `LIFECYCLE_PAYLOAD` as it was written (a JSON object), when it was read.
    public var payloadText: String?
    /// The readable `MESSAGE`, when it was read.
    public var message: String?
    /// The machine that wrote it, for a collected journal: `_HOSTNAME` and `_MACHINE_ID`, when read.
    public var hostname: String?
    public var machineID: String?

    /// The fields a dispatch is rebuilt from: enough for recovery and for runs.
    public static let fields = [
        DispatchField.messageID, DispatchField.unit, DispatchField.event, DispatchField.sequence, DispatchField.time,
        DispatchField.invocationID, DispatchField.version, DispatchField.autotracked, DispatchField.reconciled,
        DispatchField.runEnd, DispatchField.unitResult, DispatchField.exitCode, DispatchField.exitStatus,
        DispatchField.timer, DispatchField.timerLatenessSeconds, DispatchField.missedCause,
    ] + DispatchField.run

    /// ``fields`` and the payload, the message and the machine: for views that show what a dispatch counted.
    public static let allFields = fields + [
        DispatchField.payload, DispatchField.message, DispatchField.hostname, DispatchField.machineID,
    ]

    public init(
        unit: String, sequence: UInt64, kind: DispatchKind, time: Milliseconds, invocationID: String? = nil,
        version: String? = nil, isAutotracked: Bool = true, failure: RunFailure? = nil, event: String? = nil,
        isReconciled: Bool = false, isEndUnknown: Bool = false
    ) {
        self.unit = unit
        self.sequence = sequence
        self.kind = kind
        self.event = event ?? kind.rawValue
        self.time = time
        self.invocationID = invocationID
        self.version = version
        self.isAutotracked = isAutotracked
        self.isReconciled = isReconciled
        self.isEndUnknown = isEndUnknown
        self.failure = failure
    }

    /// Reads an entry's fields; nil when it is not a dispatch of this schema (a unit, a sequence number, one of the
    /// six MESSAGE_IDs and a readable time are needed).
    public init?(fields: [String: String]) {
        guard let unit = fields[DispatchField.unit],
            let sequence = fields[DispatchField.sequence].flatMap({ UInt64($0) }),
            let kind = DispatchKind.allCases.first(where: { $0.messageID == fields[DispatchField.messageID] }),
            let time = fields[DispatchField.time].flatMap(TimestampParser.milliseconds(from:))
        else { return nil }
        self.init(
            unit: unit, sequence: sequence, kind: kind, time: time, invocationID: fields[DispatchField.invocationID],
            version: fields[DispatchField.version], isAutotracked: fields[DispatchField.autotracked] == "true",
            failure: kind == .crash ? RunFailure(journalFields: fields, time: time) : nil,
            event: fields[DispatchField.event], isReconciled: fields[DispatchField.reconciled] == "true",
            isEndUnknown: fields[DispatchField.runEnd] == DispatchField.unknownRunEnd
        )
        run = RunRecord(journalFields: fields)
        timer = fields[DispatchField.timer]
        timerLatenessSeconds = fields[DispatchField.timerLatenessSeconds].flatMap { Double($0) }
        missedCause = fields[DispatchField.missedCause]
        payloadText = fields[DispatchField.payload]
        message = fields[DispatchField.message]
        hostname = fields[DispatchField.hostname]
        machineID = fields[DispatchField.machineID]
    }

    /// The payload as JSON; nil when it was not read or is not JSON.
    public var payload: JSONValue? {
        payloadText.flatMap { try? JSONParser.parse($0) }
    }

    /// Where this dispatch leaves the unit's run: a launch or wake leaves it running, a sleep stopped, a crash notice
    /// failed; a custom event says nothing about it.
    public var runState: RunState? {
        switch kind {
        case .launch, .wake: .running
        case .sleep: .stopped
        case .crash: .failed
        case .custom, .missed: nil
        }
    }
}

extension RunFailure {
    /// The failure a crash notice's journal entry describes (docs/journal.md: `LIFECYCLE_UNIT_RESULT`,
    /// `LIFECYCLE_EXIT_CODE`, `LIFECYCLE_EXIT_STATUS`).
    public init(journalFields fields: [String: String], time: Milliseconds) {
        self.init(
            result: fields[DispatchField.unitResult] ?? "unknown",
            exitCode: fields[DispatchField.exitCode],
            exitStatus: fields[DispatchField.exitStatus].flatMap { Int64($0) },
            time: time
        )
    }
}
