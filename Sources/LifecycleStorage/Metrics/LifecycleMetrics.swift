// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// lifecycled's metrics for node_exporter's textfile collector (docs/metrics.md): per unit from the state files, so
/// that the counters never go back across restarts, reboots and `systemctl reset-failed`, plus lifecycled's own
/// health when the daemon renders them.
///
/// Pure: the records, the time and the health snapshot in, the text out. lifecycled writes it to `metrics_file`;
/// `lifecyclectl metrics` prints it from the state files, without the health that only the daemon knows.
public struct LifecycleMetrics: Sendable {
    /// The records to report, one unit each.
    public var records: [UnitRecord]
    /// The time the gauges that depend on it (crash looping) are computed for.
    public var now: Milliseconds
    /// When failures make a crash loop.
    public var crashLoop: CrashLoopRule
    /// lifecycled's version, for `lifecycled_build_info`.
    public var version: String
    /// The running daemon's own figures; nil when rendered from the state files alone.
    public var health: DaemonHealth?

    public init(
        records: [UnitRecord], now: Milliseconds, crashLoop: CrashLoopRule, version: String, health: DaemonHealth? = nil
    ) {
        self.records = records
        self.now = now
        self.crashLoop = crashLoop
        self.version = version
        self.health = health
    }

    /// The whole file, in Prometheus's classic text format.
    public func render() -> String {
        PrometheusText.render(families())
    }

    /// Every family: the units', lifecycled's build, and its health when known.
    public func families() -> [MetricFamily] {
        var families = unitFamilies() + timerFamilies()
        families.append(MetricFamily(
            "lifecycled_build_info", .gauge, help: "lifecycled's version; the value is always 1.",
            samples: [.init(["version": version], .count(1))]
        ))
        if let health { families += Self.healthFamilies(health) }
        return families
    }
}
