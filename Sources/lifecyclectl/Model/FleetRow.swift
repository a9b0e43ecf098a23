// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// One unit on one machine in `lifecyclectl status --directory`: what the unit's newest dispatch in the collected
/// journal says about it.
struct FleetRow: Sendable, Equatable {
    /// The sender's hostname (`_HOSTNAME`, which journald adds and systemd-journal-remote keeps); `-` when absent.
    var machine: String
    /// The sender's `_MACHINE_ID`, which tells machines apart when hostnames repeat.
    var machineID: String
    var unit: String
    /// The newest dispatch's `LIFECYCLE_EVENT`: launch, wake, sleep, crash, or a custom event's name.
    var event: String
    /// When that event happened (`LIFECYCLE_TIME`); nil when the field is missing or unreadable.
    var eventAt: Milliseconds?
    var sequence: UInt64?
    var version: String?
    /// systemd's Result of a crash, with the exit status or signal (`signal, status=9`); nil for other events.
    var result: String?
    /// The dispatch's payload (`LIFECYCLE_PAYLOAD`), parsed; nil when it is missing or not JSON.
    var payload: JSONValue?

    /// What the newest event says about the unit: a launch or wake leaves it running, a sleep stopped, a crash
    /// failed; a custom event says nothing about it.
    var state: String? {
        switch event {
        case "launch", "wake": "running"
        case "sleep": "stopped"
        case "crash": "failed"
        default: nil
        }
    }

    /// An integer data point of the payload, such as `lifecycle_totallaunchcount`.
    func count(_ key: String) -> Int64? {
        guard case .object(let members) = payload, case .int(let value) = members[key] else { return nil }
        return value
    }

    /// The rows that `dispatches` (one dictionary of journal fields per dispatch, oldest first) make: one per machine
    /// and unit, from its newest dispatch by `LIFECYCLE_SEQUENCE` (a later entry wins a tie, so a re-sent dispatch
    /// counts once), sorted by machine, then unit. Entries without `LIFECYCLE_UNIT` or `LIFECYCLE_EVENT` (lifecycled's
    /// own "Tracking" entries) are not dispatches and are left out.
    static func rows(from dispatches: [[String: String]]) -> [FleetRow] {
        var newest: [String: FleetRow] = [:]
        for fields in dispatches {
            guard let row = FleetRow(fields: fields) else { continue }
            let key = row.machineID + "\u{0}" + row.unit
            if let kept = newest[key], (kept.sequence ?? 0) > (row.sequence ?? 0) { continue }
            newest[key] = row
        }
        return newest.values.sorted { ($0.machine, $0.machineID, $0.unit) < ($1.machine, $1.machineID, $1.unit) }
    }

    /// The row of one dispatch; nil when it is not one.
    init?(fields: [String: String]) {
        guard let unit = fields["LIFECYCLE_UNIT"], let event = fields["LIFECYCLE_EVENT"] else { return nil }
        self.machine = fields["_HOSTNAME"] ?? "-"
        self.machineID = fields["_MACHINE_ID"] ?? ""
        self.unit = unit
        self.event = event
        self.eventAt = fields["LIFECYCLE_TIME"].flatMap(TimestampParser.milliseconds(from:))
        self.sequence = fields["LIFECYCLE_SEQUENCE"].flatMap { UInt64($0) }
        self.version = fields["LIFECYCLE_VERSION"]
        self.result = fields["LIFECYCLE_UNIT_RESULT"].map { result in
            fields["LIFECYCLE_EXIT_STATUS"].map { "\(result), status=\($0)" } ?? result
        }
        self.payload = fields["LIFECYCLE_PAYLOAD"].flatMap { try? JSONParser.parse($0) }
    }
}
