// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import LifecycleCore
import LifecycleDaemon
import LifecycleEngine
import LifecycleStorage
import LifecycleSystemd
import Logging

struct Lifecycled: AsyncParsableCommand {
    /// The thread everything runs on (see main.swift); set before the command starts.
    nonisolated(unsafe) static var loopThread: BusThread!

    static let configuration = CommandConfiguration(
        commandName: "lifecycled",
        abstract: "Track the lifecycle of systemd units: launches, wakes, sleeps, crashes and updates.",
        discussion: """
            Runs as a systemd service (Type=notify). Dispatches go to the journal (see `journalctl -u UNIT`), state \
            to one JSON file per unit in the state directory. SIGHUP reloads the configuration; an invalid one is \
            reported and the previous one kept.
            """,
        version: LifecycleVersion.current
    )

    @Option(name: .long, help: ArgumentHelp("The configuration file (default: /etc/lifecycled/lifecycled.json).", valueName: "file"))
    var config: String?

    @Flag(name: .long, help: "Validate the configuration, list the files read and where each key came from, and exit.")
    var checkConfig = false

    @Option(name: .long, help: ArgumentHelp("The state directory (default: the configuration's state_directory).", valueName: "dir"))
    var stateDirectory: String?

    @Flag(name: .long, help: "Watch the calling user's service manager instead of the system's.")
    var user = false

    @Option(name: .long, help: ArgumentHelp("Connect to this D-Bus address instead (for tests).", valueName: "address"))
    var busAddress: String?

    mutating func validate() throws {
        if user, busAddress != nil { throw ValidationError("--user and --bus-address cannot be combined.") }
    }

    mutating func run() async throws {
        if checkConfig { return try ConfigCheck(path: config).run() }
        let configuration: LifecycleConfiguration
        do {
            configuration = try ConfigLoader(path: config).load()
        } catch {
            throw fail("\(error)")
        }
        let zone: ZoneChoice
        do {
            zone = try ZoneChoice(configuration)
        } catch {
            throw fail("\(config ?? ConfigLoader.defaultPath): time_zone: \(error)")
        }
        let level = Logger.Level(rawValue: configuration.logLevel.rawValue) ?? .info
        LoggingSystem.bootstrap { StderrLogHandler(label: $0, logLevel: level) }
        let logger = Logger(label: "lifecycled")
        logger.info("Local-time data points use \(zone.summary)")
        if let problem = zone.problem { logger.warning("\(problem)") }

        let bus: BusAddress? = busAddress.map(BusAddress.address) ?? (user ? .user : nil)
        let options = DaemonOptions(configPath: config, stateDirectory: stateDirectory, bus: bus)
        let daemon: LifecycleDaemon
        do {
            daemon = try LifecycleDaemon(
                options: options, configuration: configuration, logger: logger, thread: Self.loopThread
            )
        } catch {
            throw fail("\(error)")
        }
        try await daemon.run()
    }

    /// Reports a start-up failure the way systemd's own daemons do: on standard error, and as the unit's status.
    private func fail(_ message: String) -> ExitCode {
        var line = "lifecycled: \(message)\n"
        line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
        let status = ServiceNotification.message([.status("Failed to start: \(message)")], monotonicMicroseconds: 0)
        _ = try? ServiceNotifier().notify(message: status)
        return ExitCode.failure
    }
}
