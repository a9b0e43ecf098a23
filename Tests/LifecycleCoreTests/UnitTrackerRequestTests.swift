// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

struct UnitTrackerRequestTests {
    /// `cron-*` units report their own lifecycle (autotracking off); `web*` units are autotracked.
    func tracker() throws -> UnitTracker {
        let configuration = LifecycleConfiguration(watch: [
            WatchRule(pattern: try UnitPattern("cron-*"), autotrackingEnabled: false, dataTarget: .allEvents),
            WatchRule(pattern: try UnitPattern("web*.service")),
        ])
        return UnitTracker(configuration: configuration, timeZone: TimeZoneRules.utc, records: [])
    }

    func dispatches(_ result: Result<[UnitTracker.Effect], EventRequestError>) -> [(String, UInt64)] {
        guard case .success(let effects) = result else { return [] }
        return effects.compactMap { if case .dispatch(_, let d, _, _, let s, _) = $0 { (d.name, s) } else { nil } }
    }

    @Test("manual events on a unit without autotracking are recorded, numbered and carry the caller's data")
    func manualEvents() throws {
        var tracker = try tracker()
        let launch = tracker.manual(.launch, unit: "cron-backup", data: ["run": .string("nightly")], now: 1_000)
        guard case .success(let effects) = launch, case .dispatch(_, let dispatch, .launch, nil, 1, _) = effects.last else {
            Issue.record("launch not dispatched: \(launch)")
            return
        }
        #expect(dispatch.payload["run"] == .string("nightly"))
        #expect(dispatch.payload["autotracked"] == nil)
        #expect(dispatches(tracker.manual(.sleep, unit: "cron-backup", data: [:], now: 61_000)).map(\.1) == [2])
        #expect(tracker.records["cron-backup"]?.state.totalSecondsAwake == 60)
    }

    @Test("a manual launch begins a new run, so a launch after an unfinished run counts a crash")
    func launchIsNewRun() throws {
        var tracker = try tracker()
        _ = tracker.manual(.launch, unit: "cron-backup", data: [:], now: 1_000)
        _ = tracker.manual(.launch, unit: "cron-backup", data: [:], now: 2_000)
        #expect(tracker.records["cron-backup"]?.state.totalCrashCount == 1)
    }

    @Test("refusals change nothing and name the reason")
    func refusals() throws {
        var tracker = try tracker()
        #expect(tracker.manual(.launch, unit: "web.service", data: [:], now: 0) == .failure(.refused(.manualTrackNotAllowed)))
        #expect(tracker.manual(.wake, unit: "cron-backup", data: [:], now: 0) == .failure(.refused(.invalidEventOrder)))
        #expect(tracker.manual(.launch, unit: "db.service", data: [:], now: 0) == .failure(.unknownUnit("db.service")))
        #expect(tracker.records.isEmpty)
    }

    @Test("events for a name of systemd's 255 bytes are recorded; a longer name is an invalid argument")
    func longestName() throws {
        var tracker = try tracker()
        let longest = "cron-" + String(repeating: "x", count: 242) + ".service"
        #expect(longest.utf8.count == 255)
        #expect(dispatches(tracker.manual(.launch, unit: longest, data: [:], now: 1_000)).map(\.1) == [1])
        #expect(dispatches(tracker.custom("deploy", unit: longest, data: [:], now: 2_000)).map(\.1) == [2])
        #expect(tracker.records[longest]?.state.launchCount == 1)
        let longer = "cron-" + String(repeating: "x", count: 243) + ".service"
        guard case .failure(.invalidArgument(let reason)) = tracker.manual(.launch, unit: longer, data: [:], now: 0) else {
            Issue.record("accepted")
            return
        }
        #expect(reason.hasSuffix("the name is longer than 255 bytes, systemd's limit for unit names"))
        #expect(UnitTracker.invalidUnitNameReason(longest) == nil)
    }

    @Test("malformed requests are invalid arguments", arguments: [
        ("../etc/passwd", "deploy", 1),
        ("cron-backup", "", 1),
        ("cron-backup", "has space", 1),
        ("cron-backup", String(repeating: "x", count: 65), 1),
        ("cron-backup", "deploy", 65),
    ])
    func invalid(unit: String, event: String, keys: Int) throws {
        var tracker = try tracker()
        let data = Dictionary(uniqueKeysWithValues: (0..<keys).map { ("k\($0)", JSONValue.int(Int64($0))) })
        guard case .failure(.invalidArgument(let reason)) = tracker.custom(event, unit: unit, data: data, now: 0) else {
            Issue.record("accepted")
            return
        }
        #expect(!reason.isEmpty)
        #expect(tracker.records.isEmpty)
    }

    @Test("a custom event carries lifecycle data under allEvents and is numbered like every dispatch")
    func customEvent() throws {
        var tracker = try tracker()
        _ = tracker.manual(.launch, unit: "cron-backup", data: [:], now: 1_000)
        let result = tracker.custom("deploy", unit: "cron-backup", data: ["to": .string("prod")], now: 31_000)
        guard case .success(let effects) = result, case .dispatch(_, let dispatch, .custom, _, 2, _) = effects.last else {
            Issue.record("custom event not dispatched: \(result)")
            return
        }
        #expect(dispatch.payload["to"] == .string("prod"))
        #expect(dispatch.payload["lifecycle_secondsawake"] == .int(30))
        #expect(dispatch.payload["lifecycle_type"] == nil)
    }
}
