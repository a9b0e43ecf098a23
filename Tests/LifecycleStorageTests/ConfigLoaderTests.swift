// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage
import Testing

/// Loading configuration files and drop-ins from a temporary directory.
struct ConfigLoaderTests {
    @Test("a missing main file means all defaults when no path was given explicitly")
    func missingDefaultFile() throws {
        let directory = try TemporaryDirectory()
        let loader = ConfigLoader(path: directory.path + "/lifecycled.json", mustExist: false)
        #expect(try loader.load() == LifecycleConfiguration())
        #expect(try loader.files() == [])
    }

    @Test("a missing explicit file is an error")
    func missingExplicitFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/typo.json"
        #expect(throws: ConfigError.fileNotFound(file: path)) { try ConfigLoader(path: path).load() }
        #expect(ConfigError.fileNotFound(file: path).description == "\(path): configuration file not found")
    }

    @Test("the default loader reads /etc/lifecycled/lifecycled.json and tolerates its absence")
    func defaultPath() {
        let loader = ConfigLoader()
        #expect(loader.path == "/etc/lifecycled/lifecycled.json")
        #expect(loader.dropInDirectory == "/etc/lifecycled/lifecycled.json.d")
        #expect(!loader.mustExist)
    }

    @Test("drop-ins are merged on top of the main file in lexical order")
    func dropInOrder() throws {
        let directory = try TemporaryDirectory()
        let main = try directory.write(
            #"{"session_timeout": 10, "bus": "user", "watch": ["main.service"], "log_level": "warning"}"#,
            to: "lifecycled.json"
        )
        try directory.write(#"{"session_timeout": 20, "watch": ["a.service"]}"#, to: "lifecycled.json.d/10-first.json")
        try directory.write(#"{"watch": ["b.service"], "log_level": "debug"}"#, to: "lifecycled.json.d/20-second.json")
        // Byte order, not numeric order: "9-…" sorts after "20-…", so it is applied last and wins.
        try directory.write(#"{"log_level": "error"}"#, to: "lifecycled.json.d/9-last.json")
        // Not drop-ins: hidden, wrong suffix, a directory, and one masked with a symlink to /dev/null.
        try directory.write(#"{"bus": "system"}"#, to: "lifecycled.json.d/.30-hidden.json")
        try directory.write(#"{"bus": "system"}"#, to: "lifecycled.json.d/40-notes.conf")
        try directory.write("{}", to: "lifecycled.json.d/50-dir.json/inner.json")
        try FileManager.default.createSymbolicLink(
            atPath: directory.path + "/lifecycled.json.d/60-masked.json",
            withDestinationPath: "/dev/null"
        )
        let loader = ConfigLoader(path: main)
        #expect(
            try loader.files() == [
                main, "\(main).d/10-first.json", "\(main).d/20-second.json", "\(main).d/9-last.json",
            ]
        )
        let configuration = try loader.load()
        #expect(configuration.defaults.sessionTimeoutMinutes == 20)
        #expect(configuration.bus == .user)
        #expect(configuration.patterns == ["b.service"])
        #expect(configuration.logLevel == .error)
    }

    @Test("drop-ins apply even when the main file is missing")
    func dropInsWithoutMainFile() throws {
        let directory = try TemporaryDirectory()
        try directory.write(#"{"watch": ["*.service"]}"#, to: "lifecycled.json.d/local.json")
        let loader = ConfigLoader(path: directory.path + "/lifecycled.json", mustExist: false)
        #expect(try loader.load().patterns == ["*.service"])
    }

    @Test("a null in a drop-in restores the built-in default")
    func nullInDropIn() throws {
        let directory = try TemporaryDirectory()
        let main = try directory.write(#"{"time_zone": "Asia/Tokyo"}"#, to: "lifecycled.json")
        try directory.write(#"{"time_zone": null}"#, to: "lifecycled.json.d/reset.json")
        #expect(try ConfigLoader(path: main).load().timeZone == nil)
    }

    @Test("an error in a drop-in names the drop-in, not the main file")
    func errorNamesDropIn() throws {
        let directory = try TemporaryDirectory()
        let main = try directory.write(#"{"watch": ["a.service"]}"#, to: "lifecycled.json")
        let dropIn = try directory.write(
            #"{"watch": ["b.service", {"pattern": "c.service", "session_timeout": "30"}]}"#,
            to: "lifecycled.json.d/50-bad.json"
        )
        #expect(
            throws: ConfigError.invalidValue(
                file: dropIn,
                key: "watch[1].session_timeout",
                reason: "expected an integer number of minutes, found a string"
            )
        ) { try ConfigLoader(path: main).load() }
    }

    @Test("a syntax error names the file, the line and the column")
    func syntaxErrorInFile() throws {
        let directory = try TemporaryDirectory()
        let main = try directory.write("{\n  \"bus\": \"user\"\n  \"log_level\": \"info\"\n}\n", to: "lifecycled.json")
        do {
            _ = try ConfigLoader(path: main).load()
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.description == "\(main):3:3: invalid JSON: expected ',' or '}'")
        }
    }

    @Test("a directory in place of the main file is an error")
    func mainFileIsADirectory() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/lifecycled.json"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(throws: ConfigError.invalidValue(file: path, key: "", reason: "not a regular file")) {
            try ConfigLoader(path: path).load()
        }
    }

    @Test("a drop-in path that is not a directory is an I/O error")
    func dropInDirectoryIsAFile() throws {
        let directory = try TemporaryDirectory()
        let main = try directory.write("{}", to: "lifecycled.json")
        try directory.write("{}", to: "lifecycled.json.d")
        let expected = ConfigError.io(file: main + ".d", operation: "read directory", errno: ENOTDIR)
        #expect(throws: expected) { try ConfigLoader(path: main).load() }
        #expect(expected.description == "\(main).d: failed to read directory: Not a directory (ENOTDIR)")
    }

    @Test("an oversized file is refused")
    func oversized() throws {
        let directory = try TemporaryDirectory()
        let padding = String(repeating: " ", count: ConfigLoader.maximumFileSize)
        let main = try directory.write("{}" + padding, to: "lifecycled.json")
        #expect(
            throws: ConfigError.invalidValue(
                file: main,
                key: "",
                reason: "larger than \(ConfigLoader.maximumFileSize) bytes"
            )
        ) { try ConfigLoader(path: main).load() }
    }
}
