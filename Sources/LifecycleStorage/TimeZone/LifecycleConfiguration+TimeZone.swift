// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

extension LifecycleConfiguration {
    /// The zone of the local-calendar data points: `override` (a command-line choice), else `time_zone`, else the
    /// machine's (`TZ`, else `/etc/localtime`, else UTC). The engine never reads the machine's zone; the programs
    /// decide it here, all in the same way.
    ///
    /// - Parameters:
    ///   - override: a zone chosen on the command line.
    ///   - database: where the zone files are.
    ///   - tz: the value of `TZ`, nil when unset.
    /// - Throws: ``TimeZoneError`` when `time_zone` names no usable zone (the configuration loader already refuses
    ///   such a name, so only a zone file removed since then gets here).
    public func localTimeZone(
        overriding override: TimeZoneRules? = nil,
        database: TimeZoneDatabase = .system,
        tz: String? = TimeZoneDatabase.environmentTZ
    ) throws(TimeZoneError) -> TimeZoneRules {
        if let override { return override }
        if let timeZone { return try database.zone(named: timeZone) }
        return database.machineZone(tz: tz).rules
    }
}
