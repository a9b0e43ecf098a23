// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Testing

@testable import lifecyclectl

/// `lifecyclectl metrics`: its options (the output is LifecycleMetrics', tested in LifecycleStorageTests).
struct MetricsCommandTests {
    @Test("metrics takes the configuration file and the state directory")
    func parses() throws {
        let metrics = try #require(
            try LifecycleCtl.parseAsRoot(["metrics", "--config", "/c.json", "--state-directory", "/s"]) as? Metrics
        )
        #expect(metrics.config == "/c.json")
        #expect(metrics.stateDirectory == "/s")
    }

    @Test("--json is a usage error: the output is Prometheus's text format")
    func noJSON() {
        #expect(throws: (any Error).self) { try LifecycleCtl.parseAsRoot(["metrics", "--json"]) }
    }

    @Test("a configuration file that does not exist is a failure (1)")
    func missingConfig() throws {
        do {
            var command = try LifecycleCtl.parseAsRoot(["metrics", "--config", "/nonexistent/lifecycled.json"])
            try command.run()
            Issue.record("the command should have failed")
        } catch {
            #expect(LifecycleCtl.exitCode(for: error).rawValue == 1)
        }
    }
}
