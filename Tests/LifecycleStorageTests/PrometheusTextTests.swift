// SPDX-License-Identifier: Apache-2.0

import LifecycleStorage
import Testing

/// The classic text format as node_exporter's textfile collector parses it.
struct PrometheusTextTests {
    @Test("label values escape backslash, double quote and newline, and nothing else")
    func escapesLabelValues() {
        #expect(PrometheusText.escapeLabelValue(#"dev-disk-by\x2duuid.device"#) == #"dev-disk-by\\x2duuid.device"#)
        #expect(PrometheusText.escapeLabelValue("a\"b\nc") == #"a\"b\nc"#)
        #expect(PrometheusText.escapeLabelValue("tab\there é") == "tab\there é")
    }

    @Test("one HELP and one TYPE per family, even when a family is given twice; families and samples sorted")
    func familiesOnceAndSorted() {
        let text = PrometheusText.render([
            MetricFamily("b_total", .counter, help: "B.", samples: [.init(["name": "z"], .count(2))]),
            MetricFamily("a", .gauge, help: "A\\ with\nnewline.", samples: [.init([:], .milliseconds(1_500))]),
            MetricFamily("b_total", .counter, help: "B.", samples: [.init(["name": "y", "result": "x"], .count(1))]),
            MetricFamily("empty", .gauge, help: "Nothing.", samples: []),
        ])
        #expect(
            text == """
                # HELP a A\\\\ with\\nnewline.
                # TYPE a gauge
                a 1.5
                # HELP b_total B.
                # TYPE b_total counter
                b_total{name="y",result="x"} 1
                b_total{name="z"} 2

                """
        )
    }

    @Test("times are written in seconds, exactly, without trailing zeros and without sample timestamps")
    func values() {
        func line(_ value: MetricValue) -> String {
            PrometheusText.render([MetricFamily("t", .gauge, help: "T.", samples: [.init([:], value)])])
                .split(separator: "\n").last.map(String.init) ?? ""
        }
        #expect(line(.milliseconds(1_795_437_000_123)) == "t 1795437000.123")
        #expect(line(.milliseconds(1_795_437_000_100)) == "t 1795437000.1")
        #expect(line(.milliseconds(1_795_437_000_000)) == "t 1795437000")
        #expect(line(.milliseconds(5)) == "t 0.005")
        #expect(line(.milliseconds(-1_500)) == "t -1.5")
        #expect(line(.count(42)) == "t 42")
    }
}
