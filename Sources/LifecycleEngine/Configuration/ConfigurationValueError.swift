// SPDX-License-Identifier: Apache-2.0

/// Why a configuration value was refused, as a sentence fragment for an error message.
///
/// The configuration model is pure and knows nothing about files or key paths, so it reports only the reason; the
/// loader adds the file and the key (`/etc/lifecycled/lifecycled.json: watch[2].pattern: <reason>`).
public struct ConfigurationValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason, lower-case and without a trailing period, e.g. `a unit pattern must not contain '/'`.
    public var reason: String

    /// Creates an error with its reason.
    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
