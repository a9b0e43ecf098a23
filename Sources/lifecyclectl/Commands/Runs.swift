// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleEngine
import LifecycleSchema
import LifecycleSystemd

/// `lifecyclectl runs UNIT`: the unit's recent runs, newest first, from lifecycled's dispatches in the journal.
struct Runs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a unit's recent runs, newest first, from the journal.",
        discussion: """
            Each run of the unit (one systemd InvocationID) as lifecycled's dispatches record it: how it began \
            (launch or wake) and when, how it ended (sleep, or crash with systemd's Result and the exit status or \
            signal) and when, how long it lasted, the unit's version, and whether lifecycled recovered the run after \
            the fact (RECOVERED, the journal's LIFECYCLE_RECONCILED). Reads the system journal directly, so it works \
            while lifecycled is down; reading it takes root or membership of the systemd-journal group.

            What each run cost, as lifecycled recorded it at the run's end: STARTUP (from leaving inactive to \
            active), CPU, MEM PEAK, and with --wide IO READ and IO WRITE; - where the host could not say (no CPU, \
            memory or IO accounting, a systemd too old for the value), never 0. RESULT names an OOM kill and its \
            killer (oom-kill (kernel), oom-kill (oomd)) and a core dump with its signal (core-dump, status=11/SEGV).

            With --directory or --file, reads journal files collected from other machines instead (see \
            docs/fleet.md). A unit's runs are one machine's: when several machines hold dispatches of the unit, \
            choose one with --machine (its hostname or machine id).
            """
    )

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    @Option(
        name: [.customShort("n"), .customLong("lines")],
        help: ArgumentHelp("Show at most this many runs.", valueName: "count")
    )
    var count = 10

    @OptionGroup var since: SinceOption

    @OptionGroup var journal: JournalSourceOption

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The machine whose runs to show (its hostname or machine id), when several hold the unit.",
            valueName: "host"
        )
    )
    var machine: String?

    @OptionGroup var pager: PagerOption

    @Flag(name: .long, help: "Print the rows only, without the header and the footer.")
    var noLegend = false

    @Flag(name: .long, help: "Show the bytes each run read and wrote as well (IO READ, IO WRITE).")
    var wide = false

    @Argument(help: ArgumentHelp("The unit. A name without a type suffix gets .service.", valueName: "unit"))
    var unit: String

    func validate() throws {
        _ = try UnitName.normalize(unit)
        guard count >= 0 else { throw ValidationError("Invalid -n \(count): expected 0 or more runs.") }
    }

    func run() throws {
        let name = try UnitName.normalize(unit)
        var dispatches: [JournaledDispatch]
        do {
            dispatches = try DispatchJournal(source: journal.source ?? .local).dispatches(of: name)
        } catch {
            throw reportFailure(journal.source == nil ? "Failed to read the journal: \(error)." : "\(error).")
        }
        do {
            dispatches = try MachineChoice.dispatches(dispatches, machine: machine)
        } catch {
            throw reportFailure("\(name): \(error)")
        }
        let earliest = since.instant(now: Terminal.now)
        let runs = UnitRun.runs(from: dispatches)
            .filter { run in earliest.map { (run.beganAt ?? run.endedAt ?? 0) >= $0 } ?? true }
            .prefix(count)
        let output =
            json
            ? RunsJSON.render(unit: name, runs: Array(runs))
            : RunsTable.render(
                unit: name, runs: Array(runs), colour: Terminal.usesColour, legend: !noLegend, wide: wide
            )
        try Terminal.write(output)
    }
}
