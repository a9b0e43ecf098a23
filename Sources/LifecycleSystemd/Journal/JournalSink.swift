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
        guard !fields.isEmpty else {
            throw SystemdError(errno: EINVAL, operation: "send a journal entry", message: "The entry has no fields")
        }
        // One buffer holds every "NAME=value"; the iovecs point into it.
        var buffer: [UInt8] = []
        var ranges: [Range<Int>] = []
        for (name, value) in fields {
            guard JournalFieldName.isValid(name) else {
                throw SystemdError(
                    errno: EINVAL, operation: "send a journal entry",
                    message: "'\(name)' is not a valid journal field name"
                )
            }
            let start = buffer.count
            buffer.append(contentsOf: name.utf8)
            buffer.append(UInt8(ascii: "="))
            buffer.append(contentsOf: value)
            ranges.append(start..<buffer.count)
        }
        let r = buffer.withUnsafeMutableBytes { bytes -> Int32 in
            let vectors = ranges.map { range in
                iovec(iov_base: bytes.baseAddress! + range.lowerBound, iov_len: range.count)
            }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
        try check(r, "send a journal entry")
    }

    /// Sends one entry made of `NAME=value` fields with text values.
    ///
    /// Wraps `sd_journal_sendv(3)`; see the overload with byte values.
    public func send(_ fields: [(name: String, value: String)]) throws(SystemdError) {
        try send(fields.map { (name: $0.name, value: Array($0.value.utf8)) })
    }
}
