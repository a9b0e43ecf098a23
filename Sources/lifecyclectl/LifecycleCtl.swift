// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleStorage

@main
struct LifecycleCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifecyclectl",
        abstract: "Inspect and drive lifecycled, the lifecycle tracker for systemd units.",
        discussion: """
            Without a command, runs status. Options may also come before the command, as with systemctl: \
            lifecyclectl -v launch job, lifecyclectl --json status.

            Exit status, as with systemctl:
              0   Success.
              1   Failure, reported on standard error as "lifecyclectl: ...";
                  for launch, wake, sleep and track also: lifecycled is not
                  running, it refused the event, or the caller is not root.
              4   No such unit: the unit has no lifecycle state, or lifecycled
                  does not watch it (launch, wake, sleep, track).
              64  Usage error: an unknown option, a missing argument, an invalid
                  unit name, data that is not KEY=VALUE, an invalid event name.
            """,
        version: LifecycleVersion.current,
        subcommands: [
            Status.self, Show.self, Runs.self, Timers.self, Follow.self, Metrics.self, Launch.self, Wake.self, Sleep.self,
            Track.self, Replay.self,
        ],
        defaultSubcommand: Status.self
    )

    /// Runs the command line, with options written before the verb moved after it (``ArgumentOrder``).
    static func main() async {
        await main(ArgumentOrder.verbFirst(Array(CommandLine.arguments.dropFirst()), verbs: verbs))
    }

    /// Every command's name and aliases, and `help`.
    static var verbs: Set<String> {
        var names: Set<String> = ["help"]
        for command in configuration.subcommands {
            names.insert(command._commandName)
            names.formUnion(command.configuration.aliases)
        }
        return names
    }
}
