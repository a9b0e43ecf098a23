// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleEngine
import LifecycleStorage

/// `lifecyclectl timers`: the timers that start the tracked units, and what became of their elapses.
struct Timers: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the timers of the tracked units: when each is due, and its runs, misses and lateness.",
        discussion: """
            Reads the state files directly and read-only, so it works while lifecycled is down. A timer is listed \
            once it elapsed for a tracked unit (lifecycled follows the timers in a watched service's TriggeredBy=).

            Columns, as in systemctl list-timers: NEXT and LEFT, when the timer elapses next; LAST, when it last \
            elapsed; UNIT, the timer; ACTIVATES, the unit it starts; as lifecycled last heard from systemd. Then \
            RUNS, the runs the timer started; MISSED, its elapses whose run never began (a failed dependency, the \
            start limit, a canceled or timed-out start job: each a missed dispatch in the journal); LATE, the \
            median (of the last 20 runs) and the longest time from the elapse to the run's begin; LAST RESULT, \
            what became of the last elapse: ran, missed (its cause), skipped (a condition skipped the start) or \
            coalesced (it elapsed while the previous run still went on, and systemd started nothing new).

            --json prints one object with a "timers" array; each has the keys timer, unit, runs, missed, \
            missed_by_cause, skipped, coalesced, last_trigger, next_elapse, lateness_median_seconds, \
            lateness_max_seconds, last_result and last_cause.
            """
    )

    @OptionGroup var options: GlobalOptions

    @Flag(name: .long, help: "Print the rows only, without the header and the footer.")
    var noLegend = false

    @OptionGroup var pager: PagerOption

    func run() throws {
        let selection = try options.select(needsTimeZone: false, needsCrashLoop: false)
        let records = try StateFiles.records(in: selection.stateDirectory)
        let rows = TimerRow.rows(of: records)
        let output =
            options.json
            ? TimersJSON.render(rows)
            : TimersTable.render(rows, now: Terminal.now, colour: Terminal.usesColour, legend: !noLegend)
        try Terminal.write(output)
    }
}
