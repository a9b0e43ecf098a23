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
        let payload = Self.sortedPayload(of: dispatch)
        var fields = JournalFields()
        fields.reserveCapacity(fields: 12 + payload.count, bytes: 2_048)
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
        fields.append(name: DispatchField.payload) { Self.writeJSON(payload, to: &$0) }

        // Two keys can map to one name (`build-id` and `build_id`). journald would keep both values under that name,
        // and a reader could not tell which key each came from, so only the first key in sorted order gets the
        // field; the others are still in LIFECYCLE_PAYLOAD. Sorted order makes the choice the same on every run and
        // machine, whatever order the dictionary happens to iterate in.
        // The lifecycle data points' names are distinct and none is reserved (`DispatchJournalEntryTests`): only a
        // custom key's name, and a data point's that equals one of those, can be taken already.
        let names = payload.map { $0.fieldName ?? PayloadKeyNames.fieldName(of: $0.key) }
        let customNames = zip(payload, names).compactMap { member, name in member.fieldName == nil ? name : nil }
        var used = Set<String>(minimumCapacity: 2 * customNames.count)
        for (member, name) in zip(payload, names) {
            if member.fieldName == nil || customNames.contains(name) {
                guard !DispatchField.reserved.contains(name), used.insert(name).inserted else { continue }
            }
            fields.append(name: name) { member.value.appendFieldValue(to: &$0) }
        }
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

    /// One member of the payload, with its field name when it is already known. A data point keeps its engine form
    /// and is written straight into the entry's buffer, twice (in `LIFECYCLE_PAYLOAD` and as its own field), without
    /// a string or a ``JSONValue`` made for it first.
    private struct PayloadMember {
        let key: String
        let fieldName: String?
        /// A data point's place in sorted order (``PayloadKeyNames/Names/rank``); 0 for custom data.
        let rank: Int
        let value: Value

        enum Value {
            case lifecycle(LifecycleData.Field)
            case custom(JSONValue)

            /// Appends the value as its field holds it: the bytes ``DispatchJournalEntry/fieldValue(_:)`` gives.
            func appendFieldValue(to bytes: inout [UInt8]) {
                switch self {
                case .lifecycle(.int(let number)), .custom(.int(let number)):
                    JSONWriter.append(to: &bytes) { $0.integer(number) }
                case .lifecycle(.bool(let flag)), .custom(.bool(let flag)):
                    bytes.append(contentsOf: (flag ? "true" : "false").utf8)
                case .lifecycle(.event(let event)): bytes.append(contentsOf: event.rawValue.utf8)
                case .lifecycle(.isoDate(let time)): LifecycleDateFormat.iso8601.append(time, to: &bytes)
                case .lifecycle(.monthDayYear(let time)): LifecycleDateFormat.monthDayYear.append(time, to: &bytes)
                case .custom(.string(let text)): bytes.append(contentsOf: text.utf8)
                case .custom(let other): bytes.append(contentsOf: DispatchJournalEntry.fieldValue(other).utf8)
                }
            }

            func write(to writer: inout JSONWriter) {
                switch self {
                case .lifecycle(let field): writer.field(field)
                case .custom(let value): writer.value(value)
                }
            }
        }
    }

    /// `dispatch.payload` (the lifecycle data points, custom data winning), as members sorted by key: the order of
    /// `LIFECYCLE_PAYLOAD` and of the per-key fields. Built without the dictionary, whose keys would be hashed,
    /// sorted and looked up again. The data points are put in order by their rank, the custom data (a few keys, most
    /// often none) by their keys, and the two merged: the texts of a churn run's twenty-odd data points are not
    /// compared with each other.
    private static func sortedPayload(of dispatch: Dispatch) -> [PayloadMember] {
        var lifecycle: [PayloadMember] = []
        lifecycle.reserveCapacity(LifecycleData.Key.allCases.count)
        dispatch.lifecycle?.forEachField { key, field in
            let names = PayloadKeyNames.names(of: key)
            lifecycle.append(
                PayloadMember(key: names.key, fieldName: names.fieldName, rank: names.rank, value: .lifecycle(field))
            )
        }
        lifecycle.sort { $0.rank < $1.rank }
        guard !dispatch.customData.isEmpty else { return lifecycle }
        let custom = dispatch.customData.map {
            PayloadMember(key: $0.key, fieldName: nil, rank: 0, value: .custom($0.value))
        }.sorted { $0.key < $1.key }
        var members: [PayloadMember] = []
        members.reserveCapacity(lifecycle.count + custom.count)
        var nextLifecycle = 0
        for member in custom {
            // The data points before it, found by halving: a custom key is compared with five of them, not all.
            var end = lifecycle.count
            var start = nextLifecycle
            while start < end {
                let middle = (start + end) / 2
                if lifecycle[middle].key < member.key { start = middle + 1 } else { end = middle }
            }
            members.append(contentsOf: lifecycle[nextLifecycle..<start])
            nextLifecycle = start
            // Only custom data under a data point's key can equal it: the custom value wins.
            if nextLifecycle < lifecycle.count, lifecycle[nextLifecycle].key == member.key { nextLifecycle += 1 }
            members.append(member)
        }
        members.append(contentsOf: lifecycle[nextLifecycle...])
        return members
    }

    /// Appends the payload as `JSONWriter` writes an object: compact, keys in sorted order.
    private static func writeJSON(_ payload: [PayloadMember], to bytes: inout [UInt8]) {
        JSONWriter.append(to: &bytes) { writer in
            writer.byte(UInt8(ascii: "{"))
            for (index, member) in payload.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                writer.string(member.key)
                writer.byte(UInt8(ascii: ":"))
                member.value.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "}"))
        }
    }
}
