// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// `lifecyclectl launch|wake|sleep UNIT [KEY=VALUE…]`: a manual lifecycle event, sent to lifecycled over D-Bus as its
/// method of the same name. The three commands differ only in the event and the order it must keep.
protocol ManualEvent: AsyncParsableCommand {
    /// The D-Bus method: `Launch`, `Wake` or `Sleep`.
    static var method: String { get }
    var arguments: EventArguments { get }
}

extension ManualEvent {
    func run() async throws {
        try await arguments.send(Self.method)
    }

    /// The command's help: `event` (launch, wake, sleep) and the order lifecycled holds it to.
    static func help(event: String, order: String) -> CommandConfiguration {
        CommandConfiguration(
            abstract: "Report a \(event) of a unit whose autotracking is off.",
            discussion: """
                For units that report their own lifecycle: their watch rule sets "autotracking_enabled": false. \
                lifecycled refuses a manual event of an autotracked unit (ManualTrackNotAllowed) and of a unit it \
                does not watch (exit status 4). \(order)

                lifecycled records the event in the unit's state file and dispatches it to the journal like an \
                autotracked one, with each KEY=VALUE as custom data: journal field LIFECYCLE_<KEY>, the key \
                upper-cased and any other character than A-Z, 0-9 and _ replaced by _. Only root may send events. \
                Prints nothing on success.
                """
        )
    }
}

struct Launch: ManualEvent {
    static let method = "Launch"
    static let configuration = help(
        event: "launch", order: "A launch starts a new run: after a launch or a wake without a sleep, it counts a crash."
    )
    @OptionGroup var arguments: EventArguments
}

struct Wake: ManualEvent {
    static let method = "Wake"
    static let configuration = help(event: "wake", order: "A wake must follow a sleep (else InvalidEventOrder).")
    @OptionGroup var arguments: EventArguments
}

struct Sleep: ManualEvent {
    static let method = "Sleep"
    static let configuration = help(
        event: "sleep", order: "A sleep must follow a launch or a wake (else InvalidEventOrder)."
    )
    @OptionGroup var arguments: EventArguments
}
