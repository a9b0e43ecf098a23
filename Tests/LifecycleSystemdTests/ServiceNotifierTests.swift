// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleSystemd
import Testing

struct ServiceNotifierTests {
    @Test(
        "is a successful no-op without a service manager",
        .enabled(if: ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] == nil, "running under a service manager")
    )
    func noServiceManager() throws {
        #expect(try ServiceNotifier().notify(message: "READY=1\nSTATUS=test") == false)
    }

    @Test(
        "has no watchdog interval unless WatchdogSec= is set",
        .enabled(if: ProcessInfo.processInfo.environment["WATCHDOG_USEC"] == nil, "running with a watchdog")
    )
    func noWatchdog() throws {
        #expect(try ServiceNotifier().watchdogInterval() == nil)
    }
}
