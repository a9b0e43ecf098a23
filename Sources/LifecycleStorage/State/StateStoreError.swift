// SPDX-License-Identifier: Apache-2.0

/// Why the state store refused or failed an operation. Each case carries the path and, for I/O, the `errno`.
public enum StateStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A unit name that cannot safely name a file.
    case invalidUnitName(String, reason: String)
    /// A state file written by a newer lifecycled. It is neither read nor overwritten, so no data is downgraded.
    /// `key` is the version key that is too new (`schema_version` or `state.schema_version`).
    case unsupportedVersion(path: String, key: String, found: Int, supported: Int)
    /// A system call failed.
    case io(path: String, operation: String, errno: Int32)
    /// The store was opened read-only and was asked to change a file.
    case readOnly(path: String)
    /// A file of the state directory whose content is not what lifecycled writes there.
    case malformed(path: String, reason: String)

    public var description: String {
        switch self {
        case .invalidUnitName(let name, let reason):
            return "Invalid unit name \"\(name)\": \(reason)"
        case .unsupportedVersion(let path, let key, let found, let supported):
            return "\(path): \(key) \(found) is newer than the supported version \(supported); "
                + "refusing to read or overwrite a state file written by a newer lifecycled"
        case .io(let path, let operation, let errno):
            return "Failed to \(operation) \(path): \(Posix.describe(errno: errno))"
        case .readOnly(let path):
            return "Refusing to change \(path): the state store is read-only"
        case .malformed(let path, let reason):
            return "\(path): \(reason)"
        }
    }
}
