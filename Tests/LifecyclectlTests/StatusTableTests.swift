// SPDX-License-Identifier: Apache-2.0

import LifecycleStorage
import Testing

@testable import lifecyclectl

/// `lifecyclectl status` as text, pinned byte for byte.
struct StatusTableTests {
    static let plain = """
        lifecycled: running (pid 412)

        UNIT          STATE   RESULT LAUNCHES STARTS SLEEPS CRASHES LAST EVENT WHEN      DAYS  AWAKE VERSION
        cron.service  running -             4      9      8       0 launch     3 min ago   60 1d 01h 3f2a9c1b7d4e
        fresh.service -       -             0      0      0       0 -          -            -     0s -
        nginx.service stopped -             2      3      2       1 sleep      1 h ago      1 2h 00m 1.25.3

        STATE = the last run as lifecycled recorded it, not systemd's live state: running; stopped (it slept); failed
          (RESULT: systemd's Result and exit status or signal); crash-looping (3 failures within 10 min).
        LAUNCHES = cold starts. STARTS = launches and wakes together (the reference's wake count). SLEEPS = clean stops.
        CRASHES = runs that failed, the last one included. DAYS = complete days since the first launch.
        AWAKE = time awake in runs that ended with a sleep, plus the running one; a failed run adds nothing.
        3 units listed.

        """

    private func render(
        _ records: [UnitRecord] = Fixtures.all,
        daemon: DaemonStatus = .running(pid: 412),
        colour: Bool = false,
        legend: Bool = true
    ) -> String {
        StatusTable.render(
            records,
            now: Fixtures.now,
            timeZone: Fixtures.utc,
            daemon: daemon,
            colour: colour,
            legend: legend
        )
    }

    @Test("the plain table is pinned")
    func plainTable() {
        #expect(render() == Self.plain)
    }

    @Test("rows are sorted by unit name whatever the input order")
    func sorted() {
        #expect(render(Fixtures.all.reversed()) == Self.plain)
        #expect(render([Fixtures.cron, Fixtures.nginx, Fixtures.fresh]) == Self.plain)
    }

    @Test("--no-legend prints the rows alone, sized to the rows")
    func noLegend() {
        let expected = """
            cron.service  running - 4 9 8 0 launch 3 min ago 60 1d 01h 3f2a9c1b7d4e
            fresh.service -       - 0 0 0 0 -      -          -     0s -
            nginx.service stopped - 2 3 2 1 sleep  1 h ago    1 2h 00m 1.25.3

            """
        #expect(render(legend: false) == expected)
    }

    @Test("without units, the table says that nothing has been tracked yet")
    func empty() {
        #expect(render([], daemon: .notRunning) == "lifecycled: not running\n\nNo unit has been tracked yet.\n")
        #expect(render([], legend: false) == "")
    }

    @Test("one unit is counted in the singular")
    func singular() {
        #expect(render([Fixtures.nginx]).hasSuffix("\n1 unit listed.\n"))
    }

    @Test("the daemon line tells running, not running and unknown apart")
    func daemonLine() {
        #expect(StatusTable.daemonLine(.running(pid: 1), colour: false) == "lifecycled: running (pid 1)")
        #expect(StatusTable.daemonLine(.notRunning, colour: false) == "lifecycled: not running")
        #expect(
            StatusTable.daemonLine(.unknown(reason: "other users' processes are hidden"), colour: false)
                == "lifecycled: unknown (other users' processes are hidden)"
        )
        #expect(StatusTable.daemonLine(.notRunning, colour: true) == "lifecycled: \u{1B}[31mnot running\u{1B}[0m")
    }

    @Test("plain output has no escape sequence at all")
    func noColour() {
        #expect(!render().contains("\u{1B}"))
        #expect(!render(daemon: .notRunning, legend: false).contains("\u{1B}"))
    }

    @Test("a failed unit shows systemd's Result and exit status, a killed one the signal, and its time awake stops")
    func failures() {
        let expected = """
            spinner.service    crash-looping signal, status=9/KILL 3 3 0 3 launch 2 min ago 0 0s -
            worker@bad.service failed        exit-code, status=7   1 1 0 1 launch 5 min ago 0 0s -

            """
        #expect(render([Fixtures.bad, Fixtures.killed], legend: false) == expected)
        let coloured = render([Fixtures.bad, Fixtures.killed], colour: true, legend: false)
        #expect(coloured.contains("\u{1B}[31mcrash-looping\u{1B}[0m"))
        #expect(coloured.contains("\u{1B}[31mfailed\u{1B}[0m"))
    }

    @Test("colour marks the daemon, running and failed units and crashes, and changes nothing else")
    func colour() {
        let coloured = render(colour: true)
        #expect(coloured.hasPrefix("lifecycled: \u{1B}[32mrunning\u{1B}[0m (pid 412)\n"))
        #expect(coloured.contains("cron.service  \u{1B}[32mrunning\u{1B}[0m "))
        #expect(coloured.contains("      \u{1B}[31m1\u{1B}[0m sleep "))  // nginx's one crash
        #expect(coloured.contains("\u{1B}[1mUNIT\u{1B}[0m"))
        #expect(!coloured.contains("\u{1B}[31m0"))  // no crashes, no red
        #expect(Self.strippingEscapes(coloured) == Self.plain)
    }

    /// `text` without ANSI SGR sequences.
    static func strippingEscapes(_ text: String) -> String {
        var result = ""
        var inEscape = false
        for character in text {
            if character == "\u{1B}" {
                inEscape = true
            } else if inEscape {
                if character == "m" { inEscape = false }
            } else {
                result.append(character)
            }
        }
        return result
    }
}
