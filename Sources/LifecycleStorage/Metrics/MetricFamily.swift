// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// One family of Prometheus's classic text format: a name, its help text and type, and its samples.
///
/// Only what node_exporter's textfile collector reads is modelled: counters (named `…_total`), gauges and histograms
/// (whose samples are named `…_bucket`, `…_sum` and `…_count`), samples without timestamps (a timestamp makes the
/// collector skip the whole file).
public struct MetricFamily: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable {
        case counter
        case gauge
        case histogram
    }

    /// One series: its labels and its value.
    public struct Sample: Sendable, Equatable {
        /// Label names and values; rendered sorted by name, so their order here does not matter.
        public var labels: [String: String]
        public var value: MetricValue
        /// Appended to the family's name: a histogram's `_bucket`, `_sum` or `_count`.
        public var suffix: String

        public init(_ labels: [String: String] = [:], _ value: MetricValue, suffix: String = "") {
            self.labels = labels
            self.value = value
            self.suffix = suffix
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

/// A sample's value, exact: counts are integers, and times are kept in milli- or microseconds and written as seconds.
public enum MetricValue: Sendable, Equatable {
    case count(Int64)
    /// Written in seconds with up to three decimals, e.g. `1795437000.123`.
    case milliseconds(Milliseconds)
    /// Written in seconds with up to six decimals, e.g. `1.000250`.
    case microseconds(Int64)

    public static func count(_ value: Int) -> MetricValue { .count(Int64(value)) }
    public static func seconds(_ value: Int64) -> MetricValue { .count(value) }

    /// The value as the text format writes it.
    var text: String {
        switch self {
        case .count(let value): String(value)
        case .milliseconds(let milliseconds): Self.seconds(milliseconds, digits: 3)
        case .microseconds(let microseconds): Self.seconds(microseconds, digits: 6)
        }
    }

    /// `value` (in 10^-`digits` seconds) in seconds, without trailing zeros in its fraction.
    private static func seconds(_ value: Int64, digits: Int) -> String {
        var unit: UInt64 = 1
        for _ in 0..<digits { unit *= 10 }
        let sign = value < 0 ? "-" : ""
        let magnitude = value.magnitude
        let fraction = magnitude % unit
        guard fraction != 0 else { return sign + String(magnitude / unit) }
        var decimals = String(fraction)
        decimals = String(repeating: "0", count: digits - decimals.count) + decimals
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(sign)\(magnitude / unit).\(decimals)"
    }
}
