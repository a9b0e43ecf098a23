// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// A state change to report to the service manager (`sd_notify(3)`).
public enum ServiceNotification: Sendable, Hashable {
    /// Start-up is complete (`READY=1`); also ends a reload.
    case ready
    /// A configuration reload begins (`RELOADING=1`, with the `MONOTONIC_USEC=` that `Type=notify-reload` requires).
    case reloading
    /// Shutdown begins (`STOPPING=1`).
    case stopping
    /// The service is alive (`WATCHDOG=1`); send it at half of ``ServiceNotifier/watchdogInterval()``.
    case watchdog
    /// Free-form status shown by `systemctl status` (`STATUS=`). Newlines become spaces: the protocol is one
    /// assignment per line.
    case status(String)
    /// The errno of a failure, with ``status(_:)`` before exiting (`ERRNO=`).
    case errno(Int32)
    /// Asks for more time to start, reload or stop (`EXTEND_TIMEOUT_USEC=`).
    case extendTimeout(Duration)

    /// The notification's line(s) on the wire. This is the only place the wire format is written.
    ///
    /// - Parameter monotonicMicroseconds: `CLOCK_MONOTONIC` now, in µs, for ``reloading``.
    public func assignments(monotonicMicroseconds: UInt64) -> [String] {
        switch self {
        case .ready: ["READY=1"]
        case .reloading: ["RELOADING=1", "MONOTONIC_USEC=\(monotonicMicroseconds)"]
        case .stopping: ["STOPPING=1"]
        case .watchdog: ["WATCHDOG=1"]
        case .status(let text):
            ["STATUS=" + String(text.map { $0.isNewline ? " " : $0 })]
        case .errno(let code): ["ERRNO=\(code)"]
        case .extendTimeout(let duration): ["EXTEND_TIMEOUT_USEC=\(duration.microsecondsRoundedUp)"]
        }
    }

    /// The whole message for `sd_notify`: every assignment, one per line.
    public static func message(_ notifications: [ServiceNotification], monotonicMicroseconds: UInt64) -> String {
        notifications.flatMap { $0.assignments(monotonicMicroseconds: monotonicMicroseconds) }.joined(separator: "\n")
    }
}
