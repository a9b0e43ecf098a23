// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import LifecycleEngine
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
            try JournalReader().follow(matching: DispatchJournal.lifecycledMatches, fields: FollowLine.fields) { entry in
                guard let unit = entry.fields["LIFECYCLE_UNIT"], filter.includesName(unit) else { return true }
                print(json ? FollowLine.json(entry.fields) : FollowLine.text(entry.fields))
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
    static let fields = [
        "LIFECYCLE_UNIT", "LIFECYCLE_EVENT", "LIFECYCLE_TIME", "LIFECYCLE_SEQUENCE", "LIFECYCLE_INVOCATION_ID",
        "LIFECYCLE_RECONCILED", "LIFECYCLE_PAYLOAD", "MESSAGE",
    ]

    /// `2026-03-01T10:00:00.000Z nginx.service: launch #12 (crash detected, 3 crashes in total)`.
    static func text(_ fields: [String: String]) -> String {
        let recovered = fields["LIFECYCLE_RECONCILED"] == "true" ? " (recovered)" : ""
        return "\(fields["LIFECYCLE_TIME"] ?? "-") \(fields["MESSAGE"] ?? "")\(recovered)"
    }

    /// The dispatch as one JSON object: `time`, `unit`, `event`, `sequence`, `invocation_id`, `reconciled`,
    /// `message`, and the whole `payload`.
    static func json(_ fields: [String: String]) -> String {
        var object: [String: JSONValue] = [
            "time": fields["LIFECYCLE_TIME"].map(JSONValue.string) ?? .null,
            "unit": fields["LIFECYCLE_UNIT"].map(JSONValue.string) ?? .null,
            "event": fields["LIFECYCLE_EVENT"].map(JSONValue.string) ?? .null,
            "sequence": fields["LIFECYCLE_SEQUENCE"].flatMap { Int64($0) }.map(JSONValue.int) ?? .null,
            "invocation_id": fields["LIFECYCLE_INVOCATION_ID"].map(JSONValue.string) ?? .null,
            "reconciled": .bool(fields["LIFECYCLE_RECONCILED"] == "true"),
            "message": fields["MESSAGE"].map(JSONValue.string) ?? .null,
        ]
        object["payload"] = fields["LIFECYCLE_PAYLOAD"].flatMap { try? JSONParser.parse($0) } ?? .null
        var writer = JSONWriter()
        writer.value(.object(object))
        return writer.string
    }
}
