// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// The fourth group of `lifecyclectl show`'s keys: each timer that starts the unit, by name, as `lifecyclectl timers`
/// shows it:
///
/// ```
/// timers.backup.timer.runs=12
/// timers.backup.timer.missed=1
/// timers.backup.timer.last_trigger=2026-03-02T03:00:00.012Z
/// timers.backup.timer.next_elapse=2026-03-03T03:00:00.000Z
/// timers.backup.timer.last_result=missed (dependency)
/// ```
extension ShowProperties {
    static func timerProperties(_ record: UnitRecord) -> [(key: String, value: JSONValue)] {
        func time(_ value: Milliseconds?) -> JSONValue {
            value.map { .string(LifecycleDateFormat.iso8601Milliseconds.string($0)) } ?? .null
        }
        return TimerRow.rows(of: [record]).sorted { $0.timer < $1.timer }.flatMap { row in
            let prefix = "timers." + keyText(row.timer) + "."
            return [
                (prefix + "runs", JSONValue.int(Int64(row.totals.runs))),
                (prefix + "missed", .int(Int64(row.totals.missedCount))),
                (prefix + "last_trigger", time(row.totals.lastTrigger)),
                (prefix + "next_elapse", time(row.totals.nextElapse)),
                (prefix + "last_result", .string(row.lastResult)),
            ]
        }
    }
}
