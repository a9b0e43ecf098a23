// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation

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

    /// The chosen zone, nil when none was given.
    var zone: TimeZone? { name.flatMap(TimeZone.init(identifier:)) }

    func validate() throws {
        if let name, TimeZone(identifier: name) == nil {
            throw ValidationError("Unknown time zone '\(name)': expected an IANA name such as Europe/Berlin.")
        }
    }
}
