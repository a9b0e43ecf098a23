// SPDX-License-Identifier: Apache-2.0

import LifecycleSchema

extension Fixtures {
    /// A dispatch as lifecycled writes it to the journal and reads it back: `fields`, with the MESSAGE_ID of the kind
    /// its LIFECYCLE_EVENT names (a custom event's for any other name) and LIFECYCLE_UNIT app.service, unless given.
    static func journaled(_ fields: [String: String]) -> JournaledDispatch {
        var fields = fields
        let kind = fields[DispatchField.event].flatMap(DispatchKind.init(rawValue:)) ?? .custom
        fields[DispatchField.messageID] = fields[DispatchField.messageID] ?? kind.messageID
        fields[DispatchField.unit] = fields[DispatchField.unit] ?? "app.service"
        fields[DispatchField.time] = fields[DispatchField.time] ?? "2026-03-02T10:00:00.000Z"
        guard let dispatch = JournaledDispatch(fields: fields) else { fatalError("not a dispatch: \(fields)") }
        return dispatch
    }

    static func journaled(_ list: [[String: String]]) -> [JournaledDispatch] {
        list.map(journaled)
    }
}
