// SPDX-License-Identifier: Apache-2.0

import Synchronization

/// Payload keys as `String`s and as journal field names, each made once per key.
///
/// Every dispatch carries the same few dozen keys; making a key's `String` from its static text and its field name
/// with ``LifecycleFieldName/sanitize(_:)`` cost more than the rest of the entry. The lifecycle data points are found
/// by the address of their static text, an integer to hash; custom keys by their text, and only the first
/// ``customLimit`` are kept, as they come from outside.
enum PayloadKeyNames {
    struct Names: Sendable {
        let key: String
        let fieldName: String
    }

    static let customLimit = 1_024

    private static let lifecycle = Mutex<[UInt: Names]>([:])
    private static let custom = Mutex<[String: String]>([:])

    /// The names of a lifecycle data point's key (`LifecycleData.forEachField`).
    static func names(of key: StaticString) -> Names {
        let address = UInt(bitPattern: key.utf8Start)
        if let known = lifecycle.withLock({ $0[address] }) { return known }
        let text = key.description
        let names = Names(key: text, fieldName: LifecycleFieldName.sanitize(text))
        lifecycle.withLock { $0[address] = names }
        return names
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
