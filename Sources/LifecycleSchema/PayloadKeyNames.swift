// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Synchronization

/// Payload keys as `String`s and as journal field names, each made once per key.
///
/// Every dispatch carries the same few dozen keys; making a key's `String` from its static text and its field name
/// with ``LifecycleFieldName/sanitize(_:)`` cost more than the rest of the entry. The lifecycle data points' names are
/// made once, in a table by their key, with the key's place in sorted order: a payload's data points are put in
/// order by it, without comparing their texts (docs/PERFORMANCE.md, "Fewer instructions per run, fifth round").
/// Custom keys are found by their text, and only the first ``customLimit`` are kept, as they come from outside.
enum PayloadKeyNames {
    struct Names: Sendable {
        let key: String
        let fieldName: String
        /// The key's place among every data point's keys, sorted as `String`s compare.
        let rank: Int
    }

    static let customLimit = 1_024

    /// By ``LifecycleData/Key/rawValue``.
    private static let lifecycle: [Names] = {
        let keys = LifecycleData.Key.allCases.map(\.description)
        let sorted = keys.sorted()
        return keys.map { key in
            Names(key: key, fieldName: LifecycleFieldName.sanitize(key), rank: sorted.firstIndex(of: key)!)
        }
    }()

    private static let custom = Mutex<[String: String]>([:])

    /// The names of a lifecycle data point's key.
    static func names(of key: LifecycleData.Key) -> Names {
        lifecycle[key.rawValue]
    }

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
