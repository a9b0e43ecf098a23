// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage
import Testing

/// What `lifecycled --check-config` and `lifecyclectl` get from the loader besides the configuration: the files
/// read, where each key came from, the files left out, and the patterns that can never match.
struct ConfigCheckTests {
    @Test("every file read, and for each key the last file that set it")
    func sources() throws {
        let directory = try TemporaryDirectory()
        let main = try directory.write(#"{"log_level": "debug", "watch": ["a.service"]}"#, to: "lifecycled.json")
        let dropIn = try directory.write(#"{"watch": ["nc-web", "b.service"]}"#, to: "lifecycled.json.d/50-watch.json")
        let sources = try ConfigLoader(path: main).loadWithSources()
        #expect(sources.files == [main, dropIn])
        #expect(sources.keySources.map(\.key) == ["log_level", "watch"])
        #expect(sources.file(of: "log_level") == main)
        #expect(sources.file(of: "watch") == dropIn)
        #expect(
            sources.warnings == [
                "\(dropIn): watch[0]: pattern \"nc-web\" can never match a unit name: unit names end in a type such "
                    + "as .service (did you mean \"nc-web.service\"?)"
            ]
        )
    }

    @Test(
        "patterns that can never match, or match everything, are named; good ones are not",
        arguments: [
            ("nc-web", "can never match a unit name: unit names end in a type such as .service"),
            ("nginx.service ", "can never match a unit name: a space is not allowed in unit names"),
            ("*-web", "can never match a unit name: unit names end in a type such as .service"),
            ("nginx.srvice", "can never match a unit name: unit names end in a type such as .service"),
            ("*", "matches every unit"),
        ]
    )
    func badPatterns(_ pattern: String, _ expected: String) throws {
        let warning = try #require(PatternLintProbe.warning(pattern))
        #expect(warning.contains(expected))
    }

    @Test(
        "usual patterns give no warning",
        arguments: ["nginx.service", "getty@*.service", "backup-*", "web-[0-9].service", "*.socket", "lc-*", "a*ice"]
    )
    func goodPatterns(_ pattern: String) throws {
        #expect(PatternLintProbe.warning(pattern) == nil)
    }

    @Test("readers skip an invalid drop-in and keep the rest")
    func skipping() throws {
        let directory = try TemporaryDirectory()
        let main = try directory.write(#"{"log_level": "debug"}"#, to: "lifecycled.json")
        let broken = try directory.write("{not json", to: "lifecycled.json.d/50-broken.json")
        _ = try directory.write(#"{"bus": "user"}"#, to: "lifecycled.json.d/60-bus.json")
        let (configuration, skipped) = try ConfigLoader(path: main).loadSkippingInvalidFiles()
        #expect(configuration.logLevel == .debug)
        #expect(configuration.bus == .user)
        #expect(skipped.map(\.file) == [broken])
        #expect(throws: ConfigError.self) { try ConfigLoader(path: main).load() }
    }
}

/// The lint through the public surface: one watch rule, its warning.
enum PatternLintProbe {
    static func warning(_ pattern: String) -> String? {
        let configuration = LifecycleConfiguration(watch: [WatchRule(pattern: try! UnitPattern(pattern))])
        return ConfigSources(configuration: configuration, files: [], keySources: []).warnings.first
    }
}
