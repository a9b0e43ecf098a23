// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

@testable import lifecyclectl

/// `lifecyclectl status --directory`: one row per machine and unit from collected dispatches.
struct FleetRowTests {
    static let idA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    static let idB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

    private func dispatch(
        _ host: String, _ machineID: String, _ unit: String, _ sequence: Int, _ event: String,
        payload: String = #"{"lifecycle_totallaunchcount":1,"lifecycle_totalcrashcount":0}"#,
        _ extra: [String: String] = [:]
    ) -> [String: String] {
        [
            "_HOSTNAME": host, "_MACHINE_ID": machineID, "LIFECYCLE_UNIT": unit, "LIFECYCLE_EVENT": event,
            "LIFECYCLE_SEQUENCE": String(sequence), "LIFECYCLE_TIME": "2026-03-02T10:00:0\(sequence).000Z",
            "LIFECYCLE_PAYLOAD": payload,
        ].merging(extra) { _, new in new }
    }

    @Test("one row per machine and unit, from the newest dispatch by sequence, sorted by machine then unit")
    func newestPerMachineAndUnit() {
        let rows = FleetRow.rows(from: [
            dispatch("web-2", Self.idB, "app.service", 1, "launch"),
            dispatch("web-1", Self.idA, "app.service", 2, "sleep", ["LIFECYCLE_VERSION": "1.0"]),
            dispatch("web-1", Self.idA, "app.service", 1, "launch"),  // older, arrived later: not the newest
            dispatch("web-1", Self.idA, "db.service", 1, "launch"),
            dispatch(
                "web-2", Self.idB, "app.service", 2, "crash",
                payload: #"{"lifecycle_totallaunchcount":4,"lifecycle_totalcrashcount":2}"#,
                ["LIFECYCLE_UNIT_RESULT": "signal", "LIFECYCLE_EXIT_STATUS": "9"]
            ),
        ])
        #expect(rows.map { "\($0.machine) \($0.unit) \($0.event)" } == [
            "web-1 app.service sleep", "web-1 db.service launch", "web-2 app.service crash",
        ])
        #expect(rows.map(\.state) == ["stopped", "running", "failed"])
        #expect(rows[0].version == "1.0")
        #expect(rows[0].eventAt == TimestampParser.milliseconds(from: "2026-03-02T10:00:02.000Z"))
        #expect(rows[2].result == "signal, status=9")
        #expect(rows[2].count("lifecycle_totallaunchcount") == 4)
        #expect(rows[2].count("lifecycle_totalcrashcount") == 2)
    }

    @Test("machines with one hostname stay apart by machine id")
    func repeatedHostnames() {
        let rows = FleetRow.rows(from: [
            dispatch("localhost", Self.idA, "app.service", 1, "launch"),
            dispatch("localhost", Self.idB, "app.service", 1, "sleep"),
        ])
        #expect(rows.map(\.machineID) == [Self.idA, Self.idB])
    }

    @Test("lifecycled's own entries and custom events: not rows, and no state")
    func nonDispatches() {
        let rows = FleetRow.rows(from: [
            ["_HOSTNAME": "web-1", "_MACHINE_ID": Self.idA, "MESSAGE": "Tracking: Watching 3 loaded units"],
            dispatch("web-1", Self.idA, "app.service", 1, "deploy", payload: "not json"),
        ])
        #expect(rows.count == 1)
        #expect(rows[0].state == nil)
        #expect(rows[0].payload == nil)
        #expect(rows[0].count("lifecycle_totallaunchcount") == nil)
    }

    @Test("--json: the machine, its id and the payload as an object")
    func json() {
        let rows = FleetRow.rows(from: [dispatch("web-1", Self.idA, "app.service", 1, "launch")])
        let expected =
            #"{"units":[{"last_event":"launch","last_event_at":"2026-03-02T10:00:01.000Z","machine":"web-1","#
            + #""machine_id":"\#(Self.idA)","payload":{"lifecycle_totalcrashcount":0,"#
            + #""lifecycle_totallaunchcount":1},"result":null,"sequence":1,"state":"running","unit":"app.service","#
            + #""version":null}]}"# + "\n"
        #expect(FleetJSON.render(rows) == expected)
    }

    @Test("the table: a MACHINE column, the payload's totals, and a footer counting machines")
    func table() {
        let rows = FleetRow.rows(from: [
            dispatch("web-1", Self.idA, "app.service", 1, "launch"),
            dispatch("web-2", Self.idB, "app.service", 1, "launch"),
        ])
        let now = TimestampParser.milliseconds(from: "2026-03-02T10:05:01.000Z")!
        let lines = FleetTable.render(rows, now: now, colour: false, legend: true, emptyMessage: "")
            .split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "MACHINE UNIT        STATE   LAST EVENT WHEN      LAUNCHES CRASHES RESULT VERSION")
        #expect(lines[1] == "web-1   app.service running launch     5 min ago        1       0 -      -")
        #expect(lines.contains("2 units on 2 machines listed."))
    }
}
