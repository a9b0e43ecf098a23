// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage
import Testing

/// Decoding configuration text, without files.
struct ConfigDecodingTests {
    static let file = "/etc/lifecycled/lifecycled.json"

    private func decode(_ text: String) throws(ConfigError) -> LifecycleConfiguration {
        try ConfigLoader.decode(try ConfigLoader.parse(Array(text.utf8), file: Self.file), file: Self.file)
    }

    /// The description of the error decoding `text` throws, or nil when it decodes.
    private func errorMessage(_ text: String) -> String? {
        do {
            _ = try decode(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("an empty object gives every default")
    func emptyObject() throws {
        #expect(try decode("{}") == LifecycleConfiguration())
    }

    @Test("the repository's default configuration decodes to the built-in defaults")
    func shippedDefaults() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(contentsOf: repository.appendingPathComponent("config/lifecycled.json"), encoding: .utf8)
        #expect(try decode(text) == LifecycleConfiguration())
    }

    @Test("a file with only the four reference settings sets the defaults for every unit")
    func referenceSettingsOnly() throws {
        let configuration = try decode(
            """
            {
              "autotracking_enabled": false,
              "session_timeout": -5,
              "tracked_lifecycle_events": ["Launch", "SLEEP", "launch"],
              "data_target": "ALLEVENTS"
            }
            """
        )
        let expected = LifecycleSettings(
            autotrackingEnabled: false,
            sessionTimeoutMinutes: -5,
            trackedLifecycleEvents: [.launch, .sleep],
            dataTarget: .allEvents
        )
        #expect(configuration == LifecycleConfiguration(defaults: expected))
        #expect(configuration.defaults.isInfiniteSession)
    }

    @Test("an empty tracked_lifecycle_events dispatches nothing")
    func emptyTrackedEvents() throws {
        #expect(try decode(#"{"tracked_lifecycle_events": []}"#).defaults.trackedLifecycleEvents.isEmpty)
    }

    @Test("every daemon key is read")
    func daemonKeys() throws {
        let configuration = try decode(
            """
            {"state_directory": "/srv/lifecycled", "bus": "user", "time_zone": "Europe/Berlin", "log_level": "Debug",
             "version_source": "environment:APP_VERSION"}
            """
        )
        #expect(configuration.stateDirectory == "/srv/lifecycled")
        #expect(configuration.bus == .user)
        #expect(configuration.timeZone == "Europe/Berlin")
        #expect(configuration.logLevel == .debug)
        #expect(configuration.defaultVersionSource == .environment("APP_VERSION"))
    }

    @Test("watch patterns carry their overrides, and the first match wins")
    func watchOverrides() throws {
        let configuration = try decode(
            """
            {
              "session_timeout": 60,
              "watch": [
                {"pattern": "nginx.service", "session_timeout": 5, "tracked_lifecycle_events": ["launch"],
                 "version_source": "unit_file"},
                "getty@*.service",
                {"pattern": "*.service", "autotracking_enabled": false, "data_target": "allEvents"},
                {"pattern": "nginx.*", "session_timeout": 1}
              ]
            }
            """
        )
        #expect(configuration.patterns == ["nginx.service", "getty@*.service", "*.service", "nginx.*"])
        let nginx = configuration.settings(for: "nginx.service")
        #expect(nginx.sessionTimeoutMinutes == 5)
        #expect(nginx.trackedLifecycleEvents == [.launch])
        #expect(nginx.autotrackingEnabled)
        #expect(configuration.versionSource(for: "nginx.service") == .unitFile)
        #expect(configuration.settings(for: "getty@tty1.service") == configuration.defaults)
        #expect(configuration.versionSource(for: "getty@tty1.service") == .executable)
        let cron = configuration.settings(for: "cron.service")
        #expect(!cron.autotrackingEnabled)
        #expect(cron.dataTarget == .allEvents)
        #expect(cron.sessionTimeoutMinutes == 60)
        #expect(configuration.settings(for: "nginx.socket").sessionTimeoutMinutes == 1)
        #expect(!configuration.isWatched("sshd.socket"))
    }

    @Test("null means the built-in default")
    func nullIsDefault() throws {
        let configuration = try decode(
            #"{"time_zone": null, "session_timeout": null, "#
                + #""watch": [{"pattern": "a.service", "session_timeout": null}]}"#
        )
        #expect(configuration.timeZone == nil)
        #expect(configuration.defaults.sessionTimeoutMinutes == 1440)
        #expect(configuration.watch == [WatchRule(pattern: try UnitPattern("a.service"))])
    }

    static let badValues: [(String, String)] = [
        (#"{"sesion_timeout": 5}"#, "sesion_timeout: unknown key (did you mean \"session_timeout\"?)"),
        (#"{"sessionTimeout": 5}"#, "sessionTimeout: unknown key (did you mean \"session_timeout\"?)"),
        (#"{"colour": "blue"}"#, "colour: unknown key"),
        (
            #"{"watch": [{"pattern": "a.service", "data-target": "allEvents"}]}"#,
            "watch[0].data-target: unknown key (did you mean \"data_target\"?)"
        ),
        (#"{"watch": [{"pattern": "a.service", "bus": "user"}]}"#, "watch[0].bus: unknown key"),
        (
            #"{"watch": ["a.service", "b.service", {"pattern": "c.service", "session_timeout": "30"}]}"#,
            "watch[2].session_timeout: expected an integer number of minutes, found a string"
        ),
        (#"{"session_timeout": 1.5}"#, "session_timeout: expected an integer number of minutes, found 1.5"),
        (#"{"session_timeout": true}"#, "session_timeout: expected an integer number of minutes, found a boolean"),
        (
            #"{"session_timeout": 9223372036854775807}"#,
            "session_timeout: 9223372036854775807 minutes is out of range (at most 153722867280912; "
                + "use -1 for no timeout)"
        ),
        (#"{"autotracking_enabled": 1}"#, "autotracking_enabled: expected true or false, found a number"),
        (#"{"autotracking_enabled": "yes"}"#, "autotracking_enabled: expected true or false, found a string"),
        (
            #"{"tracked_lifecycle_events": "launch"}"#,
            #"tracked_lifecycle_events: expected an array of "launch", "wake" and "sleep", found a string"#
        ),
        (
            #"{"tracked_lifecycle_events": ["launch", "lunch"]}"#,
            #"tracked_lifecycle_events[1]: expected "launch", "wake" or "sleep", found "lunch""#
        ),
        (
            #"{"tracked_lifecycle_events": ["launch", null]}"#,
            #"tracked_lifecycle_events[1]: expected "launch", "wake" or "sleep", found null"#
        ),
        (
            #"{"data_target": "everything"}"#,
            #"data_target: expected "lifecycleEventsOnly" or "allEvents", found "everything""#
        ),
        (#"{"bus": "session"}"#, #"bus: expected "system" or "user", found "session""#),
        (
            #"{"log_level": "verbose"}"#,
            #"log_level: expected "trace", "debug", "info", "notice", "warning", "error" or "critical", "#
                + #"found "verbose""#
        ),
        (
            #"{"time_zone": "Mars/Olympus_Mons"}"#,
            #"time_zone: unknown time zone "Mars/Olympus_Mons" (no such file /usr/share/zoneinfo/Mars/Olympus_Mons; "#
                + #"expected an IANA name such as "Europe/Berlin")"#
        ),
        (
            #"{"time_zone": "../../etc/passwd"}"#,
            #"time_zone: invalid time zone name "../../etc/passwd" (expected an IANA name such as "Europe/Berlin" or "#
                + #""UTC")"#
        ),
        (
            #"{"time_zone": 1}"#,
            #"time_zone: expected an IANA time zone name such as "Europe/Berlin", found a number"#
        ),
        (#"{"state_directory": "var/lib/x"}"#, #"state_directory: expected an absolute path, found "var/lib/x""#),
        (
            #"{"version_source": "git"}"#,
            #"version_source: expected "executable", "unit_file", "environment:NAME" or "none", found "git""#
        ),
        (
            #"{"watch": [{"pattern": "a.service", "version_source": "environment:"}]}"#,
            #"watch[0].version_source: expected "environment:NAME" with a variable name of letters, digits "#
                + #"and '_' that does not start with a digit, found "environment:""#
        ),
        (#"{"watch": "*.service"}"#, "watch: expected an array of unit patterns, found a string"),
        (
            #"{"watch": ["ok.service", "bad/unit"]}"#,
            #"watch[1]: invalid unit pattern "bad/unit": must not contain '/'"#
        ),
        (#"{"watch": [{"pattern": ""}]}"#, #"watch[0].pattern: invalid unit pattern "": must not be empty"#),
        (
            #"{"watch": ["web-[0-9.service"]}"#,
            #"watch[0]: invalid unit pattern "web-[0-9.service": the '[' at character 5 has no closing ']' "#
                + #"(a unit name never contains '[')"#
        ),
        (#"{"watch": [{"pattern": 7}]}"#, "watch[0].pattern: expected a unit pattern string, found a number"),
        (#"{"watch": [{"session_timeout": 5}]}"#, #"watch[0]: missing the required key "pattern""#),
        (
            #"{"watch": [5]}"#,
            #"watch[0]: expected a unit pattern string or an object with "pattern", found a number"#
        ),
    ]

    @Test("every bad key or value is an error naming the file, the key path and the reason", arguments: badValues)
    func badValue(_ text: String, _ message: String) {
        #expect(errorMessage(text) == "\(Self.file): \(message)")
    }

    @Test("a document that is not an object is an error naming the file")
    func notAnObject() {
        #expect(errorMessage("[]") == "\(Self.file): expected a JSON object at the top level, found an array")
    }

    @Test("the first error in key order is reported, so the message is stable")
    func stableOrder() {
        #expect(errorMessage(#"{"zebra": 1, "bus": "x", "alpha": 2}"#) == "\(Self.file): alpha: unknown key")
    }

    @Test("syntax errors name the file, the line and the column")
    func syntaxError() {
        let text = "{\n  \"bus\": \"user\",\n  \"log_level\" \"info\"\n}\n"
        #expect(errorMessage(text) == "\(Self.file):3:15: invalid JSON: expected ':'")
        #expect(
            throws: ConfigError.syntax(file: Self.file, line: 3, column: 15, reason: "expected ':'")
        ) { try decode(text) }
    }

    @Test("columns count characters, not bytes")
    func syntaxColumnIsCharacters() {
        #expect(errorMessage(#"{"time_zone": "Zürich" x}"#) == "\(Self.file):1:24: invalid JSON: expected ',' or '}'")
    }

    @Test("an empty file and a truncated file are syntax errors")
    func truncated() {
        #expect(errorMessage("") == "\(Self.file):1:1: invalid JSON: unexpected end of input")
        #expect(
            errorMessage("{\"bus\": \"user\"")
                == "\(Self.file):1:15: invalid JSON: unexpected end of input in an object"
        )
    }

    @Test("bytes that are not UTF-8 are an error naming the file")
    func invalidUTF8() {
        #expect(throws: ConfigError.invalidEncoding(file: Self.file)) {
            try ConfigLoader.parse([0x7B, 0xFF, 0x7D], file: Self.file)
        }
    }

    @Test("merging replaces scalars and arrays and merges objects key by key")
    func merge() {
        let base = JSONValue.object([
            "bus": .string("user"),
            "watch": .array([.string("a.service"), .string("b.service")]),
            "nested": .object(["x": .int(1), "y": .int(2)]),
        ])
        let overlay = JSONValue.object([
            "watch": .array([.string("c.service")]),
            "nested": .object(["y": .int(3)]),
            "log_level": .string("debug"),
        ])
        #expect(
            ConfigLoader.merge(base, overlay)
                == .object([
                    "bus": .string("user"),
                    "watch": .array([.string("c.service")]),
                    "nested": .object(["x": .int(1), "y": .int(3)]),
                    "log_level": .string("debug"),
                ])
        )
    }
}
