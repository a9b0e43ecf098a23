// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The journal entry of one dispatch, field by field, exactly as docs/journal.md specifies it.
///
/// Pure: building an entry sends nothing, so the schema, a public interface, is pinned by tests. The fields come in
/// a fixed order: `MESSAGE`, `MESSAGE_ID`, `PRIORITY`, `SYSLOG_IDENTIFIER`, `OBJECT_SYSTEMD_UNIT`, `LIFECYCLE_UNIT`,
/// `LIFECYCLE_EVENT`, `LIFECYCLE_TIME`, `LIFECYCLE_INVOCATION_ID` (when known), `LIFECYCLE_SEQUENCE`,
/// `LIFECYCLE_VERSION` (when known), `LIFECYCLE_PAYLOAD`, then one field per payload key in sorted key order (the
/// order of `LIFECYCLE_PAYLOAD`).
public struct DispatchJournalEntry: Sendable, Equatable {
    /// `SYSLOG_IDENTIFIER` of every dispatch.
    public static let syslogIdentifier = "lifecycled"

    /// The fields in order, as they are sent and kept in the state file until the journal confirms them. Every name
    /// is a valid journal field name.
    public let journalFields: JournalFields

    /// The fields in order, as strings.
    public var fields: [(name: String, value: String)] { journalFields.pairs }

    /// Builds the entry of one dispatch.
    ///
    /// - Parameters:
    ///   - unit: the unit's name, for example `nginx.service`.
    ///   - dispatch: the dispatch, with its merged payload.
    ///   - invocationID: the run's systemd InvocationID; nil or empty when unknown, and then the field is left out.
    ///   - sequence: the unit's dispatch number; a re-sent dispatch carries the same one.
    ///   - kind: the dispatch's kind, see ``DispatchKind/init(dispatch:isCrashNotice:)``.
    ///   - version: the unit's stored version after the event, nil when none is known; with it the state can be
    ///     rebuilt from the journal exactly (see `UnitTracker+JournalRecovery.swift`).
    public init(
        unit: String, dispatch: Dispatch, invocationID: String?, sequence: UInt64, kind: DispatchKind, version: String? = nil
    ) {
        let payload = Payload(of: dispatch)
        var fields = JournalFields()
        fields.reserveCapacity(fields: 12 + payload.members.count, bytes: 2 * payload.json.count + 512)
        fields.append(name: DispatchField.message, value: Self.message(unit: unit, dispatch: dispatch, kind: kind))
        fields.append(name: DispatchField.messageID, value: kind.messageID)
        fields.append(name: "PRIORITY", value: String(kind.priority))
        fields.append(name: "SYSLOG_IDENTIFIER", value: Self.syslogIdentifier)
        fields.append(name: "OBJECT_SYSTEMD_UNIT", value: unit)
        fields.append(name: DispatchField.unit, value: unit)
        fields.append(name: DispatchField.event, value: dispatch.name)
        fields.append(name: DispatchField.time, value: LifecycleDateFormat.iso8601Milliseconds.string(dispatch.time))
        if let invocationID, !invocationID.isEmpty {
            fields.append(name: DispatchField.invocationID, value: invocationID)
        }
        fields.append(name: DispatchField.sequence, value: String(sequence))
        if let version {
            fields.append(name: DispatchField.version, value: version)
        }
        fields.append(name: DispatchField.payload) { $0.append(contentsOf: payload.json) }
        payload.appendFields(to: &fields)
        // Kept, and saved, until the journal confirms it.
        fields.finish()
        journalFields = fields
    }

    public init(fields: [(name: String, value: String)]) {
        journalFields = JournalFields(fields)
    }

    /// The entry of a dispatch kept in a state file.
    public init(journalFields: JournalFields) {
        self.journalFields = journalFields
    }

    /// A payload value as a field value: integers in decimal, `true`/`false`, strings as they are, null as the empty
    /// string, and numbers with a fraction, arrays and objects as compact JSON with sorted keys.
    public static func fieldValue(_ value: JSONValue) -> String {
        switch value {
        case .null: ""
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .string(let text): text
        case .double, .array, .object: json(value)
        }
    }

    private static func json(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return writer.string
    }
}
