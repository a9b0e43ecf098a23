// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// A configuration with where it came from: what `lifecycled --check-config` reports.
public struct ConfigSources: Sendable {
    /// The merged configuration.
    public var configuration: LifecycleConfiguration
    /// The files read, main file first, then the drop-ins in the order they were applied.
    public var files: [String]
    /// Each top-level key that some file sets, sorted, with the last file that set it (the one whose value counts).
    public var keySources: [(key: String, file: String)]

    public init(configuration: LifecycleConfiguration, files: [String], keySources: [(key: String, file: String)]) {
        self.configuration = configuration
        self.files = files
        self.keySources = keySources
    }

    /// The file whose value of `key` counts, or nil when no file sets it.
    public func file(of key: String) -> String? {
        keySources.first { $0.key == key }?.file
    }

    /// Warnings about `watch` patterns that are valid but can never match a unit, or match every unit, each naming
    /// the file that supplied `watch` and the rule's position: `<file>: watch[0]: pattern "nc-web" can never …`.
    public var warnings: [String] {
        let file = file(of: "watch") ?? "(defaults)"
        return configuration.watch.enumerated().compactMap { index, rule in
            PatternLint.warning(for: rule.pattern.text).map { "\(file): watch[\(index)]: \($0)" }
        }
    }
}
