// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// One family of Prometheus's classic text format: a name, its help text and type, and its samples.
///
/// Only what node_exporter's textfile collector reads is modelled: counters (named `…_total`) and gauges, samples
/// without timestamps (a timestamp makes the collector skip the whole file).
public struct MetricFamily: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case counter
        case gauge
    }

    /// One series: its labels and its value.
    public struct Sample: Sendable, Equatable {
        /// Label names and values; rendered sorted by name, so their order here does not matter.
        public var labels: [String: String]
        public var value: MetricValue

        public init(_ labels: [String: String] = [:], _ value: MetricValue) {
            self.labels = labels
            self.value = value
        }
    }

    public var name: String
    public var help: String
    public var kind: Kind
    public var samples: [Sample]

    public init(_ name: String, _ kind: Kind, help: String, samples: [Sample]) {
        self.name = name
        self.help = help
        self.kind = kind
        self.samples = samples
    }
}

/// A sample's value, exact: counts are integers, and times are kept in milliseconds and written as seconds.
public enum MetricValue: Sendable, Equatable {
    case count(Int64)
    /// Written in seconds with up to three decimals, e.g. `1795437000.123`.
    case milliseconds(Milliseconds)

    public static func count(_ value: Int) -> MetricValue { .count(Int64(value)) }
    public static func seconds(_ value: Int64) -> MetricValue { .count(value) }

    /// The value as the text format writes it.
    var text: String {
        switch self {
        case .count(let value):
            return String(value)
        case .milliseconds(let milliseconds):
            let sign = milliseconds < 0 ? "-" : ""
            let magnitude = milliseconds.magnitude
            let fraction = magnitude % 1_000
            guard fraction != 0 else { return sign + String(magnitude / 1_000) }
            var decimals = String(fraction)
            decimals = String(repeating: "0", count: 3 - decimals.count) + decimals
            while decimals.hasSuffix("0") { decimals.removeLast() }
            return "\(sign)\(magnitude / 1_000).\(decimals)"
        }
    }
}
