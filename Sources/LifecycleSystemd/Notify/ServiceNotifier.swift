// SPDX-License-Identifier: Apache-2.0

import CSystemd
import LifecycleEngine

/// Talks to the service manager that started us, through `$NOTIFY_SOCKET`.
///
/// Thread-safe: `sd_notify` only sends a datagram. Under `Type=notify` only the main process may notify (threads are
/// fine). Without a service manager every call is a successful no-op.
public struct ServiceNotifier: Sendable {
    public init() {}

    /// Sends one message of `NAME=value` lines in one datagram (the daemon's core builds it with its
    /// `ServiceNotification`, which alone knows the assignments).
    ///
    /// Wraps `sd_notify(3)` (the variadic `sd_notifyf` is not callable from Swift).
    ///
    /// - Returns: false when no service manager listens (`$NOTIFY_SOCKET` is not set), true when sent.
    /// - Throws: ``SystemdError`` if sending failed.
    @discardableResult
    public func notify(message: String) throws(SystemdError) -> Bool {
        try check(sd_notify(0, message), "notify the service manager") > 0
    }

    /// The watchdog timeout the service manager expects pings within (`WatchdogSec=`), or nil when there is none.
    ///
    /// Wraps `sd_watchdog_enabled(3)`, which reads `$WATCHDOG_USEC` and checks `$WATCHDOG_PID` is us. Ping at half of
    /// it.
    public func watchdogInterval() throws(SystemdError) -> Duration? {
        var usec: UInt64 = 0
        let r = try check(sd_watchdog_enabled(0, &usec), "read the watchdog settings")
        return r > 0 ? .microsecondsValue(usec) : nil
    }
}
