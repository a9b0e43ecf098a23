// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// Writes structured entries to the journal.
///
/// Safe to use from any thread: `sd_journal_sendv(3)` is thread-safe (even async-signal-safe). Note that, called
/// from Swift, it adds no `CODE_FILE`/`CODE_LINE`/`CODE_FUNC` (in C those come from a macro); pass them as fields if
/// wanted.
public struct JournalSink: Sendable {
    public init() {}

    /// Sends one entry made of `NAME=value` fields.
    ///
    /// Wraps `sd_journal_sendv(3)`, the non-variadic form of `sd_journal_send`. Values may contain newlines or any
    /// bytes: `sendv` passes their lengths, so nothing is cut or escaped. When no journal socket exists, libsystemd
    /// succeeds without sending anything.
    ///
    /// - Parameter fields: The fields, in order; a name may repeat. Typically `MESSAGE`, `PRIORITY`,
    ///   `MESSAGE_ID` and names from ``JournalFieldName/sanitize(_:)``.
    /// - Throws: ``SystemdError`` with `EINVAL` if a name is not a valid field name (journald would drop the field
    ///   silently), or the errno of the failed send.
    public func send(_ fields: [(name: String, value: [UInt8])]) throws(SystemdError) {
        try send(fields.count) { index, buffer in
            buffer.append(contentsOf: fields[index].name.utf8)
            buffer.append(UInt8(ascii: "="))
            buffer.append(contentsOf: fields[index].value)
            return fields[index].name
        }
    }

    /// Sends `count` fields, each appended to one buffer by `append` (which returns the field's name); the iovecs
    /// point into the buffer, so a field costs no allocation of its own.
    private func send(_ count: Int, _ append: (Int, inout [UInt8]) -> String) throws(SystemdError) {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(4096)
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(count)
        for index in 0..<count {
            let start = buffer.count
            let name = append(index, &buffer)
            // Checked whole here: a name with a `=` in it would otherwise pass as its part before the `=`.
            guard JournalFieldName.isValid(name) else { throw Self.invalidName(name) }
            ranges.append(start..<buffer.count)
        }
        try send(buffer, fields: ranges)
    }

    /// Sends one entry whose fields lie in `bytes`, each `NAME=value` at one of `fields`, as they are.
    ///
    /// Wraps `sd_journal_sendv(3)`, with iovecs into `bytes`.
    ///
    /// - Throws: ``SystemdError`` with `EINVAL` if there is no field or a name is not a valid field name (journald
    ///   would drop the field silently), or the errno of the failed send.
    public func send(_ bytes: [UInt8], fields: [Range<Int>]) throws(SystemdError) {
        guard !fields.isEmpty else {
            throw SystemdError(errno: EINVAL, operation: "send a journal entry", message: "The entry has no fields")
        }
        for field in fields {
            let name = bytes[field].prefix { $0 != UInt8(ascii: "=") }
            guard JournalFieldName.isValid(utf8: name) else {
                throw Self.invalidName(String(decoding: name, as: UTF8.self))
            }
        }
        let r = bytes.withUnsafeBytes { raw -> Int32 in
            let vectors = fields.map { field in
                let base = UnsafeMutableRawPointer(mutating: raw.baseAddress! + field.lowerBound)
                return iovec(iov_base: base, iov_len: field.count)
            }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
        try check(r, "send a journal entry")
    }

    private static func invalidName(_ name: String) -> SystemdError {
        SystemdError(
            errno: EINVAL, operation: "send a journal entry", message: "'\(name)' is not a valid journal field name"
        )
    }

    /// Sends one entry made of `NAME=value` fields with text values.
    ///
    /// Wraps `sd_journal_sendv(3)`; see the overload with byte values.
    public func send(_ fields: [(name: String, value: String)]) throws(SystemdError) {
        try send(fields.count) { index, buffer in
            buffer.append(contentsOf: fields[index].name.utf8)
            buffer.append(UInt8(ascii: "="))
            buffer.append(contentsOf: fields[index].value.utf8)
            return fields[index].name
        }
    }
}
