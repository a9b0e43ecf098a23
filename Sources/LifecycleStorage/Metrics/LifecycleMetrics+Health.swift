// SPDX-License-Identifier: Apache-2.0

/// lifecycled's own families, from the running daemon.
extension LifecycleMetrics {
    static func healthFamilies(_ health: DaemonHealth) -> [MetricFamily] {
        let dispatches = DaemonHealth.dispatchKinds.map { kind in
            MetricFamily.Sample(["event": kind], .count(health.dispatches[kind] ?? 0))
        }
        let bus = ["bus": health.bus]
        // Every cause, even at 0, so that an alert sees the series before it turns 1.
        let degraded = Degradations.Cause.allCases.sorted().map { cause in
            MetricFamily.Sample(["what": cause.rawValue], .count(health.degradations[cause] == nil ? 0 : 1))
        }
        return [
            MetricFamily(
                "lifecycled_start_time_seconds", .gauge,
                help: "When lifecycled started: its counters count since then.",
                samples: [.init([:], .milliseconds(health.startTime))]
            ),
            MetricFamily(
                "lifecycled_degraded", .gauge,
                help: "1 while lifecycled is degraded by the cause in what (it heals by itself once the cause is gone).",
                samples: degraded
            ),
            MetricFamily(
                "lifecycled_dispatches_total", .counter, help: "Dispatches the journal took, by kind of event.",
                samples: dispatches
            ),
            MetricFamily(
                "lifecycled_journal_write_failures_total", .counter, help: "Dispatches the journal refused to take.",
                samples: [.init([:], .count(health.journalRefusals))]
            ),
            MetricFamily(
                "lifecycled_journal_write_retries_total", .counter,
                help: "Attempts to send again the dispatches the journal refused.",
                samples: [.init([:], .count(health.journalRetries))]
            ),
            MetricFamily(
                "lifecycled_journal_dropped_dispatches_total", .counter,
                help: "Dispatches journald accepted and then dropped (its rate limit), sent again.",
                samples: [.init([:], .count(health.journalDrops))]
            ),
            MetricFamily(
                "lifecycled_journal_unshown_dispatches_total", .counter,
                help: "Dispatches journald never showed (accepted but not stored, or refused for over a minute), given up past a unit's bound of waiting ones.",
                samples: [.init([:], .count(health.journalGivenUp))]
            ),
            MetricFamily(
                "lifecycled_pending_dispatches", .gauge, help: "Dispatches made and not yet taken by the journal.",
                samples: [.init([:], .count(health.pendingDispatches))]
            ),
            MetricFamily(
                "lifecycled_bus_reconnects_total", .counter,
                help: "Times the bus connection broke and lifecycled reconnected.",
                samples: [.init(bus, .count(health.busReconnects))]
            ),
            MetricFamily(
                "lifecycled_watched_units", .gauge, help: "Loaded units that match a watch pattern.",
                samples: [.init(bus, .count(health.watchedUnits))]
            ),
        ]
    }
}
