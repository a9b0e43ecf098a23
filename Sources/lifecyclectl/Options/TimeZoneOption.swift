// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleEngine
import LifecycleStorage

/// `--timezone ZONE`, for the commands whose output has local-calendar data points.
struct TimeZoneOption: ParsableArguments {
    @Option(
        name: .customLong("timezone"),
        help: ArgumentHelp(
            "The IANA time zone of the local data points. The default is the configuration's, else the machine's.",
            valueName: "zone"
        )
    )
    var name: String?

    /// The chosen zone from the system's tz database, nil when none was given.
    ///
    /// - Throws: a `ValidationError` (exit status 64) naming the zone and the file looked for.
    func zone() throws -> TimeZoneRules? {
        guard let name else { return nil }
        do {
            return try TimeZoneDatabase.system.zone(named: name)
        } catch {
            throw ValidationError("--timezone: \(error).")
        }
    }

    func validate() throws {
        _ = try zone()
    }
}
