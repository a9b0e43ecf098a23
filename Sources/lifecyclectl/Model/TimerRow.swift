// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// One timer of a tracked unit, as `lifecyclectl timers` shows it: its schedule as systemd last showed lifecycled,
/// and its elapses as the unit's record counts them.
struct TimerRow: Sendable, Equatable {
    var timer: String
    var unit: String
    var totals: TimerTotals

    /// Every timer of `records`, soonest next elapse first (none last), then by name, as `systemctl list-timers`.
    static func rows(of records: [UnitRecord]) -> [TimerRow] {
        records.flatMap { record in
            record.timers.map { TimerRow(timer: $0.key, unit: record.unit, totals: $0.value) }
        }.sorted { a, b in
            switch (a.totals.nextElapse, b.totals.nextElapse) {
            case (let x?, let y?) where x != y: x < y
            case (.some, nil): true
            case (nil, .some): false
            default: a.timer < b.timer
            }
        }
    }

    /// What became of the last elapse: `ran`, `missed (dependency)`, `skipped`, `coalesced`; `-` before any.
    var lastResult: String {
        guard let outcome = totals.lastOutcome else { return "-" }
        if outcome == .missed, let cause = totals.lastCause { return "missed (\(cause))" }
        return outcome.rawValue
    }
}
