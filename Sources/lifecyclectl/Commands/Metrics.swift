// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleEngine
import LifecycleStorage

/// `lifecyclectl metrics`: the per-unit metrics lifecycled writes to its `metrics_file`, from the state files.
struct Metrics: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every tracked unit's metrics in Prometheus's text format.",
        discussion: """
            Prints what lifecycled writes to its metrics_file for node_exporter's textfile collector, read from the \
            state files directly and read-only, so it works while lifecycled is down: the per-unit families and \
            lifecycled_build_info. The families only a running lifecycled knows (dispatches, journal refusals, \
            retries and drops, pending dispatches, bus reconnects, watched units, start time) are left out. A state \
            file that cannot be read is reported on standard error and left out.
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The lifecycled configuration file (for the state directory and the crash-loop rule).", valueName: "file"
        )
    )
    var config: String?

    @Option(
        name: .long,
        help: ArgumentHelp("The state directory. The default is the configuration's state_directory.", valueName: "dir")
    )
    var stateDirectory: String?

    func run() throws {
        let selection = try GlobalOptions.select(
            config: config, stateDirectory: stateDirectory, needsTimeZone: false, needsCrashLoop: true
        )
        let records = try StateFiles.records(in: selection.stateDirectory)
        let metrics = LifecycleMetrics(
            records: records, now: Terminal.now, crashLoop: selection.crashLoop,
            version: LifecycleVersion.current
        )
        try Terminal.write(metrics.render())
    }
}
