// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine

import Glibc

/// What the commands read from their surroundings: the terminal, the environment and the clock. Everything else
/// they hand to pure formatters.
enum Terminal {
    /// True when output to standard output should be coloured: it is a terminal, `NO_COLOR` is unset or empty
    /// (no-color.org), and `TERM` is not `dumb`.
    static var usesColour: Bool {
        colourPolicy(isTerminal: isatty(STDOUT_FILENO) == 1, environment: ProcessInfo.processInfo.environment)
    }

    /// The decision behind ``usesColour``, pure for tests.
    static func colourPolicy(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let noColour = environment["NO_COLOR"], !noColour.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }

    /// The wall clock in milliseconds since the epoch, the engine's unit of time.
    static var now: Milliseconds {
        Milliseconds((Date().timeIntervalSince1970 * 1_000).rounded(.down))
    }

    /// Writes `text` to standard output.
    ///
    /// - Throws: `ExitCode.failure` after reporting the error, e.g. a full disk behind a redirection.
    static func write(_ text: String) throws {
        do {
            try StandardOutput.write(Array(text.utf8))
        } catch {
            throw reportFailure(error.description)
        }
    }
}
