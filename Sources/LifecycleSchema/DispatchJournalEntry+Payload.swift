// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

extension DispatchJournalEntry {
    /// `dispatch.payload` (the lifecycle data points, custom data winning) as `LIFECYCLE_PAYLOAD` holds it, compact
    /// JSON with its keys in sorted order, and its members in that order, for their fields of their own.
    ///
    /// Built without the dictionary, whose keys would be hashed, sorted and looked up again: the data points are put
    /// in order by their rank in ``PayloadKeyNames/lifecycle``, the custom data (a few keys: a run's record, a manual
    /// event's data) by their keys, and each custom key placed among the data points by halving. A data point's field
    /// holds the bytes its value was written as in the JSON (without the quotes of a date or an event, which need no
    /// escape): each value is formatted once, and no `String` is made for it (docs/PERFORMANCE.md, "A dispatch's
    /// payload written once"). `DispatchJournalEntryTests` checks the result against the dictionary's.
    struct Payload {
        enum Member {
            /// A data point, by its rank; its field holds the bytes at `value` in ``Payload/json``.
            case lifecycle(rank: Int, value: Range<Int>)
            case custom(key: String, value: JSONValue)
        }

        let json: [UInt8]
        let members: [Member]

        init(of dispatch: Dispatch) {
            let table = PayloadKeyNames.lifecycle
            var byRank = [LifecycleData.Field?](repeating: nil, count: table.texts.count)
            dispatch.lifecycle?.forEachField { key, field in byRank[table.ranks[key.rawValue]] = field }
            let custom = dispatch.customData.isEmpty ? [] : dispatch.customData.sorted { $0.key < $1.key }
            let places = custom.map { table.place(of: $0.key) }
            var members: [Member] = []
            members.reserveCapacity(byRank.count + custom.count)
            var json: [UInt8] = []
            json.reserveCapacity(1_024)
            JSONWriter.append(to: &json) { writer in
                writer.byte(UInt8(ascii: "{"))
                var nextCustom = 0
                table.bytes.withUnsafeBufferPointer { names in
                    for rank in 0...byRank.count {
                        // The custom data placed before this data point, or in its place: custom data wins.
                        var isReplaced = false
                        while nextCustom < custom.count, places[nextCustom].rank <= rank {
                            let (key, value) = custom[nextCustom]
                            isReplaced = isReplaced || places[nextCustom].replaces
                            nextCustom += 1
                            if !members.isEmpty { writer.byte(UInt8(ascii: ",")) }
                            writer.string(key)
                            writer.byte(UInt8(ascii: ":"))
                            writer.value(value)
                            members.append(.custom(key: key, value: value))
                        }
                        guard rank < byRank.count, !isReplaced, let field = byRank[rank] else { continue }
                        if !members.isEmpty { writer.byte(UInt8(ascii: ",")) }
                        writer.append(json: UnsafeBufferPointer(rebasing: names[table.quotedKeys[rank]]))
                        let start = writer.bytes.count
                        writer.field(field)
                        let end = writer.bytes.count
                        let isText = writer.bytes[start] == UInt8(ascii: "\"")
                        members.append(.lifecycle(rank: rank, value: isText ? start + 1..<end - 1 : start..<end))
                    }
                }
                writer.byte(UInt8(ascii: "}"))
            }
            self.json = json
            self.members = members
        }

        /// Appends each member's field of its own, in order.
        ///
        /// Two keys can map to one name (`build-id` and `build_id`). journald would keep both values under that name,
        /// and a reader could not tell which key each came from, so only the first key in sorted order gets the
        /// field; the others are still in `LIFECYCLE_PAYLOAD`. Sorted order makes the choice the same on every run and
        /// machine, whatever order the dictionary happens to iterate in. The lifecycle data points' names are distinct
        /// and none is reserved (`DispatchJournalEntryTests`): only a custom key's name, and a data point's that
        /// equals one of those, can be taken already.
        func appendFields(to fields: inout JournalFields) {
            let table = PayloadKeyNames.lifecycle
            let customNames = members.compactMap { member -> String? in
                guard case .custom(let key, _) = member else { return nil }
                return PayloadKeyNames.fieldName(of: key)
            }
            // The data points whose field name a custom key's is too.
            let contested = customNames.compactMap { table.ranksByFieldName[$0] }
            var used = Set<String>(minimumCapacity: 2 * customNames.count)
            var nextCustomName = 0
            json.withUnsafeBufferPointer { json in
                table.bytes.withUnsafeBufferPointer { names in
                    for member in members {
                        switch member {
                        case .lifecycle(let rank, let value):
                            let name = UnsafeBufferPointer(rebasing: names[table.fieldNames[rank]])
                            if contested.contains(rank) {
                                let text = String(decoding: name, as: UTF8.self)
                                guard !DispatchField.reserved.contains(text), used.insert(text).inserted else {
                                    continue
                                }
                            }
                            let value = UnsafeBufferPointer(rebasing: json[value])
                            fields.append(name: name) { $0.append(contentsOf: value) }
                        case .custom(_, let value):
                            let name = customNames[nextCustomName]
                            nextCustomName += 1
                            guard !DispatchField.reserved.contains(name), used.insert(name).inserted else { continue }
                            fields.append(name: name) { Self.appendFieldValue(value, to: &$0) }
                        }
                    }
                }
            }
        }

        /// Appends a custom value as its field holds it: the bytes ``DispatchJournalEntry/fieldValue(_:)`` gives.
        private static func appendFieldValue(_ value: JSONValue, to bytes: inout [UInt8]) {
            switch value {
            case .int(let number): JSONWriter.append(to: &bytes) { $0.integer(number) }
            case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
            case .string(let text): bytes.append(contentsOf: text.utf8)
            default: bytes.append(contentsOf: DispatchJournalEntry.fieldValue(value).utf8)
            }
        }
    }
}
