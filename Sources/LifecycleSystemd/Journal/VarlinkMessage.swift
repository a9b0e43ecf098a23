// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Varlink's framing, as journald's `io.systemd.Journal` interface speaks it: each message is one JSON object followed
/// by a NUL byte; a call names its `method` and carries `parameters`, a reply carries `parameters`, or `error` (the
/// error's qualified name) with the error's `parameters`.
public enum VarlinkMessage {
    /// A varlink reply: success, or the error it names.
    public enum Reply: Sendable, Equatable {
        case parameters
        case error(String)
    }

    /// A reply that is not varlink.
    public struct MalformedReply: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var description: String { "malformed varlink reply: \(reason)" }
    }

    /// The bytes of a call of `method` without parameters, NUL included.
    public static func call(_ method: String) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 64)
        writer.raw("{\"method\":")
        writer.string(method)
        writer.raw(",\"parameters\":{}}")
        return writer.bytes + [0]
    }

    /// The first reply in `bytes` (what was read so far), or nil while its NUL has not come yet.
    ///
    /// - Throws: ``MalformedReply`` when the bytes before the NUL are not a JSON object, or its `error` not a string.
    public static func reply(in bytes: [UInt8]) throws(MalformedReply) -> Reply? {
        guard let end = bytes.firstIndex(of: 0) else { return nil }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes[..<end])
        } catch {
            throw MalformedReply(reason: error.description)
        }
        guard let object = value.objectValue else { throw MalformedReply(reason: "not a JSON object") }
        guard let error = object["error"] else { return .parameters }
        guard let name = error.stringValue else { throw MalformedReply(reason: "its error is not a string") }
        return .error(name)
    }
}
