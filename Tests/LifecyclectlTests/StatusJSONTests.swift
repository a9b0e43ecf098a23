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
            + #"{"counts":{"crashes":0,"launches":4,"sleeps":8,"wakes":9},"days_since_launch":60,"#
            + #""invocation_id":"fedcba9876543210fedcba9876543210","last_event":"launch","#
            + #""last_event_time":"2026-03-02T11:57:00.000Z","sequence":21,"total_seconds_awake":90180,"#
            + #""unit":"cron.service","version":"\#(Fixtures.digest)"},"#
            + #"{"counts":{"crashes":0,"launches":0,"sleeps":0,"wakes":0},"days_since_launch":null,"#
            + #""invocation_id":null,"last_event":null,"last_event_time":null,"sequence":0,"#
            + #""total_seconds_awake":0,"unit":"fresh.service","version":null},"#
            + #"{"counts":{"crashes":1,"launches":2,"sleeps":2,"wakes":3},"days_since_launch":1,"#
            + #""invocation_id":"0123456789abcdef0123456789abcdef","last_event":"sleep","#
            + #""last_event_time":"2026-03-02T11:00:00.000Z","sequence":7,"total_seconds_awake":7200,"#
            + #""unit":"nginx.service","version":"1.25.3"}]}"#
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
                "counts", "days_since_launch", "invocation_id", "last_event", "last_event_time", "sequence",
                "total_seconds_awake", "unit", "version",
            ]
        )
    }
}
