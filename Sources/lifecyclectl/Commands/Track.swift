// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// `lifecyclectl track UNIT EVENT [KEY=VALUE…]`: a custom event, sent to lifecycled over D-Bus.
struct Track: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record a custom event of a unit.",
        discussion: """
            Works for every watched unit, autotracked or not; lifecycled refuses a unit it does not watch (exit \
            status 4). The dispatch carries the unit's lifecycle data points too when its data_target is allEvents.

            lifecycled dispatches the event to the journal under its own name (LIFECYCLE_EVENT), with each \
            KEY=VALUE as custom data: journal field LIFECYCLE_<KEY>, the key upper-cased and any other character than \
            A-Z, 0-9 and _ replaced by _. Only root may send events. Prints nothing on success.
            """
    )

    @OptionGroup var bus: BusOptions

    @Flag(name: .shortAndLong, help: "Print the dispatch's sequence number.")
    var verbose = false

    @Argument(help: ArgumentHelp("The unit. A name without a type suffix gets .service.", valueName: "unit"))
    var unit: String

    @Argument(
        help: ArgumentHelp("The event's name: 1 to 64 printable ASCII characters without spaces.", valueName: "event")
    )
    var event: String

    @Argument(help: ArgumentHelp("Custom data for the dispatch, each as KEY=VALUE.", valueName: "key=value"))
    var data: [String] = []

    func validate() throws {
        _ = try UnitName.normalize(unit)
        try EventData.validateEventName(event)
        _ = try EventData.parse(data)
    }

    func run() async throws {
        try await EventArguments.send("Track", unit: unit, event: event, data: data, bus: bus, verbose: verbose)
    }
}
