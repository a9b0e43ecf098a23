// SPDX-License-Identifier: Apache-2.0

/// One decoded line of a replay history (docs/lifecyclectl.md, "Replay a history").
struct ReplayLine {
    enum Action {
        case event(String)
        case observe(UnitObservation)
    }

    var unit: String
    var action: Action
    var time: Milliseconds
    var version: String?
    var data: [String: JSONValue]
    var newProcess: Bool

    static let maximumUnitNameLength = 255

    private static let knownKeys: Set<String> = ["unit", "event", "observe", "time", "version", "data", "new_process"]

    /// Decodes one line; the error names the key and what was wrong with it.
    init(_ value: JSONValue) throws(ReplayInputError) {
        guard case .object(let object) = value else {
            throw ReplayInputError("expected a JSON object, found \(value.typeName)")
        }
        for key in object.keys where !Self.knownKeys.contains(key) {
            let unknown = object.keys.filter { !Self.knownKeys.contains($0) }.sorted()
            throw ReplayInputError("unknown key \"\(unknown.first ?? key)\"")
        }
        unit = try Self.string(object, "unit")
        guard !unit.isEmpty else { throw ReplayInputError("\"unit\" is empty") }
        // systemd's limit for unit names (UNIT_NAME_MAX, 256 with the terminating NUL).
        guard unit.utf8.count <= Self.maximumUnitNameLength else {
            throw ReplayInputError("\"unit\" is longer than \(Self.maximumUnitNameLength) bytes")
        }
        guard !unit.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ReplayInputError("\"unit\" contains a control character")
        }

        switch (object["event"], object["observe"]) {
        case (.some, .some):
            throw ReplayInputError("a line has either \"event\" or \"observe\", not both")
        case (.none, .none):
            throw ReplayInputError("missing \"event\" or \"observe\"")
        case (.some, .none):
            let name = try Self.string(object, "event")
            guard !name.isEmpty else { throw ReplayInputError("\"event\" is empty") }
            action = .event(name)
        case (.none, .some):
            action = .observe(try Self.observation(try Self.string(object, "observe"), object))
        }

        switch object["time"] {
        case .string(let text):
            guard let parsed = TimestampParser.milliseconds(from: text) else {
                throw ReplayInputError("\"time\" is not an RFC 3339 timestamp with a zone: \"\(text)\"")
            }
            time = parsed
        case .int(let milliseconds):
            time = milliseconds
        case .none:
            throw ReplayInputError("missing \"time\"")
        case .some(let other):
            throw ReplayInputError("\"time\" must be a timestamp string or milliseconds, found \(other.typeName)")
        }

        switch object["version"] {
        case .none, .null: version = nil
        case .string(let text): version = text
        case .some(let other): throw ReplayInputError("\"version\" must be a string, found \(other.typeName)")
        }

        switch object["data"] {
        case .none, .null: data = [:]
        case .object(let values): data = values
        case .some(let other): throw ReplayInputError("\"data\" must be an object, found \(other.typeName)")
        }

        switch object["new_process"] {
        case .none, .null: newProcess = false
        case .bool(let flag): newProcess = flag
        case .some(let other): throw ReplayInputError("\"new_process\" must be true or false, found \(other.typeName)")
        }
    }

    private static func string(_ object: [String: JSONValue], _ key: String) throws(ReplayInputError) -> String {
        switch object[key] {
        case .string(let text): return text
        case .none: throw ReplayInputError("missing \"\(key)\"")
        case .some(let other): throw ReplayInputError("\"\(key)\" must be a string, found \(other.typeName)")
        }
    }

    private static func observation(
        _ name: String,
        _ object: [String: JSONValue]
    ) throws(ReplayInputError) -> UnitObservation {
        switch name {
        case "started":
            let version = object["version"]?.stringValue
            return .runBegan(version: version)
        case "stopped": return .runEnded
        case "failed": return .runFailed(details: object["data"]?.objectValue ?? [:])
        case "frozen": return .frozen
        case "thawed": return .thawed
        default:
            throw ReplayInputError(
                "\"observe\" must be started, stopped, failed, frozen or thawed, found \"\(name)\""
            )
        }
    }
}

/// Why a replay line was not understood.
public struct ReplayInputError: Error, Sendable, Hashable, CustomStringConvertible {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}
