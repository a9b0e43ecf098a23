// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleEngine
import LifecycleStorage

/// `lifecyclectl status` (the default command): the lifecycle of every tracked unit, read from the state files.
struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the lifecycle of every tracked unit and whether lifecycled runs.",
        discussion: """
            Reads the state files directly and read-only, so it works while lifecycled is down and never changes \
            them: a file that cannot be read is reported on standard error and left out, not moved aside.

            Columns: TRACKED is up after a launch or wake and sleeping after a sleep, as lifecycled recorded it (not \
            systemd's live state); LAUNCHES, WAKES, SLEEPS and CRASHES are lifetime totals; LAST EVENT and WHEN are \
            the last lifecycle event and how long ago it was; DAYS counts complete days since the first launch; \
            AWAKE is the total time awake, the current run included; VERSION is shortened to 12 digits when it is a \
            digest.

            Whether lifecycled runs is read from /proc, without D-Bus. Colours are used only when standard output is \
            a terminal and NO_COLOR is not set.
            """
    )

    @OptionGroup var options: GlobalOptions

    @Flag(name: .long, help: "Print the rows only, without the daemon line, the header and the footer.")
    var noLegend = false

    func run() throws {
        let selection = try options.select(needsTimeZone: false)
        let store = StateStore(directory: selection.stateDirectory, readOnly: true)
        let contents: StateStore.Contents
        do {
            contents = try store.loadAll()
        } catch {
            throw reportFailure(error.description)
        }
        for warning in contents.warnings { printError(WarningText.line(warning)) }

        let daemon = DaemonProbe().status()
        let now = Terminal.now
        let output =
            if options.json {
                StatusJSON.render(contents.records, now: now, timeZone: selection.timeZone, daemon: daemon)
            } else {
                StatusTable.render(
                    contents.records,
                    now: now,
                    timeZone: selection.timeZone,
                    daemon: daemon,
                    colour: Terminal.usesColour,
                    legend: !noLegend
                )
            }
        try Terminal.write(output)
    }
}
