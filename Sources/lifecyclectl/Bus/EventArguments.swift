// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// The arguments of `launch`, `wake` and `sleep`, and how every event command sends its event.
struct EventArguments: ParsableArguments {
    @OptionGroup var bus: BusOptions

    @Flag(name: .shortAndLong, help: "Print the dispatch's sequence number.")
    var verbose = false

    @Argument(help: ArgumentHelp("The unit. A name without a type suffix gets .service.", valueName: "unit"))
    var unit: String

    @Argument(help: ArgumentHelp("Custom data for the dispatch, each as KEY=VALUE.", valueName: "key=value"))
    var data: [String] = []

    func validate() throws {
        _ = try UnitName.normalize(unit)
        _ = try EventData.parse(data)
    }

    /// Sends the manual event `method` (`Launch`, `Wake` or `Sleep`) of ``unit``.
    func send(_ method: String) async throws {
        try await Self.send(method, unit: unit, event: nil, data: data, bus: bus, verbose: verbose)
    }

    /// Sends one event and reports the outcome: nothing on success (a sequence number with `verbose`), else one
    /// line on standard error.
    ///
    /// - Throws: `ExitCode` 1 or 4 after reporting a failure; `ValidationError` for arguments `validate()` missed.
    static func send(
        _ method: String,
        unit argument: String,
        event: String?,
        data arguments: [String],
        bus: BusOptions,
        verbose: Bool
    ) async throws {
        let unit = try UnitName.normalize(argument)
        let data = try EventData.parse(arguments)
        let sequence: UInt64
        let client = ManagerClient(address: bus.address)
        do {
            sequence = try await client.send(method, unit: unit, event: event, data: data)
        } catch {
            var message = "lifecyclectl: \(error.message)"
            if error.exitCode == .noSuchUnit,
                let suggestion = UnitSuggestion.closest(to: unit, among: await client.unitNames())
            {
                message += " Did you mean \(suggestion)?"
            }
            printError(message)
            throw error.exitCode
        }
        guard verbose else { return }
        let what = event.map { "event \($0)" } ?? method.lowercased()
        if sequence == 0 {
            try Terminal.write("\(unit): \(what) counted, not dispatched (not in tracked_lifecycle_events).\n")
        } else {
            try Terminal.write("\(unit): \(what) dispatched, sequence \(sequence).\n")
        }
    }
}
