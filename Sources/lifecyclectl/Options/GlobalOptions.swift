// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleEngine
import LifecycleStorage

/// Options that every command reading lifecycled's state shares: where the state is, and the output form.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The lifecycled configuration file. The default, /etc/lifecycled/lifecycled.json, may be missing.",
            valueName: "file"
        )
    )
    var config: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The state directory. The default is the configuration's state_directory, as for lifecycled.",
            valueName: "dir"
        )
    )
    var stateDirectory: String?

    @Flag(name: .long, help: "Print one JSON object instead of text.")
    var json = false

    /// Where the state is and which time zone applies, once the options and the configuration are combined.
    struct Selection: Sendable, Equatable {
        /// The state directory (the state files are in its `units/`).
        var stateDirectory: String
        /// The zone of the local-calendar data points.
        var timeZone: TimeZoneRules
        /// When failures make a crash loop: the configuration's, else the defaults.
        var crashLoop = CrashLoopRule()
        /// The bus lifecycled is on: the configuration's (`system` unless the configuration is read and says `user`).
        var bus = BusKind.system
    }

    /// Combines the options with the configuration, reading the configuration only when it is needed.
    ///
    /// The configuration is read when `--config` is given, when `--state-directory` is not, when the time zone
    /// matters and `zone` is nil, or when the crash-loop rule matters. The readers need little of it, so a file that
    /// is invalid (a drop-in with bad JSON) is reported as a warning and left out, and the other files apply; only a
    /// configuration whose files cannot even be listed (a `--config` file that does not exist) stops the command.
    /// The state directory follows the daemon's rule, ``StateDirectory/resolve(option:configuration:)``.
    ///
    /// - Parameters:
    ///   - zone: a time zone given on the command line, which wins over the configuration's.
    ///   - needsTimeZone: false when no output depends on the zone.
    ///   - needsCrashLoop: true when the output tells crash-looping units apart.
    /// - Returns: the state directory and the zone: `zone`, else the configuration's `time_zone`, else the machine's.
    /// - Throws: `ExitCode.failure` after reporting a configuration that cannot be listed, or a zone it names that
    ///   cannot be loaded.
    func select(timeZone zone: TimeZoneRules? = nil, needsTimeZone: Bool, needsCrashLoop: Bool = false) throws -> Selection {
        try Self.select(
            config: config, stateDirectory: stateDirectory, timeZone: zone, needsTimeZone: needsTimeZone,
            needsCrashLoop: needsCrashLoop
        )
    }

    /// ``select(timeZone:needsTimeZone:needsCrashLoop:)`` for a command that takes `--config` and
    /// `--state-directory` but not `--json`.
    static func select(
        config: String?, stateDirectory: String?, timeZone zone: TimeZoneRules? = nil, needsTimeZone: Bool,
        needsCrashLoop: Bool = false
    ) throws -> Selection {
        var configuration = LifecycleConfiguration()
        if config != nil || stateDirectory == nil || (needsTimeZone && zone == nil) || needsCrashLoop {
            do {
                let (loaded, skipped) = try ConfigLoader(path: config).loadSkippingInvalidFiles()
                for error in skipped { printError("lifecyclectl: Warning: \(error.description); file left out.") }
                configuration = loaded
            } catch {
                throw reportFailure(error.description)
            }
        }
        let timeZone: TimeZoneRules
        do {
            timeZone = try configuration.localTimeZone(overriding: zone)
        } catch {
            throw reportFailure("\(config ?? ConfigLoader.defaultPath): time_zone: \(error)")
        }
        return Selection(
            stateDirectory: StateDirectory.resolve(option: stateDirectory, configuration: configuration),
            timeZone: timeZone,
            crashLoop: configuration.crashLoop,
            bus: configuration.bus
        )
    }
}
