// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import Testing

struct UnitStateTests {
    @Test("state round-trips through JSON under the reference's storage names")
    func roundTrip() throws {
        var unit = Subject()
        unit.track(.launch, at("2026-03-03T10:00:00Z"), version: "1.2")
        unit.track(.sleep, at("2026-03-03T11:00:00Z"))
        let encoded = try JSONEncoder().encode(unit.state)
        let object = try JSONParser.parse(encoded).objectValue ?? [:]
        #expect(object["schema_version"] == .int(1))
        #expect(object["app_version"] == .string("1.2"))
        #expect(object["count_total_sleep"] == .int(1))
        #expect(object["last_event"] == .string("sleep"))
        #expect(object["prior_seconds_awake"] == .int(3_600))
        #expect(try JSONDecoder().decode(UnitState.self, from: encoded) == unit.state)
    }

    @Test("missing counters read as 0, like the reference's storage")
    func lenientCounters() throws {
        let state = try JSONDecoder().decode(UnitState.self, from: Data(#"{"schema_version": 1, "last_event": "wake"}"#.utf8))
        #expect(state.launchCount == 0)
        #expect(state.totalSecondsAwake == 0)
        #expect(state.lastEvent == .wake)
    }
}
