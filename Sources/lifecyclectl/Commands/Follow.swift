// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import LifecycleEngine
import LifecycleSchema
import LifecycleSystemd

/// `lifecyclectl follow [PATTERN…]`: lifecycled's dispatches as they happen, one line each, like `journalctl -f`.
struct Follow: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print lifecycled's dispatches as they happen, one line each.",
        discussion: """
            Waits for new dispatches in the journal and prints each: its time, and its message (the unit, the \
            event and its number, and what it counts), "(recovered)" when lifecycled recorded it after the fact. \
            PATTERN is a unit name or a glob, as for status; without one, every unit's dispatches are printed. \
            Stops with Ctrl-C. Reading the journal takes root or membership of the systemd-journal group.
            """
    )

    @Flag(name: .long, help: "Print one JSON object a line instead of text.")
    var json = false

    @Argument(help: ArgumentHelp("Unit names or glob patterns; all units when none is given.", valueName: "pattern"))
    var patterns: [String] = []

    func run() throws {
        let filter = try UnitFilter(arguments: patterns, failedOnly: false)
        do {
            try JournalReader().follow(matching: DispatchMatches.own, fields: FollowLine.fields) { entry in
                guard let dispatch = JournaledDispatch(fields: entry.fields), filter.includesName(dispatch.unit)
                else { return true }
                print(json ? FollowLine.json(dispatch) : FollowLine.text(dispatch))
                fflush(nil)  // one line as each dispatch comes, also into a pipe (nil: every stream)
                return true
            }
        } catch {
            throw reportFailure("Failed to read the journal: \(error)")
        }
    }
}

/// One line of `lifecyclectl follow`.
enum FollowLine {
    static let fields = JournaledDispatch.fields + [DispatchField.payload, DispatchField.message]

    /// `2026-03-01T10:00:00.000Z nginx.service: launch #12 (crash detected, 3 crashes in total)`.
    static func text(_ dispatch: JournaledDispatch) -> String {
        "\(time(dispatch)) \(dispatch.message ?? "")\(dispatch.isReconciled ? " (recovered)" : "")"
    }

    /// The dispatch as one JSON object: `time`, `unit`, `event`, `sequence`, `invocation_id`, `reconciled`,
    /// `message`, and the whole `payload`.
    static func json(_ dispatch: JournaledDispatch) -> String {
        let object: [String: JSONValue] = [
            "time": .string(time(dispatch)),
            "unit": .string(dispatch.unit),
            "event": .string(dispatch.event),
            "sequence": .int(Int64(clamping: dispatch.sequence)),
            "invocation_id": dispatch.invocationID.map(JSONValue.string) ?? .null,
            "reconciled": .bool(dispatch.isReconciled),
            "message": dispatch.message.map(JSONValue.string) ?? .null,
            "payload": dispatch.payload ?? .null,
        ]
        var writer = JSONWriter()
        writer.value(.object(object))
        return writer.string
    }

    private static func time(_ dispatch: JournaledDispatch) -> String {
        LifecycleDateFormat.iso8601Milliseconds.string(dispatch.time)
    }
}
