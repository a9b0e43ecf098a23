// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Synchronization

/// Payload keys as the entry writes them, each made once per key.
///
/// Every dispatch carries the same few dozen keys; making a key's `String` from its static text and its field name
/// with ``LifecycleFieldName/sanitize(_:)`` cost more than the rest of the entry. The lifecycle data points' keys are
/// made once, in a table in sorted key order: a payload's data points are put in order by their place in it, without
/// comparing their texts (docs/PERFORMANCE.md, "Fewer instructions per run, fifth round"), and each one's `"key":` and
/// field name are copied from one buffer, without a `String` retained or escaped for them (docs/PERFORMANCE.md, "A
/// dispatch's payload written once"). Custom keys are found by their text, and only the first ``customLimit`` are
/// kept, as they come from outside.
enum PayloadKeyNames {
    /// The lifecycle data points' keys in sorted order (as `String`s compare), with what the entry writes of each.
    struct Table: Sendable {
        /// By rank: the key's text, which custom keys are compared with.
        let texts: [String]
        /// By ``LifecycleData/Key/rawValue``: the key's rank.
        let ranks: [Int]
        /// By rank: where the key's `"key":` and its field name lie in ``bytes``.
        let quotedKeys: [Range<Int>]
        let fieldNames: [Range<Int>]
        let bytes: [UInt8]
        /// The rank of each field name.
        let ranksByFieldName: [String: Int]

        fileprivate init() {
            let texts = LifecycleData.Key.allCases.map(\.description)
            let order = texts.indices.sorted { texts[$0] < texts[$1] }
            self.texts = order.map { texts[$0] }
            var ranks = [Int](repeating: 0, count: texts.count)
            for (rank, index) in order.enumerated() { ranks[index] = rank }
            self.ranks = ranks
            var bytes: [UInt8] = []
            var quotedKeys: [Range<Int>] = []
            var fieldNames: [Range<Int>] = []
            for text in self.texts {
                let start = bytes.count
                var writer = JSONWriter()
                writer.string(text)
                bytes += writer.bytes + [UInt8(ascii: ":")]
                quotedKeys.append(start..<bytes.count)
                bytes += Array(LifecycleFieldName.sanitize(text).utf8)
                fieldNames.append(quotedKeys.last!.upperBound..<bytes.count)
            }
            self.quotedKeys = quotedKeys
            self.fieldNames = fieldNames
            self.bytes = bytes
            ranksByFieldName = Dictionary(
                uniqueKeysWithValues: fieldNames.enumerated().map { (String(decoding: bytes[$1], as: UTF8.self), $0) }
            )
        }

        /// Where custom data under `key` goes among the data points: before the first whose key is greater, or in
        /// place of the one whose key it is (`replaces`). Found by halving: a custom key is compared with five of
        /// them, not with each.
        func place(of key: String) -> (rank: Int, replaces: Bool) {
            var start = 0
            var end = texts.count
            while start < end {
                let middle = (start + end) / 2
                if texts[middle] < key { start = middle + 1 } else { end = middle }
            }
            return (start, start < texts.count && texts[start] == key)
        }
    }

    static let customLimit = 1_024

    static let lifecycle = Table()

    private static let custom = Mutex<[String: String]>([:])

    /// The field name of a custom payload key.
    static func fieldName(of key: String) -> String {
        if let known = custom.withLock({ $0[key] }) { return known }
        let name = LifecycleFieldName.sanitize(key)
        custom.withLock { cache in
            if cache.count < customLimit { cache[key] = name }
        }
        return name
    }
}
