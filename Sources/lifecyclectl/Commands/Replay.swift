// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Foundation
import LifecycleEngine
import LifecycleStorage

/// `lifecyclectl replay`: the engine over a JSON-lines history, with no daemon and in-memory state.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the lifecycle engine over a JSON-lines history and print one line per dispatch.",
        discussion: """
            Each input line is one JSON object:
              {"unit": "a.service", "event": "launch", "time": "2026-03-01T10:00:00.000Z",
               "version": "1.0", "data": {...}, "new_process": true}
            where "event" is launch, wake, sleep or any custom event name, and "new_process" starts a new run of the \
            unit before the event; or an observation for the autotracker:
              {"unit": "a.service", "observe": "started", "time": "...", "version": "1.0"}
            with "observe" one of started, stopped, failed, frozen or thawed. "time" is an RFC 3339 timestamp with a \
            zone, or milliseconds since the epoch.

            Each dispatch is printed as {"unit", "event", "time", "data"}; a refused event as {"unit", "event", \
            "error"} with error invalidEventOrder or manualTrackNotAllowed. Without --config the reference defaults \
            apply (autotracking on, so manual launch/wake/sleep are refused: pass a configuration with \
            "autotracking_enabled": false to replay manual events).

            A malformed line stops the replay with an error naming the file and line; exit status 1.
            """
    )

    @Option(name: .long, help: ArgumentHelp("A lifecycled configuration file: its settings apply to every unit.", valueName: "file"))
    var config: String?

    @OptionGroup var timeZone: TimeZoneOption

    @Argument(help: ArgumentHelp("History files to replay, in order (default: standard input).", valueName: "file"))
    var files: [String] = []

    func run() throws {
        var configuration = LifecycleConfiguration()
        if let config {
            do {
                configuration = try ConfigLoader(path: config).load()
            } catch {
                throw reportFailure(error.description)
            }
        }
        let zone: TimeZoneRules
        do {
            zone = try configuration.localTimeZone(overriding: try timeZone.zone())
        } catch let error as TimeZoneError {
            throw reportFailure("\(config ?? ConfigLoader.defaultPath): time_zone: \(error)")
        }
        var session = ReplaySession(calendar: LocalCalendar(timeZone: zone)) { configuration.settings(for: $0) }
        var output = JSONWriter(reservingCapacity: StandardOutput.flushThreshold * 2)
        for file in files.isEmpty ? ["-"] : files {
            try replay(file, &session, &output)
        }
        try flush(&output)
    }

    private func replay(_ file: String, _ session: inout ReplaySession, _ output: inout JSONWriter) throws {
        let fd = file == "-" ? 0 : open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw reportFailure("Failed to open \(file): \(String(cString: strerror(errno)))")
        }
        defer { if fd != 0 { close(fd) } }
        let name = file == "-" ? "<stdin>" : file
        var reader = LineReader(fd: fd)
        var number = 0
        while true {
            let line: ArraySlice<UInt8>
            do {
                guard let next = try reader.nextLine() else { return }
                line = next
            } catch {
                try flush(&output)
                throw reportFailure("Failed to read \(name): \(error.reason)")
            }
            number += 1
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            do {
                try session.process(line: line, into: &output)
            } catch {
                try flush(&output)
                throw reportFailure("\(name):\(number): \(error)")
            }
            if output.bytes.count >= StandardOutput.flushThreshold { try flush(&output) }
        }
    }

    private func flush(_ output: inout JSONWriter) throws {
        do {
            try StandardOutput.write(output.bytes)
        } catch {
            throw reportFailure(error.description)
        }
        output.removeAll()
    }

}
