// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Reads the bytes of a state file, telling apart the three outcomes that need different handling: a record, a file
/// that cannot be parsed (moved aside; the daemon rebuilds the unit from the journal), and a file from a newer lifecycled (refused).
enum StateFileDecoder {
    enum Outcome: Sendable {
        case record(UnitRecord)
        case corrupt(reason: String)
    }

    /// Decodes a state file that should hold the state of `unit`, or of any unit when `unit` is nil (the caller then
    /// checks the unit it holds).
    ///
    /// - Throws: ``StateStoreError/unsupportedVersion(path:key:found:supported:)`` for a newer schema.
    static func decode(_ bytes: [UInt8], unit: String?, path: String) throws(StateStoreError) -> Outcome {
        let document: [String: JSONValue]
        switch parse(bytes) {
        case .success(let object): document = object
        case .failure(let corruption): return .corrupt(reason: corruption.reason)
        }
        // The version is checked before anything else, so a newer file is refused even if its layout changed.
        try checkVersions(document, path: path)
        guard case .int(let version) = document["schema_version"], version >= 1 else {
            return .corrupt(reason: "missing or invalid schema_version")
        }
        let record: UnitRecord
        do {
            record = try UnitRecord(stateFile: StateFileObject(document))
        } catch {
            return .corrupt(reason: error.reason)
        }
        if let unit, record.unit != unit {
            return .corrupt(reason: "it holds the state of \"\(record.unit)\", not of \"\(unit)\"")
        }
        return .record(record)
    }

    /// Throws when the document, whatever else is wrong with it, declares a schema newer than this build's.
    static func checkVersions(_ document: [String: JSONValue], path: String) throws(StateStoreError) {
        if case .int(let version) = document["schema_version"], version > UnitRecord.currentSchemaVersion {
            throw .unsupportedVersion(
                path: path,
                key: "schema_version",
                found: Int(clamping: version),
                supported: UnitRecord.currentSchemaVersion
            )
        }
        if case .object(let state)? = document["state"], case .int(let version) = state["schema_version"],
            version > UnitState.currentSchemaVersion
        {
            throw .unsupportedVersion(
                path: path,
                key: "state.schema_version",
                found: Int(clamping: version),
                supported: UnitState.currentSchemaVersion
            )
        }
    }

    struct Corruption: Error {
        var reason: String
    }

    /// Parses the bytes as one JSON object.
    static func parse(_ bytes: [UInt8]) -> Result<[String: JSONValue], Corruption> {
        if bytes.isEmpty { return .failure(Corruption(reason: "the file is empty")) }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            return .failure(Corruption(reason: "not valid UTF-8"))
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            let position = TextPosition(byteOffset: error.column - 1, in: bytes)
            return .failure(
                Corruption(reason: "invalid JSON at line \(position.line), column \(position.column): \(error.reason)")
            )
        }
        guard case .object(let object) = value else {
            return .failure(Corruption(reason: "expected a JSON object, found \(value.typeName)"))
        }
        return .success(object)
    }
}
