// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import LifecycleEngine
import LifecycleStorage
import Testing

@testable import lifecyclectl

/// The commands as parsed from argument lists, and the exit statuses of their failures.
struct CommandTests {
    /// The exit status `arguments` end with, parsing and running the command; nil when the command succeeds.
    ///
    /// Only used with arguments that fail before anything is written to standard output.
    private func exitStatus(_ arguments: [String]) async -> Int32? {
        do {
            var command = try LifecycleCtl.parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            return nil
        } catch {
            return LifecycleCtl.exitCode(for: error).rawValue
        }
    }

    @Test("status is the default command")
    func defaultCommand() throws {
        #expect(try LifecycleCtl.parseAsRoot([]) is Status)
        let status = try #require(try LifecycleCtl.parseAsRoot(["--json", "--state-directory", "/s"]) as? Status)
        #expect(status.options.json)
        #expect(status.options.stateDirectory == "/s")
        #expect(!status.noLegend)
        #expect(try (LifecycleCtl.parseAsRoot(["status", "--no-legend"]) as? Status)?.noLegend == true)
    }

    @Test("show takes a unit and an optional time zone")
    func showParses() throws {
        let show = try #require(try LifecycleCtl.parseAsRoot(["show", "--timezone", "UTC", "nginx"]) as? Show)
        #expect(show.unit == "nginx")
        #expect(show.timeZone.name == "UTC")
    }

    @Test(
        "invalid unit names and time zones are usage errors (64)",
        arguments: [["show", ""], ["show", "a/b"], ["show"], ["show", "--timezone", "Mars/Olympus", "nginx"]]
    )
    func usageErrors(arguments: [String]) async {
        #expect(await exitStatus(arguments) == 64)
    }

    @Test("a unit without a state file is 'no such unit' (4), in an existing or a missing directory")
    func noSuchUnit() async throws {
        let directory = try TemporaryDirectory()
        try StateStore(directory: directory.path).save(Fixtures.nginx)
        #expect(await exitStatus(["show", "--state-directory", directory.path, "--timezone", "UTC", "ghost"]) == 4)
        #expect(await exitStatus(["show", "--state-directory", directory.path + "/absent", "--timezone", "UTC", "x"]) == 4)
    }

    @Test("a unit whose record is archived is shown from the archive, not 'no such unit'")
    func archivedUnit() async throws {
        let directory = try TemporaryDirectory()
        try UnitArchive(stateDirectory: directory.path).append([Fixtures.nginx])
        #expect(await exitStatus(["show", "--state-directory", directory.path, "--timezone", "UTC", "--json", "nginx"]) == nil)
    }

    @Test("show reads the state file of a name of systemd's 255 bytes")
    func longName() async throws {
        let directory = try TemporaryDirectory()
        let unit = "app@" + String(repeating: "a", count: 243) + ".service"
        try StateStore(directory: directory.path).save(UnitRecord(unit: unit))
        #expect(await exitStatus(["show", "--state-directory", directory.path, "--timezone", "UTC", "--json", unit]) == nil)
        #expect(await exitStatus(["show", "--state-directory", directory.path, "--timezone", "UTC", "--json", unit + "x"]) == 64)
    }

