// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// A failed libsystemd call: the errno it returned, what we were doing, and, when the failure came from the other
/// end of the bus, the D-Bus error name and message.
///
/// The description follows systemd's own phrasing, e.g. `Failed to call Subscribe: Access denied`, so log lines read
/// like `systemctl`'s.
public struct SystemdError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The positive errno value (libsystemd returns it negated).
    public var errno: Int32
    /// What was being done, phrased to follow "Failed to", e.g. `call ListUnitsByPatterns`.
    public var operation: String
    /// The D-Bus error name of a method error reply, e.g. `org.freedesktop.DBus.Error.ServiceUnknown`.
    public var busErrorName: String?
    /// The human-readable message of a method error reply, or a more precise reason than the errno.
    public var message: String?

    /// Creates an error from its parts.
    ///
    /// - Parameters:
    ///   - errno: The errno, positive or negative (libsystemd style); stored positive.
    ///   - operation: What was being done, phrased to follow "Failed to".
    ///   - busErrorName: The D-Bus error name, if any.
    ///   - message: The error message, if any; the errno's text is used when nil.
    public init(errno: Int32, operation: String, busErrorName: String? = nil, message: String? = nil) {
        self.errno = errno < 0 ? -errno : errno
        self.operation = operation
        self.busErrorName = busErrorName
        self.message = message
    }

    /// Copies an `sd_bus_error` (name, message and the errno sd-bus maps the name to).
    ///
    /// Wraps `sd_bus_error_get_errno(3)`.
    init(busError: UnsafePointer<sd_bus_error>, operation: String) {
        let name = busError.pointee.name.map { String(cString: $0) }
        let message = busError.pointee.message.map { String(cString: $0) }
        var mapped = sd_bus_error_get_errno(busError)
        if mapped == 0 { mapped = EIO }
        self.init(errno: mapped, operation: operation, busErrorName: name, message: message)
    }

    /// The errno's text, as `strerror(3)` gives it.
    public var errnoDescription: String {
        // glibc's strerror returns static strings for every known errno, so this is safe from any thread.
        String(cString: strerror(errno))
    }

    public var description: String {
        "Failed to \(operation): \(message ?? errnoDescription)"
    }

    /// Whether this is the D-Bus error `name`.
    public func hasBusError(_ name: String) -> Bool {
        busErrorName == name
    }
}

/// Turns libsystemd's `int r` convention (negative errno on failure) into a thrown ``SystemdError``.
///
/// Every libsystemd return value in this module passes through here, so errors are built in one place.
///
/// - Parameters:
///   - r: The return value of a libsystemd call.
///   - operation: What was being done, phrased to follow "Failed to"; only evaluated on failure.
/// - Returns: `r` when it is not negative (many calls return 0 or 1 with a meaning).
/// - Throws: ``SystemdError`` when `r` is negative.
@discardableResult
@inline(__always)
func check(_ r: Int32, _ operation: @autoclosure () -> String) throws(SystemdError) -> Int32 {
    guard r < 0 else { return r }
    throw SystemdError(errno: -r, operation: operation())
}
