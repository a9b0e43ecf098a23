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

            Then the unit's runs per version, from lifecycled's dispatches in the journal, newest version first: \
            runs.VERSION.count (the runs the journal holds), runs.VERSION.median_startup_seconds and \
            runs.VERSION.median_cpu_seconds (medians over the runs that know the value, empty when none does). A \
            digest version is shortened to 12 digits, - stands for runs without a version. Reading the journal \
            takes root or membership of the systemd-journal group; without it, a warning on standard error says \
            so and the rest is printed as usual.

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
        let archived = loaded == nil ? try? archive.records(of: [name]).first { $0.retired == nil } : nil
        guard let record = loaded ?? archived else {
            throw reportNoSuchUnit(name, known: (try? store.unitNames()) ?? [])
        }
        if archived != nil {
            printError("lifecyclectl: \(name) is archived (systemd unloaded it): shown from \(archive.shardPath(of: name))")
        }

        let now = Terminal.now
        let versions = runsPerVersion(of: name)
        let output =
            options.json
            ? ShowProperties.json(record, now: now, timeZone: selection.timeZone, versions: versions)
            : ShowProperties.text(record, now: now, timeZone: selection.timeZone, versions: versions)
        try Terminal.write(output)
    }

    /// The unit's runs per version from the local journal; none, after a warning on standard error, when the
    /// journal cannot be read: the rest of `show` does not need it.
    private func runsPerVersion(of unit: String) -> [VersionRuns] {
        guard DispatchJournal.isLocalJournalReadable() else {
            // Root may read any file: then there is none (journald keeps no files, or is not running).
            let reason =
                geteuid() == 0
                ? "no system journal file under /var/log/journal or /run/log/journal"
                : "cannot read the system journal (it takes root or membership of the systemd-journal group)"
            printError("lifecyclectl: Warning: \(reason); runs per version left out.")
            return []
        }
        do {
            return VersionRuns.grouping(UnitRun.runs(from: try DispatchJournal().dispatches(of: unit)))
        } catch {
            printError("lifecyclectl: Warning: Failed to read the journal: \(error); runs per version left out.")
            return []
        }
    }
}
