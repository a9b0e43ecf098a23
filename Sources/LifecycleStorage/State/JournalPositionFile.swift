// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine

/// `journal-position.json` in the state directory, beside `units/`: how far PID 1's journal has been taken into
/// account (``JournalPosition``). The next start reads PID 1's runs from the entry after it.
///
/// It is replaced atomically (``AtomicFile``), so a crash leaves the old position or the new one. An older position
/// only makes the next recovery read more: a unit's runs are taken only after the run its record holds.
///
/// ```json
/// {"boot_id":"…","cursor":"s=…;i=…;b=…;m=…;t=…;x=…","monotonic_usec":12345,"realtime_usec":1767225600000000,"schema_version":1}
/// ```
public struct JournalPositionFile: Sendable {
    public static let name = "journal-position.json"
    static let schemaVersion: Int64 = 1
    /// A real file is about 200 bytes.
    static let maximumSize = 4_096

    /// The state directory.
    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public var path: String { directory + "/" + Self.name }

    /// The saved position; nil when there is none yet (the first start, or an upgrade from a version without it).
    ///
    /// - Throws: ``StateStoreError/io(path:operation:errno:)`` when the file cannot be read,
    ///   ``StateStoreError/malformed(path:reason:)`` naming what is wrong in it.
    public func load() throws(StateStoreError) -> JournalPosition? {
        let bytes: [UInt8]
        do {
            let fd = try Posix.openFile(path, flags: O_RDONLY | O_CLOEXEC)
            defer { Posix.closeIgnoringErrors(fd) }
            bytes = try Posix.readAll(fd, limit: Self.maximumSize)
        } catch where error.errno == ENOENT {
            return nil
        } catch {
            throw .io(path: path, operation: "read", errno: error.errno)
        }
        return try Self.position(in: bytes, path: path)
    }

    /// Replaces the file with `position`, creating the state directory when needed.
    public func save(_ position: JournalPosition) throws(StateStoreError) {
        do {
            try Posix.makeDirectory(directory, mode: 0o755)
        } catch {
            throw .io(path: directory, operation: "create directory", errno: error.errno)
        }
        try AtomicFile.replace(Array(Self.text(of: position).utf8), at: path, mode: 0o644)
    }

    static func text(of position: JournalPosition) -> String {
        let object: [String: JSONValue] = [
            "schema_version": .int(schemaVersion),
            "cursor": .string(position.cursor),
            "boot_id": .string(position.bootID),
            "monotonic_usec": .int(Int64(clamping: position.monotonicMicroseconds)),
            "realtime_usec": .int(Int64(clamping: position.realtimeMicroseconds)),
        ]
        var writer = JSONWriter()
        writer.value(.object(object))
        writer.byte(UInt8(ascii: "\n"))
        return writer.string
    }

    static func position(in bytes: [UInt8], path: String) throws(StateStoreError) -> JournalPosition {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw .malformed(path: path, reason: "\(error)")
        }
        guard let object = value.objectValue else {
            throw .malformed(path: path, reason: "expected an object, found \(value.typeName)")
        }
        func string(_ key: String) throws(StateStoreError) -> String {
            guard let text = object[key]?.stringValue, !text.isEmpty else {
                throw .malformed(path: path, reason: "\"\(key)\" must be a non-empty string")
            }
            return text
        }
        func count(_ key: String) throws(StateStoreError) -> UInt64 {
            guard case .int(let number)? = object[key], number >= 0 else {
                throw .malformed(path: path, reason: "\"\(key)\" must be a number of microseconds, 0 or more")
            }
            return UInt64(number)
        }
        guard case .int(let version)? = object["schema_version"] else {
            throw .malformed(path: path, reason: "\"schema_version\" must be a number")
        }
        guard version <= schemaVersion else {
            throw .unsupportedVersion(path: path, key: "schema_version", found: Int(version), supported: Int(schemaVersion))
        }
        let boot = try string("boot_id")
        guard boot.utf8.count == 32, boot.utf8.allSatisfy({ UInt8(ascii: "0")...UInt8(ascii: "9") ~= $0 || UInt8(ascii: "a")...UInt8(ascii: "f") ~= $0 }) else {
            throw .malformed(path: path, reason: "\"boot_id\" must be 32 lower-case hex digits")
        }
        return JournalPosition(
            cursor: try string("cursor"), bootID: boot, monotonicMicroseconds: try count("monotonic_usec"),
            realtimeMicroseconds: try count("realtime_usec")
        )
    }
}
