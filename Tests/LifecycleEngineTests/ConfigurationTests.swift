// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

struct ConfigurationTests {
    private func rule(
        _ pattern: String,
        timeout: Int? = nil,
        autotracking: Bool? = nil,
        source: VersionSource? = nil
    ) throws -> WatchRule {
        WatchRule(
            pattern: try UnitPattern(pattern),
            autotrackingEnabled: autotracking,
            sessionTimeoutMinutes: timeout,
            versionSource: source
        )
    }

    @Test("an empty configuration has the documented defaults and watches nothing")
    func defaults() {
        let configuration = LifecycleConfiguration()
        #expect(configuration.defaults == LifecycleSettings())
        #expect(configuration.defaults.autotrackingEnabled)
        #expect(configuration.defaults.sessionTimeoutMinutes == 1440)
        #expect(configuration.defaults.trackedLifecycleEvents == [.launch, .wake, .sleep])
        #expect(configuration.defaults.dataTarget == .lifecycleEventsOnly)
        #expect(configuration.defaultVersionSource == .executable)
        #expect(configuration.stateDirectory == "/var/lib/lifecycled")
        #expect(configuration.bus == .system)
        #expect(configuration.timeZone == nil)
        #expect(configuration.logLevel == .info)
        #expect(!configuration.isWatched("nginx.service"))
        #expect(configuration.settings(for: "nginx.service") == LifecycleSettings())
    }

    @Test("the first matching pattern wins, in file order")
    func firstMatchWins() throws {
        let configuration = LifecycleConfiguration(
            watch: [
                try rule("nginx.service", timeout: 5), try rule("*.service", timeout: 60),
                try rule("nginx.*", timeout: 7),
            ]
        )
        #expect(configuration.rule(for: "nginx.service")?.pattern.text == "nginx.service")
        #expect(configuration.settings(for: "nginx.service").sessionTimeoutMinutes == 5)
        #expect(configuration.settings(for: "cron.service").sessionTimeoutMinutes == 60)
        #expect(configuration.settings(for: "nginx.socket").sessionTimeoutMinutes == 7)
        #expect(configuration.rule(for: "sshd.socket") == nil)
        #expect(configuration.patterns == ["nginx.service", "*.service", "nginx.*"])
    }

    @Test("a rule overrides only the settings it names")
    func overlay() throws {
        var defaults = LifecycleSettings(sessionTimeoutMinutes: 30, dataTarget: .allEvents)
        defaults.trackedLifecycleEvents = [.launch]
        let configuration = LifecycleConfiguration(
            defaults: defaults,
            defaultVersionSource: .unitFile,
            watch: [
                try rule("a.service", autotracking: false, source: .environment("APP_VERSION")), try rule("b.service"),
            ]
        )
        let a = configuration.settings(for: "a.service")
        #expect(!a.autotrackingEnabled)
        #expect(a.sessionTimeoutMinutes == 30)
        #expect(a.trackedLifecycleEvents == [.launch])
        #expect(a.dataTarget == .allEvents)
        #expect(configuration.versionSource(for: "a.service") == .environment("APP_VERSION"))
        #expect(configuration.settings(for: "b.service") == defaults)
        #expect(configuration.versionSource(for: "b.service") == .unitFile)
        #expect(configuration.versionSource(for: "unwatched.service") == .unitFile)
    }

    @Test(
        "version sources parse from their configuration spelling and print back",
        arguments: [
            ("executable", VersionSource.executable),
            ("unit_file", .unitFile),
            ("UNIT_FILE", .unitFile),
            ("none", VersionSource.none),
            ("environment:APP_VERSION", .environment("APP_VERSION")),
            ("Environment:v2", .environment("v2")),
        ]
    )
    func versionSources(_ text: String, _ expected: VersionSource) throws {
        let source = try VersionSource(parsing: text)
        #expect(source == expected)
        #expect(try VersionSource(parsing: source.description) == expected)
    }

    @Test("bad version sources say what is accepted", arguments: ["environment:", "environment:1X", "environment:A-B"])
    func badEnvironmentNames(_ text: String) {
        let reason =
            #"expected "environment:NAME" with a variable name of letters, digits and '_' that does not start "#
            + #"with a digit, found "\#(text)""#
        #expect(throws: ConfigurationValueError(reason)) { try VersionSource(parsing: text) }
    }

    @Test("an unknown version source lists the accepted spellings")
    func unknownVersionSource() {
        let reason = #"expected "executable", "unit_file", "environment:NAME" or "none", found "exe""#
        #expect(throws: ConfigurationValueError(reason)) { try VersionSource(parsing: "exe") }
    }

    @Test("log levels are ordered by severity")
    func logLevels() {
        #expect(LogLevel.trace < .debug)
        #expect(LogLevel.notice < .warning)
        #expect(LogLevel.allCases.sorted() == LogLevel.allCases)
    }
}
