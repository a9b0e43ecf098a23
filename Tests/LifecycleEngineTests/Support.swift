// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import Testing

let second: Milliseconds = 1_000
let minute: Milliseconds = 60 * second
let hour: Milliseconds = 60 * minute
let day: Milliseconds = 24 * hour

/// The instant of an RFC 3339 timestamp, for readable tests.
func at(_ text: String) -> Milliseconds {
    guard let time = TimestampParser.milliseconds(from: text) else {
        preconditionFailure("bad test timestamp \(text)")
    }
    return time
}

/// A zone of the system's tz database (present on every machine that runs these tests, as on CI). The engine takes
/// bytes, so the test reads the file.
func zone(_ identifier: String) -> TimeZoneRules {
    let path = "/usr/share/zoneinfo/" + identifier
    guard let data = FileManager.default.contents(atPath: path) else { preconditionFailure("cannot read \(path)") }
    do {
        return try TimeZoneRules(tzif: [UInt8](data), name: identifier)
    } catch {
        preconditionFailure("\(path): \(error)")
    }
}

func makeEngine(
    _ zoneIdentifier: String = "UTC",
    autotracking: Bool = false,
    sessionTimeout: Int = LifecycleSettings.defaultSessionTimeoutMinutes,
    tracked: Set<LifecycleEvent> = Set(LifecycleEvent.allCases),
    dataTarget: DataTarget = .lifecycleEventsOnly
) -> LifecycleEngine {
    let settings = LifecycleSettings(
        autotrackingEnabled: autotracking,
        sessionTimeoutMinutes: sessionTimeout,
        trackedLifecycleEvents: tracked,
        dataTarget: dataTarget
    )
    return LifecycleEngine(settings: settings, calendar: LocalCalendar(timeZone: zone(zoneIdentifier)))
}

/// A unit driven by manual events, the way the reference's service tests drive `LifecycleService`.
struct Subject {
    var engine: LifecycleEngine
    var state = UnitState()

    init(_ engine: LifecycleEngine = makeEngine()) { self.engine = engine }

    /// Starts a new process lifetime (a new run of the unit).
    mutating func newProcess() { state.hasLaunchedInRun = false }

    /// Registers an event that must be accepted and dispatched; returns its payload.
    @discardableResult
    mutating func track(
        _ event: LifecycleEvent,
        _ time: Milliseconds,
        version: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> [String: JSONValue] {
        switch engine.track(event, at: time, state: &state, version: version) {
        case .success(let dispatch?):
            return dispatch.payload
        case .success(nil):
            Issue.record("\(event) was not dispatched", sourceLocation: sourceLocation)
        case .failure(let error):
            Issue.record("\(event) was refused: \(error)", sourceLocation: sourceLocation)
        }
        return [:]
    }

    func custom(_ time: Milliseconds) -> [String: JSONValue] {
        engine.trackCustom("custom", at: time, state: state).payload
    }
}

func iso(_ time: Milliseconds) -> JSONValue { .string(LifecycleDateFormat.iso8601.string(time)) }
func mmddyyyy(_ time: Milliseconds) -> JSONValue { .string(LifecycleDateFormat.monthDayYear.string(time)) }

/// Compares two payloads key for key and names every difference.
func expectPayload(
    _ actual: [String: JSONValue],
    _ expected: [String: JSONValue],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    for key in Set(actual.keys).union(expected.keys).sorted() where actual[key] != expected[key] {
        Issue.record(
            "\(key): expected \(expected[key].map { "\($0)" } ?? "absent"), got \(actual[key].map { "\($0)" } ?? "absent")",
            sourceLocation: sourceLocation
        )
    }
}