    @Test("a corrupt state file of the unit is a failure (1), and stays where it is")
    func corruptUnit() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("not json", to: "units/broken.service.json")
        #expect(await exitStatus(["show", "--state-directory", directory.path, "--timezone", "UTC", "broken"]) == 1)
        #expect(directory.list("units") == ["broken.service.json"])
    }

    @Test("a configuration named on the command line must exist (1)")
    func missingConfiguration() async throws {
        let directory = try TemporaryDirectory()
        #expect(await exitStatus(["status", "--config", directory.path + "/absent.json"]) == 1)
        #expect(await exitStatus(["show", "--config", directory.path + "/absent.json", "nginx"]) == 1)
    }

    @Test("the state directory comes from the option, else the configuration")
    func selection() throws {
        let directory = try TemporaryDirectory()
        try directory.write(#"{"state_directory": "/srv/lifecycled", "time_zone": "Asia/Kolkata"}"#, to: "c.json")
        let configured = try GlobalOptions.parse(["--config", directory.path + "/c.json"])
        let selection = try configured.select(needsTimeZone: true)
        #expect(selection.stateDirectory == "/srv/lifecycled")
        #expect(selection.timeZone.name == "Asia/Kolkata")

        let both = try GlobalOptions.parse(["--config", directory.path + "/c.json", "--state-directory", "/s"])
        #expect(try both.select(timeZone: Fixtures.utc, needsTimeZone: true).stateDirectory == "/s")
        #expect(try both.select(timeZone: Fixtures.utc, needsTimeZone: true).timeZone == Fixtures.utc)

        // No configuration is read at all here, so a broken default configuration could not get in the way.
        let explicit = try GlobalOptions.parse(["--state-directory", "/s"])
        #expect(try explicit.select(needsTimeZone: false).stateDirectory == "/s")
    }

    @Test("the help of show is pinned")
    func showHelp() {
        let expected = """
            OVERVIEW: Show every stored value and current data point of one unit.

            Prints one key=value line per property, like systemctl show: first the unit's
            state file under its own key names (times in RFC 3339, UTC), then the lifecycle
            data points a dispatch would carry now (lifecycle_dayssincelaunch,
            lifecycle_secondsawake, ...) under their payload names. A data point that does
            not apply is left out, as in a dispatch.

            Then the unit's runs per version, from lifecycled's dispatches in the journal,
            newest version first: runs.VERSION.count (the runs the journal holds),
            runs.VERSION.median_startup_seconds and runs.VERSION.median_cpu_seconds
            (medians over the runs that know the value, empty when none does). A digest
            version is shortened to 12 digits, - stands for runs without a version. Reading
            the journal takes root or membership of the systemd-journal group; without it,
            a warning on standard error says so and the rest is printed as usual.

            The state file is read directly and read-only. A unit without a state file
            exits with status 4.

            USAGE: lifecyclectl show [--config <file>] [--state-directory <dir>] [--json] [--timezone <zone>] [--no-pager] <unit>

            ARGUMENTS:
              <unit>                  The unit. A name without a type suffix gets .service.

            OPTIONS:
              --config <file>         The lifecycled configuration file. The default,
                                      /etc/lifecycled/lifecycled.json, may be missing.
              --state-directory <dir> The state directory. The default is the
                                      configuration's state_directory, as for lifecycled.
              --json                  Print one JSON object instead of text.
              --timezone <zone>       The IANA time zone of the local data points. The
                                      default is the configuration's, else the machine's.
              --no-pager              Accepted as with systemctl; lifecyclectl never pipes
                                      its output into a pager.
              --version               Show the version.
              -h, --help              Show help information.

            """
        #expect(LifecycleCtl.helpMessage(for: Show.self, columns: 80) == expected)
    }

    @Test("a drop-in with bad JSON is a warning for status and show: the other files still apply")
    func brokenDropIn() async throws {
        let directory = try TemporaryDirectory()
        try directory.write(#"{"state_directory": "\#(directory.path)/state", "crash_loop_crashes": 5}"#, to: "c.json")
        try directory.write("{not json", to: "c.json.d/50-broken.json")
        try StateStore(directory: directory.path + "/state").save(Fixtures.nginx)
        let options = try GlobalOptions.parse(["--config", directory.path + "/c.json"])
        let selection = try options.select(needsTimeZone: false, needsCrashLoop: true)
        #expect(selection.stateDirectory == directory.path + "/state")
        #expect(selection.crashLoop.crashes == 5)
        #expect(await exitStatus(["show", "--config", directory.path + "/c.json", "--timezone", "UTC", "nginx"]) == nil)
    }
}
