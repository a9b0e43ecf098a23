// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import LifecycleEngine
import LifecycleStorage

/// `lifecyclectl show UNIT`: every stored value and every current data point of one unit.
struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show every stored value and current data point of one unit.",
        discussion: """
            Prints one key=value line per property, like systemctl show: first the unit's state file under its own \
            key names (times in RFC 3339, UTC), then the lifecycle data points a dispatch would carry now \
            (lifecycle_dayssincelaunch, lifecycle_secondsawake, ...) under their payload names. A data point that \
            does not apply is left out, as in a dispatch.

            The state file is read directly and read-only. A unit without a state file exits with status 4.
            """
    )

    @OptionGroup var options: GlobalOptions

    @OptionGroup var timeZone: TimeZoneOption

    @OptionGroup var pager: PagerOption

    @Argument(help: ArgumentHelp("The unit. A name without a type suffix gets .service.", valueName: "unit"))
    var unit: String

    func validate() throws {
        _ = try UnitName.normalize(unit)
    }

    func run() throws {
        let name = try UnitName.normalize(unit)
        let selection = try options.select(timeZone: try timeZone.zone(), needsTimeZone: true)
        let store = StateStore(directory: selection.stateDirectory, readOnly: true)
        var warnings: [StateStoreWarning] = []
        let loaded: UnitRecord?
        do {
            loaded = try store.load(unit: name, warnings: &warnings)
        } catch {
            throw reportFailure(error.description)
        }
        // Read-only, the store warns only about the unit's own file, when it cannot be parsed.
        if let warning = warnings.first {
            throw reportFailure("\(warning.path): cannot be read (\(warning.reason)).")
        }
        let archive = UnitArchive(stateDirectory: selection.stateDirectory)
        // A unit systemd unloaded a while ago: its record is in the archive until it runs again.
        let archived = loaded == nil ? try? archive.records(of: [name]).first : nil
        guard let record = loaded ?? archived else {
            throw reportNoSuchUnit(name, known: (try? store.unitNames()) ?? [])
        }
        if archived != nil {
            printError("lifecyclectl: \(name) is archived (systemd unloaded it): shown from \(archive.shardPath(of: name))")
        }

        let now = Terminal.now
        let output =
            options.json
            ? ShowProperties.json(record, now: now, timeZone: selection.timeZone)
            : ShowProperties.text(record, now: now, timeZone: selection.timeZone)
        try Terminal.write(output)
    }
}
