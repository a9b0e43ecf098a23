// SPDX-License-Identifier: Apache-2.0

import ArgumentParser

/// Prints `lifecyclectl: <message>` to standard error and returns exit status 1, systemctl's status for a failure.
func reportFailure(_ message: String) -> ExitCode {
    printError("lifecyclectl: \(message)")
    return ExitCode.failure
}
