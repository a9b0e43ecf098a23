// SPDX-License-Identifier: Apache-2.0

import CSystemd

/// Talks to the service manager that started us, through `$NOTIFY_SOCKET`.
///
/// Thread-safe: `sd_notify` only sends a datagram. Under `Type=notify` only the main process may notify (threads are
/// fine). Without a service manager every call is a successful no-op.
public struct ServiceNotifier: Sendable {
    public init() {}

    /// Sends notifications in one datagram.
    ///
    /// Wraps `sd_notify(3)` (the variadic `sd_notifyf` is not callable from Swift; the text is built by
    /// ``ServiceNotification/message(_:monotonicMicroseconds:)``).
    ///
    /// - Returns: false when no service manager listens (`$NOTIFY_SOCKET` is not set), true when sent.
    /// - Throws: ``SystemdError`` if sending failed.
    @discardableResult
    public func notify(_ notifications: [ServiceNotification]) throws(SystemdError) -> Bool {
        let message = ServiceNotification.message(
            notifications, monotonicMicroseconds: BusThread.monotonicMicroseconds()
        )
        return try check(sd_notify(0, message), "notify the service manager") > 0
    }

    /// Sends notifications in one datagram, like the array overload.
    @discardableResult
    public func notify(_ notifications: ServiceNotification...) throws(SystemdError) -> Bool {
        try notify(notifications)
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
