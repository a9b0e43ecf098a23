// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Why a named time zone could not be loaded from the tz database.
///
/// ``description`` names the zone and the file; the caller adds where the name came from (a configuration key, a
/// command-line option).
public enum TimeZoneError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not something that may name a file under the database directory: empty, absolute, or with a `..` component.
    case invalidName(name: String)
    /// No zone file of that name.
    case unknownZone(name: String, path: String)
    /// The file exists but could not be read.
    case unreadable(path: String, errno: Int32)
    /// The file is not a valid TZif file.
    case invalidData(path: String, reason: TimeZoneDataError)

    public var description: String {
        switch self {
        case .invalidName(let name):
            return "invalid time zone name \"\(name)\" (expected an IANA name such as \"Europe/Berlin\" or \"UTC\")"
        case .unknownZone(let name, let path):
            return
                "unknown time zone \"\(name)\" (no such file \(path); expected an IANA name such as \"Europe/Berlin\")"
        case .unreadable(let path, let errno):
            return "failed to read the time zone file \(path): \(Posix.describe(errno: errno))"
        case .invalidData(let path, let reason):
            return "\(path) is not a valid time zone file: \(reason)"
        }
    }
}
