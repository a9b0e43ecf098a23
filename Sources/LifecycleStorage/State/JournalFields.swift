// SPDX-License-Identifier: Apache-2.0

/// A journal entry's fields in the order they are sent, as a state file keeps a dispatch that may not have reached the
/// journal yet: sent again, the entry is the entry sent first, field for field.
///
/// Coded as an array of `[name, value]` pairs. A state file of an earlier build holds a JSON object instead; it is
/// read with its fields in name order.
public struct JournalFields: Sendable, Equatable, Codable, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public private(set) var fields: [Field]

    public init(_ fields: [(name: String, value: String)]) {
        self.fields = fields.map { Field(name: $0.name, value: $0.value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { (name: $0.0, value: $0.1) })
    }

    /// The fields as `sd_journal_sendv` takes them.
    public var pairs: [(name: String, value: String)] { fields.map { ($0.name, $0.value) } }

    /// The value of the first field named `name`.
    public subscript(name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let pairs = try? container.decode([[String]].self) {
            fields = try pairs.map { pair in
                guard pair.count == 2 else {
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "expected [name, value] pairs, found \(pair.count) strings"
                    )
                }
                return Field(name: pair[0], value: pair[1])
            }
        } else {
            let object = try container.decode([String: String].self)
            fields = object.sorted { $0.key < $1.key }.map { Field(name: $0.key, value: $0.value) }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields.map { [$0.name, $0.value] })
    }
}
