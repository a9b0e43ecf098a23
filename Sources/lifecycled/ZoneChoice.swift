// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage

/// The zone of the local-time data points, as the daemon will choose it, and how it was chosen: for the start log and
/// `--check-config`.
struct ZoneChoice {
    /// For example `time zone Europe/Berlin (the machine's, from /etc/localtime)`.
    var summary: String
    /// Why the machine's zone fell back to UTC, when it did.
    var problem: String?

    /// - Throws: ``TimeZoneError`` when `time_zone` names no usable zone.
    init(_ configuration: LifecycleConfiguration) throws(TimeZoneError) {
        guard let name = configuration.timeZone else {
            let machine = TimeZoneDatabase.system.machineZone(tz: TimeZoneDatabase.environmentTZ)
            summary = "time zone \(machine.rules.name) (the machine's, from \(machine.origin))"
            problem = machine.problem
            return
        }
        summary = "time zone \(try TimeZoneDatabase.system.zone(named: name).name) (time_zone)"
    }
}
