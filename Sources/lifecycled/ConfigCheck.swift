// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import LifecycleEngine
import LifecycleStorage

/// `lifecycled --check-config`: validates the configuration as a reload would, and says what it read.
///
/// Prints every file read (main file and drop-ins, in the order they apply), each top-level key with the file whose
/// value counts, and the watched patterns; warns on standard error about patterns that can never match a unit (or
/// match every unit), naming the file that supplied them. Exits 1 for an invalid configuration, so that
/// `ExecReload=lifecycled --check-config` stops `systemctl reload` before the daemon is signalled.
struct ConfigCheck {
    /// The configuration file given with `--config`, nil for the default.
    var path: String?

    func run() throws {
        let sources: ConfigSources
        do {
            sources = try ConfigLoader(path: path).loadWithSources()
        } catch {
            Self.printError("lifecycled: \(error)")
            throw ExitCode.failure
        }
        var lines: [String] = []
        if sources.files.isEmpty {
            lines.append("No configuration file: every key has its default.")
        } else {
            lines += sources.files.map { "Read \($0)" }
        }
        let width = sources.keySources.map(\.key.count).max() ?? 0
        for (key, file) in sources.keySources {
            lines.append("  \(key)\(String(repeating: " ", count: width - key.count))  from \(file)")
        }
        let zone: ZoneChoice
        do {
            zone = try ZoneChoice(sources.configuration)
        } catch {
            Self.printError("lifecycled: \(path ?? ConfigLoader.defaultPath): time_zone: \(error)")
            throw ExitCode.failure
        }
        lines.append("\(path ?? ConfigLoader.defaultPath): valid; watching \(sources.configuration.patterns); \(zone.summary)")
        print(lines.joined(separator: "\n"))
        for warning in sources.warnings { Self.printError("lifecycled: warning: \(warning)") }
        if let problem = zone.problem { Self.printError("lifecycled: warning: \(problem)") }
    }

    private static func printError(_ message: String) {
        var line = message + "\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }
}
