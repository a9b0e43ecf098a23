// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import Testing

/// What the core tells the service manager, in sd_notify's wire format.
struct ServiceNotificationTests {
    @Test("writes each notification in sd_notify's wire format", arguments: [
        (ServiceNotification.ready, ["READY=1"]),
        (.reloading, ["RELOADING=1", "MONOTONIC_USEC=123456789"]),
        (.stopping, ["STOPPING=1"]),
        (.watchdog, ["WATCHDOG=1"]),
        (.status("watching 3 units"), ["STATUS=watching 3 units"]),
        (.status("two\nlines"), ["STATUS=two lines"]),
        (.errno(2), ["ERRNO=2"]),
        (.extendTimeout(.milliseconds(1500)), ["EXTEND_TIMEOUT_USEC=1500000"]),
        (.extendTimeout(.nanoseconds(1)), ["EXTEND_TIMEOUT_USEC=1"]),
    ])
    func wireFormat(notification: ServiceNotification, expected: [String]) {
        #expect(notification.assignments(monotonicMicroseconds: 123_456_789) == expected)
    }

    @Test("joins several notifications into one message, one assignment per line")
    func message() {
        let text = ServiceNotification.message([.status("Failed to connect"), .errno(111)], monotonicMicroseconds: 0)
        #expect(text == "STATUS=Failed to connect\nERRNO=111")
    }
}
