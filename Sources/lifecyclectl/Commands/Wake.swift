// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// `lifecyclectl wake UNIT [KEY=VALUE…]`: a manual wake, sent to lifecycled over D-Bus.
struct Wake: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Report a wake of a unit whose autotracking is off.",
        discussion: """
            For units that report their own lifecycle: their watch rule sets "autotracking_enabled": false. \
            lifecycled refuses a manual event of an autotracked unit (ManualTrackNotAllowed) and of a unit it does not \
            watch (exit status 4). A wake must follow a sleep (else InvalidEventOrder).

            lifecycled records the event in the unit's state file and dispatches it to the journal like an autotracked \
            one, with each KEY=VALUE as custom data: journal field LIFECYCLE_<KEY>, the key upper-cased and any other \
            character than A-Z, 0-9 and _ replaced by _. Only root may send events. Prints nothing on success.
            """
    )

    @OptionGroup var arguments: EventArguments

    func run() async throws {
        try await arguments.send("Wake")
    }
}
