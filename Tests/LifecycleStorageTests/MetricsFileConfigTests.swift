// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage
import Testing

/// `metrics_file`: where lifecycled writes its metrics for node_exporter, off by default.
struct MetricsFileConfigTests {
    static let file = "/etc/lifecycled/lifecycled.json"

    private func decode(_ text: String) throws(ConfigError) -> LifecycleConfiguration {
        try ConfigLoader.decode(try ConfigLoader.parse(Array(text.utf8), file: Self.file), file: Self.file)
    }

    @Test("off by default and with null; an absolute .prom path is taken")
    func keys() throws {
        #expect(try decode("{}").metricsFile == nil)
        #expect(try decode(#"{"metrics_file": null}"#).metricsFile == nil)
        let path = "/var/lib/prometheus/node-exporter/lifecycled.prom"
        #expect(try decode(#"{"metrics_file": "\#(path)"}"#).metricsFile == path)
    }

    @Test(
        "bad values are refused, naming the key and the value",
        arguments: [
            (
                #"{"metrics_file": "lifecycled.prom"}"#,
                #"metrics_file: expected an absolute path, found "lifecycled.prom""#
            ),
            (
                #"{"metrics_file": "/var/lib/prometheus/node-exporter/lifecycled.txt"}"#,
                #"metrics_file: expected a file name ending in ".prom" (node_exporter reads no other), found "#
                    + #""/var/lib/prometheus/node-exporter/lifecycled.txt""#
            ),
            (
                #"{"metrics_file": "/var/lib/prometheus/.prom"}"#,
                #"metrics_file: expected a file name ending in ".prom" (node_exporter reads no other), found "#
                    + #""/var/lib/prometheus/.prom""#
            ),
            (#"{"metrics_file": true}"#, "metrics_file: expected an absolute path, found a boolean"),
        ]
    )
    func badValues(_ text: String, _ message: String) {
        do {
            _ = try decode(text)
            Issue.record("\(text) should be refused")
        } catch {
            #expect(error.description.hasSuffix(message), "\(error.description)")
        }
    }
}
