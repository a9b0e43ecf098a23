// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import Testing

/// The metrics file: written at start, within a second of a change but at most once a second, at least once a
/// minute, with the health counters the core keeps.
struct DaemonCoreMetricsTests {
    typealias H = CoreHarness
    static let path = "/var/lib/prometheus/node-exporter/lifecycled.prom"

    func tracking() throws -> H {
        var h = try H(metricsFile: Self.path)
        h.send(.start)
        h.send(.listing([]))
        return h
    }

    /// Fires the metrics timer whenever it is due, up to `time`, the way the loop would.
    func advance(_ h: inout H, to time: Milliseconds) {
        while let due = h.armed[.writeMetrics], due <= time {
            h.now = due
            h.armed[.writeMetrics] = nil
            h.send(.timer(.writeMetrics))
        }
        h.now = time
    }

    func value(_ text: String, _ series: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.map { String($0.dropFirst(series.count + 1)) }
    }

    @Test("written at start; a change within the second waits for the timer, which writes the newest state")
    func atMostOncePerSecond() throws {
        var h = try tracking()
        #expect(h.metricsWrites.map(\.time) == [H.t0], "the first write is at start")
        #expect(h.metricsWrites.first?.path == Self.path)

        h.now = H.t0 + 200
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.now = H.t0 + 500
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        #expect(h.metricsWrites.count == 1, "less than a second after the last write")
        #expect(h.armed[.writeMetrics] == H.t0 + 1_000)

        advance(&h, to: H.t0 + 1_000)
        #expect(h.metricsWrites.map(\.time) == [H.t0, H.t0 + 1_000])
        let text = try #require(h.metricsWrites.last?.text)
        #expect(value(text, #"lifecycled_unit_launches_total{name="web.service"}"#) == "1")
        #expect(value(text, #"lifecycled_unit_sleeps_total{name="web.service"}"#) == "1")
        #expect(value(text, #"lifecycled_dispatches_total{event="sleep"}"#) == "1")
        #expect(h.armed[.writeMetrics] == H.t0 + 61_000, "then the once-a-minute refresh")
    }

    @Test("a change more than a second after the last write is written at once")
    func changeAfterQuietIsImmediate() throws {
        var h = try tracking()
        advance(&h, to: H.t0 + 5_000)
        h.send(.changed(H.snapshot("active", "a", second: 5)))
        #expect(h.metricsWrites.last?.time == H.t0 + 5_000)
    }

    @Test("a burst of changes: never two writes within a second, and the last write shows the last change")
    func burst() throws {
        var h = try tracking()
        let runs: [Character] = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]
        for (index, run) in runs.enumerated() {
            advance(&h, to: H.t0 + Milliseconds(index) * 300 + 100)
            h.send(.changed(H.snapshot("active", run, second: UInt64(2 * index + 1))))
            advance(&h, to: H.t0 + Milliseconds(index) * 300 + 250)
            h.send(.changed(H.snapshot("inactive", run, second: UInt64(2 * index + 2))))
        }
        advance(&h, to: H.t0 + 10_000)
        let times = h.metricsWrites.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 >= 1_000 }, "\(times)")
        #expect(times.count >= 3, "the burst of 3 s is written every second, not only at its end: \(times)")
        let text = try #require(h.metricsWrites.last?.text)
        #expect(value(text, #"lifecycled_unit_sleeps_total{name="web.service"}"#) == "10")
    }

    @Test("with nothing changing, the file is written again once a minute, and only then")
    func onceAMinute() throws {
        var h = try tracking()
        h.send(.timer(.writeMetrics))  // a stray early firing writes nothing
        #expect(h.metricsWrites.count == 1)
        advance(&h, to: H.t0 + 3 * 60_000)
        #expect(h.metricsWrites.map(\.time) == [H.t0, H.t0 + 60_000, H.t0 + 120_000, H.t0 + 180_000])
        #expect(h.armed[.writeMetrics] == H.t0 + 240_000)
    }

    @Test("a wall clock set back two days changes nothing of when the file is written: its times are monotonic")
    func clockSetBack() throws {
        var h = try tracking()
        h.now += 1_500
        h.now -= 2 * 86_400_000
        h.wallStep -= 2 * 86_400_000
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.metricsWrites.last?.time == h.now, "a change 1.5 s after the last write is written at once")
        #expect(h.armed[.writeMetrics] == h.now + 60_000, "the next refresh a minute later, by the stepped clock too")
    }

    @Test("the health counters: refusals, retries, pending dispatches, dispatches by kind, watched units")
    func health() throws {
        var h = try H(metricsFile: Self.path)
        h.send(.start)
        h.send(.listing([H.snapshot("inactive", "z", second: 0)]))
        h.refusals = 1
        advance(&h, to: H.t0 + 2_000)
        h.send(.changed(H.snapshot("active", "a", second: 2)))
        var text = try #require(h.metricsWrites.last?.text)
        #expect(value(text, "lifecycled_journal_write_failures_total") == "1")
        #expect(value(text, "lifecycled_pending_dispatches") == "1")
        #expect(value(text, #"lifecycled_watched_units{bus="system"}"#) == "1")
        #expect(value(text, "lifecycled_start_time_seconds") == "1772359200")

        let retry = try #require(h.armed[.retryDelivery])
        advance(&h, to: retry)
        h.send(.timer(.retryDelivery))
        advance(&h, to: retry + 1_000)
        text = try #require(h.metricsWrites.last?.text)
        #expect(value(text, "lifecycled_journal_write_retries_total") == "1")
        #expect(value(text, "lifecycled_pending_dispatches") == "0")
        #expect(value(text, #"lifecycled_dispatches_total{event="launch"}"#) == "1")

        h.send(.connectionLost("test"))
        advance(&h, to: retry + 3_000)
        text = try #require(h.metricsWrites.last?.text)
        #expect(value(text, #"lifecycled_bus_reconnects_total{bus="system"}"#) == "1")
    }

    @Test("an update is counted in the record and in the file")
    func updates() throws {
        var h = try tracking()
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        h.version = "2"
        h.send(.changed(H.snapshot("active", "b", second: 3)))
        #expect(h.saved.last?.updateCount == 1)
        advance(&h, to: H.t0 + 2_000)
        let text = try #require(h.metricsWrites.last?.text)
        #expect(value(text, #"lifecycled_unit_updates_total{name="web.service"}"#) == "1")
    }

    @Test("without metrics_file nothing is written and no timer is armed")
    func off() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.metricsWrites.isEmpty)
        #expect(h.armed[.writeMetrics] == nil)
    }
}
