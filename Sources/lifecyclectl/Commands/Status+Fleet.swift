// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleSchema
import LifecycleSystemd

/// `lifecyclectl status --directory DIR` / `--file FILE…`: the fleet view over collected journals.
extension Status {
    func showFleet(from source: JournalSource, filter: UnitFilter) throws {
        let crashLoop = try options.select(needsTimeZone: false, needsCrashLoop: true).crashLoop
        let dispatches: [JournaledDispatch]
        do {
            dispatches = try DispatchJournal(source: source).allDispatches()
        } catch {
            throw reportFailure("\(error).")
        }
        let now = Terminal.now
        let all = FleetRow.rows(from: dispatches, now: now, crashLoop: crashLoop)
        let rows = all.filter { filter.includesName($0.unit) && (!failed || $0.summary.runState == .failed) }
        let output =
            if options.json {
                FleetJSON.render(rows)
            } else {
                FleetTable.render(
                    rows,
                    now: now,
                    colour: Terminal.usesColour,
                    legend: !noLegend,
                    crashLoop: crashLoop,
                    emptyMessage: all.isEmpty
                        ? "No dispatch of lifecycled in \(source.description)."
                        : "No unit in \(source.description) matches \(filter.description)."
                )
            }
        try Terminal.write(output)
        let missing = filter.missingNames(among: all.map(\.unit))
        guard missing.isEmpty else {
            for name in missing { _ = reportNoSuchUnit(name, known: all.map(\.unit)) }
            throw ExitCode.noSuchUnit
        }
    }
}
