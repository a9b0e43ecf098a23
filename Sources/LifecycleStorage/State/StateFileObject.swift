// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// One JSON object of a parsed state file, read key by key with the types a record needs. A wrong or missing value
/// is a ``StateFileDecoder/Corruption`` that names its key path (`state.count_launch: expected an integer, found a
/// string`), like the decoding errors of Foundation's `JSONDecoder` that this replaces. As with `decodeIfPresent`, an
/// optional key may be absent or `null`.
struct StateFileObject {
    let members: [String: JSONValue]
    /// The key path of this object in the file, "" for the top level.
    let path: String

    init(_ members: [String: JSONValue], path: String = "") {
        self.members = members
        self.path = path
    }

    typealias Corruption = StateFileDecoder.Corruption

    func keyPath(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The value of `key`, nil when absent or null.
    func optional(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    func required(_ key: String) throws(Corruption) -> JSONValue {
        guard let value = optional(key) else { throw Corruption(reason: "missing key \(keyPath(key))") }
        return value
    }

    func mismatch(_ key: String, expected: String, found value: JSONValue) -> Corruption {
        // A number that is no 64-bit integer (a fraction, or beyond ±2⁶³) is shown: "a number" would puzzle.
        let found = if case .double(let number) = value { "\(number)" } else { value.typeName }
        return Corruption(reason: "\(keyPath(key)): expected \(expected), found \(found)")
    }

    func int(_ key: String) throws(Corruption) -> Int64 {
        let value = try required(key)
        guard let number = Self.int(value) else { throw mismatch(key, expected: "an integer", found: value) }
        return number
    }

    func optionalInt(_ key: String) throws(Corruption) -> Int64? {
        guard let value = optional(key) else { return nil }
        guard let number = Self.int(value) else { throw mismatch(key, expected: "an integer", found: value) }
        return number
    }

    func string(_ key: String) throws(Corruption) -> String {
        let value = try required(key)
        guard case .string(let text) = value else { throw mismatch(key, expected: "a string", found: value) }
        return text
    }

    func optionalString(_ key: String) throws(Corruption) -> String? {
        guard let value = optional(key) else { return nil }
        guard case .string(let text) = value else { throw mismatch(key, expected: "a string", found: value) }
        return text
    }

    func optionalBool(_ key: String) throws(Corruption) -> Bool? {
        guard let value = optional(key) else { return nil }
        guard case .bool(let flag) = value else { throw mismatch(key, expected: "true or false", found: value) }
        return flag
    }

    func object(_ key: String) throws(Corruption) -> StateFileObject {
        let value = try required(key)
        guard case .object(let members) = value else { throw mismatch(key, expected: "an object", found: value) }
        return StateFileObject(members, path: keyPath(key))
    }

    func optionalObject(_ key: String) throws(Corruption) -> StateFileObject? {
        guard let value = optional(key) else { return nil }
        guard case .object(let members) = value else { throw mismatch(key, expected: "an object", found: value) }
        return StateFileObject(members, path: keyPath(key))
    }

    func optionalArray(_ key: String) throws(Corruption) -> [JSONValue]? {
        guard let value = optional(key) else { return nil }
        guard case .array(let items) = value else { throw mismatch(key, expected: "an array", found: value) }
        return items
    }

    /// An integer, also from a number written with a fraction of zero (`2.0`), as `JSONDecoder` reads one.
    private static func int(_ value: JSONValue) -> Int64? {
        switch value {
        case .int(let number): number
        case .double(let number): Int64(exactly: number)
        default: nil
        }
    }
}
