// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd
import Logging

extension LifecycleDaemon {
    /// Publishes lifecycled's D-Bus interface (``ManagerObject``) on `address`.
    ///
    /// A failure, such as another process owning ``ManagerInterface/busName``, is logged as an error and tracking
    /// goes on without the interface: autotracking matters more than manual events.
    ///
    /// - Returns: The object to stop at shutdown, or nil when it could not be published.
    func publishManager(on address: BusAddress, logger: Logger) async -> ManagerObject? {
        do {
            let manager = try await ManagerObject.start(on: address, requests: self, logger: logger, thread: thread)
            logger.info("Acquired the bus name \(ManagerInterface.busName) on the \(address)")
            return manager
        } catch {
            logger.error(
                """
                Failed to acquire the bus name \(ManagerInterface.busName) on the \(address); \
                manual and custom events are unavailable
                """,
                metadata: ["error": "\(error)"]
            )
            return nil
        }
    }
}
