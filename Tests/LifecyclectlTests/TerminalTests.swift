// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import lifecyclectl

/// When output is coloured.
struct TerminalTests {
    @Test(
        "colour needs a terminal, no NO_COLOR and a TERM other than dumb",
        arguments: [
            (true, [:], true),
            (true, ["TERM": "xterm-256color"], true),
            (false, [:], false),
            (false, ["TERM": "xterm-256color"], false),
            (true, ["NO_COLOR": "1"], false),
            (true, ["NO_COLOR": ""], true),  // no-color.org: only a non-empty value counts
            (true, ["TERM": "dumb"], false),
        ] as [(Bool, [String: String], Bool)]
    )
    func policy(isTerminal: Bool, environment: [String: String], expected: Bool) {
        #expect(Terminal.colourPolicy(isTerminal: isTerminal, environment: environment) == expected)
    }
}
