// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

extension ExitCode {
    /// systemctl's status for "no such unit" (LSB's "program or service status is unknown").
    static let noSuchUnit = ExitCode(4)
}

/// Reports that `unit` has no state file, with the closest tracked unit when one is near, and returns
/// ``ExitCode/noSuchUnit``.
///
/// - Parameters:
///   - unit: the unit that was asked for.
///   - known: the units that have a state file, for a "did you mean" hint.
func reportNoSuchUnit(_ unit: String, known: [String] = []) -> ExitCode {
    var message =
        "lifecyclectl: Unit \(unit) has no lifecycle state (not tracked, or not started since lifecycled watches it)."
    if let suggestion = UnitSuggestion.closest(to: unit, among: known) { message += " Did you mean \(suggestion)?" }
    printError(message)
    return .noSuchUnit
}
