// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Testing

@testable import lifecyclectl

/// systemctl's habits: options before the verb, list as another name of status, "did you mean" for a unit.
struct CommandLineHabitsTests {
    private func parse(_ arguments: [String]) throws -> any ParsableCommand {
        try LifecycleCtl.parseAsRoot(ArgumentOrder.verbFirst(arguments, verbs: LifecycleCtl.verbs))
    }

    @Test("options before the verb are moved after it, with their values")
    func verbFirst() {
        let verbs = LifecycleCtl.verbs
        #expect(ArgumentOrder.verbFirst(["-v", "launch", "job"], verbs: verbs) == ["launch", "-v", "job"])
        #expect(
            ArgumentOrder.verbFirst(["--state-directory", "status", "show", "x"], verbs: verbs)
                == ["show", "--state-directory", "status", "x"]
        )
        #expect(ArgumentOrder.verbFirst(["--json", "list"], verbs: verbs) == ["list", "--json"])
        #expect(ArgumentOrder.verbFirst(["launch", "-v", "job"], verbs: verbs) == ["launch", "-v", "job"])
        #expect(ArgumentOrder.verbFirst(["--json", "nginx"], verbs: verbs) == ["--json", "nginx"])
        #expect(ArgumentOrder.verbFirst(["--", "-x", "status"], verbs: verbs) == ["--", "-x", "status"])
    }

    @Test("lifecyclectl -v launch and --json status parse as the verb with its option")
    func optionsBeforeVerb() throws {
        let launch = try #require(try parse(["-v", "launch", "job", "a=b"]) as? Launch)
        #expect(launch.arguments.verbose)
        let status = try #require(try parse(["--json", "--state-directory", "/s", "status", "--failed"]) as? Status)
        #expect(status.options.json)
        #expect(status.options.stateDirectory == "/s")
        #expect(status.failed)
    }

    @Test("list and list-units are status")
    func listIsStatus() throws {
        #expect(try parse(["list"]) is Status)
        #expect(try parse(["list-units", "nginx*", "--no-pager"]) is Status)
        #expect(try (parse(["list", "a", "b*"]) as? Status)?.patterns == ["a", "b*"])
    }

    @Test("--no-pager is accepted by every reading command, before or after the verb")
    func noPager() throws {
        #expect(try parse(["--no-pager", "show", "nginx"]) is Show)
        #expect(try parse(["runs", "--no-pager", "nginx"]) is Runs)
        #expect(try parse(["--no-pager"]) is Status)
    }

    @Test("an unknown unit name suggests the closest tracked unit, and nothing when none is close")
    func suggestion() {
        let known = ["nginx.service", "cron.service", "worker@bad.service"]
        #expect(UnitSuggestion.closest(to: "ngnix.service", among: known) == "nginx.service")
        #expect(UnitSuggestion.closest(to: "worker@bda.service", among: known) == "worker@bad.service")
        #expect(UnitSuggestion.closest(to: "cron.socket", among: known) == nil)
        #expect(UnitSuggestion.closest(to: "postgresql.service", among: known) == nil)
        #expect(UnitSuggestion.closest(to: "nginx.service", among: []) == nil)
    }
}
