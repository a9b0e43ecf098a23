// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

extension ExitCode {
    /// systemctl's status for "no such unit" (LSB's "program or service status is unknown").
    static let noSuchUnit = ExitCode(4)
}

/// Reports that `unit` has no state file and returns ``ExitCode/noSuchUnit``.
func reportNoSuchUnit(_ unit: String) -> ExitCode {
    printError(
        "lifecyclectl: Unit \(unit) has no lifecycle state (not tracked, or not started since lifecycled watches it)."
    )
    return .noSuchUnit
}
