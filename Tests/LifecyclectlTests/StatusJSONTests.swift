// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

@testable import lifecyclectl

/// `lifecyclectl status --json`, an interface: pinned byte for byte.
struct StatusJSONTests {
    @Test("the document is pinned: sorted keys, every key present, null when there is no value")
    func pinned() {
        let expected =
            #"{"daemon":{"pid":412,"running":true},"units":["#
            + #"{"counts":{"crashes":0,"launches":4,"sleeps":8,"wakes":9},"crash_looping":false,"#
            + #""days_since_launch":60,"invocation_id":"fedcba9876543210fedcba9876543210","last_event":"launch","#
            + #""last_event_time":"2026-03-02T11:57:00.000Z","result":null,"sequence":21,"state":"running","#
            + #""status":null,"total_seconds_awake":90180,"unit":"cron.service","version":"\#(Fixtures.digest)"},"#
            + #"{"counts":{"crashes":0,"launches":0,"sleeps":0,"wakes":0},"crash_looping":false,"#
            + #""days_since_launch":null,"invocation_id":null,"last_event":null,"last_event_time":null,"#
            + #""result":null,"sequence":0,"state":null,"status":null,"#
            + #""total_seconds_awake":0,"unit":"fresh.service","version":null},"#
            + #"{"counts":{"crashes":1,"launches":2,"sleeps":2,"wakes":3},"crash_looping":false,"#
            + #""days_since_launch":1,"invocation_id":"0123456789abcdef0123456789abcdef","last_event":"sleep","#
            + #""last_event_time":"2026-03-02T11:00:00.000Z","result":null,"sequence":7,"state":"stopped","#
            + #""status":null,"total_seconds_awake":7200,"unit":"nginx.service","version":"1.25.3"}]}"#
            + "\n"
        let rendered = StatusJSON.render(
            Fixtures.all,
            now: Fixtures.now,
            timeZone: Fixtures.utc,
            daemon: .running(pid: 412)
        )
        #expect(rendered == expected)
    }

    @Test("the daemon object keeps its keys when the daemon is down or cannot be seen")
    func daemon() {
        func render(_ daemon: DaemonStatus) -> String {
            StatusJSON.render([], now: Fixtures.now, timeZone: Fixtures.utc, daemon: daemon)
        }
        #expect(render(.notRunning) == #"{"daemon":{"pid":null,"running":false},"units":[]}"# + "\n")
        #expect(render(.unknown(reason: "hidden")) == #"{"daemon":{"pid":null,"running":null},"units":[]}"# + "\n")
    }

    @Test("the document parses back as JSON, with the full version where the table shortens it")
    func parsesBack() throws {
        let rendered = StatusJSON.render(
            [Fixtures.cron],
            now: Fixtures.now,
            timeZone: Fixtures.utc,
            daemon: .notRunning
        )
        let document = try JSONParser.parse(Array(rendered.utf8))
        guard case .array(let units)? = document.objectValue?["units"] else {
            Issue.record("no units array in \(rendered)")
            return
        }
        #expect(units.first?.objectValue?["version"] == .string(Fixtures.digest))
        #expect(
            units.first?.objectValue?.keys.sorted() == [
                "counts", "crash_looping", "days_since_launch", "invocation_id", "last_event", "last_event_time",
                "result", "sequence", "state", "status", "total_seconds_awake", "unit", "version",
            ]
        )
    }

    @Test("a failed unit: state, systemd's Result, the status with the signal's name, and whether it loops")
    func failed() throws {
        let rendered = StatusJSON.render(
            [Fixtures.bad, Fixtures.killed], now: Fixtures.now, timeZone: Fixtures.utc, daemon: .notRunning
        )
        guard case .array(let units)? = try JSONParser.parse(Array(rendered.utf8)).objectValue?["units"] else {
            Issue.record("no units array in \(rendered)")
            return
        }
        let spinner = units[0].objectValue
        let bad = units[1].objectValue
        #expect(bad?["state"] == .string("failed"))
        #expect(bad?["result"] == .string("exit-code"))
        #expect(bad?["status"] == .string("7"))
        #expect(bad?["crash_looping"] == .bool(false))
        #expect(bad?["total_seconds_awake"] == .int(0))
        #expect(spinner?["state"] == .string("failed"))
        #expect(spinner?["result"] == .string("signal"))
        #expect(spinner?["status"] == .string("9/KILL"))
        #expect(spinner?["crash_looping"] == .bool(true))
    }
}
