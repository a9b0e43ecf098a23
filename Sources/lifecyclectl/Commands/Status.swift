// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleEngine
import LifecycleStorage
import LifecycleSystemd

/// `lifecyclectl status [PATTERN…]` (the default command): the lifecycle of tracked units, read from the state files.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the lifecycle of tracked units and whether lifecycled runs.",
        discussion: """
            Reads the state files directly and read-only, so it works while lifecycled is down and never changes \
            them: a file that cannot be read is reported on standard error and left out, not moved aside.

            PATTERN is a unit name (nginx means nginx.service) or a glob matched against full unit names, as with \
            systemctl ('getty@*', 'backup-*.service'); without one, every tracked unit is listed. A unit name that \
            has no state file is reported and makes the exit status 4.

            Columns: STATE is the unit's last run as lifecycled recorded it (not systemd's live state): running, \
            stopped (it ended with a sleep), failed (it ended with a crash notice; RESULT then shows systemd's \
            Result and the exit status or signal, as in "exit-code, status=7" or "signal, status=9/KILL"), or \
            crash-looping (crash_loop_crashes failures within crash_loop_minutes, 3 in 10 by default). LAUNCHES, \
            STARTS, SLEEPS and CRASHES are lifetime totals: STARTS counts every start, launches and wakes together \
            (the reference module's wake count); CRASHES counts failed runs, the last one included. LAST EVENT and \
            WHEN are the last lifecycle event and how long ago it was; DAYS counts complete days since the first \
            launch; AWAKE is the time awake in the runs that ended with a sleep plus the running one: a run that \
            failed adds nothing, because the reference adds time awake only at a sleep. In the same way, the \
            journal's "sleep after 67 s awake" is the session's time awake so far (lifecycle_secondsawake), not \
            the last run's. VERSION is shortened to 12 digits when it is a digest.

            With --directory or --file, the fleet view: reads journal files collected from other machines (by \
            systemd-journal-remote, see docs/fleet.md) instead of the state files, and lists one row per machine \
            and unit with the columns above, computed from the unit's dispatches, after MACHINE (the sender's \
            hostname, _HOSTNAME); --json gives the same keys as for state files, with "machine" and "machine_id".

            What the running lifecycled says is degraded (its D-Bus GetStatus), and since when, is a warning on \
            standard error, such as a state directory it cannot write: it then keeps its records in memory, and the \
            state files fall behind until it heals by itself. When it cannot be asked within a second, a state \
            directory that does not exist, or is read-only (also only for the running lifecycled, as seen through \
            /proc/PID/root, when run as root), is the warning.

            Whether lifecycled runs is read from /proc. Colours are used only when standard output is \
            a terminal and NO_COLOR is not set. "list" and "list-units" are other names of this command.
            """,
        aliases: ["list", "list-units"]
    )

    @OptionGroup var options: GlobalOptions

    @Flag(name: .long, help: "Print the rows only, without the daemon line, the header and the footer.")
    var noLegend = false

    @Flag(name: .long, help: "List only the units whose last run failed.")
    var failed = false

    @Flag(
        name: .shortAndLong,
        help: "Also list the archived units: systemd unloaded them, and their records left the state files for the archive."
    )
    var all = false

    @OptionGroup var journal: JournalSourceOption

    @OptionGroup var pager: PagerOption

    @Argument(help: ArgumentHelp("Unit names or glob patterns; all units when none is given.", valueName: "pattern"))
    var patterns: [String] = []

    func validate() throws {
        _ = try UnitFilter(arguments: patterns, failedOnly: failed)
    }

    func run() async throws {
        let filter = try UnitFilter(arguments: patterns, failedOnly: failed)
        if let source = journal.source {
            return try showFleet(from: source, filter: filter)
        }
        let selection = try options.select(needsTimeZone: false, needsCrashLoop: true)
        let store = StateStore(directory: selection.stateDirectory, readOnly: true)
        let contents: StateStore.Contents
        do {
            contents = try store.loadAll()
        } catch {
            throw reportFailure(error.description)
        }
        for warning in contents.warnings { printError(WarningText.line(warning)) }
        let archived = all ? try archivedRecords(directory: selection.stateDirectory, besides: contents.records) : []
        let records = (contents.records + archived).sorted { $0.unit < $1.unit }.filter(filter.includes)

        let daemon = DaemonProbe().status()
        // The daemon knows best, and since when; the directory as seen from here when it cannot be asked.
        let bus: BusAddress = selection.bus == .user ? .user : .system
        if daemon.isRunning == true,
            let degradations = await ManagerClient(address: bus).degradations(timeout: .seconds(1))
        {
            for degradation in degradations { printError(degradation.warning) }
        } else {
            for problem in StateDirectoryCheck().problems(directory: selection.stateDirectory, daemon: daemon) {
                printError("lifecyclectl: Warning: \(problem): lifecycled keeps its records in memory only, and the "
                    + "state files shown here fall behind.")
            }
        }
        let now = Terminal.now
        let output =
            if options.json {
                StatusJSON.render(
                    records, now: now, timeZone: selection.timeZone, daemon: daemon, crashLoop: selection.crashLoop
                )
            } else {
                StatusTable.render(
                    records,
                    now: now,
                    timeZone: selection.timeZone,
                    daemon: daemon,
                    colour: Terminal.usesColour,
                    legend: !noLegend,
                    crashLoop: selection.crashLoop,
                    emptyMessage: contents.records.isEmpty
                        ? "No unit has been tracked yet." : "No tracked unit matches \(filter.description)."
                )
            }
        try Terminal.write(output)
        let missing = filter.missingNames(in: contents.records + archived)
        guard missing.isEmpty else {
            for name in missing { _ = reportNoSuchUnit(name, known: contents.records.map(\.unit)) }
            throw ExitCode.noSuchUnit
        }
    }

    /// The archive's records of units that have no state file (a state file is newer than the unit's archived line).
    private func archivedRecords(directory: String, besides records: [UnitRecord]) throws -> [UnitRecord] {
        let filed = Set(records.map(\.unit))
        do {
            return try UnitArchive(stateDirectory: directory).allRecords().filter { !filed.contains($0.unit) }
        } catch {
            throw reportFailure(error.description)
        }
    }
}
