// SPDX-License-Identifier: Apache-2.0

import LifecycleStorage
import Logging

extension LifecycleDaemon {
    /// Replaces the metrics file. A failure is logged when it first happens or changes, not at every write (up to
    /// once a second), and its end is logged too; tracking goes on either way.
    func writeMetrics(_ text: String, to path: String) {
        if metricsLeftoversChecked != path {
            metricsLeftoversChecked = path
            let removed = MetricsFile(path: path).removeLeftovers()
            if removed > 0 { logger.info("Removed \(removed) temporary files an interrupted write left beside \(path)") }
        }
        do {
            try MetricsFile(path: path).write(text)
            if metricsFailure != nil {
                logger.notice("Writing the metrics file \(path) works again")
                metricsFailure = nil
            }
        } catch {
            guard metricsFailure != error.description else { return }
            metricsFailure = error.description
            logger.error("Failed to write the metrics file", metadata: ["error": "\(error)"])
        }
    }
}
