// SPDX-License-Identifier: Apache-2.0

/// Why bytes are not valid time-zone rules: a malformed TZif file or POSIX TZ string.
public struct TimeZoneDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason, lower-case and without a trailing period, e.g. `not a TZif file`.
    public var reason: String

    /// Creates an error with its reason.
    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
