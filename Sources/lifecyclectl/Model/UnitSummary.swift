// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage

/// One row of `lifecyclectl status`: what a unit's state file says, evaluated at one instant.
///
/// The table and the JSON output are both built from this value, so they can never disagree.
struct UnitSummary: Sendable, Equatable {
    /// The unit's full name.
    var unit: String
    /// The last lifecycle event recorded for the unit; nil before the first one.
    var lastEvent: LifecycleEvent?
    /// When ``lastEvent`` happened: the last sleep after a sleep, else the last launch or wake.
    var lastEventTime: Milliseconds?
    /// Lifetime launches (`lifecycle_totallaunchcount`): cold starts.
    var launches: Int
    /// Lifetime wakes (`lifecycle_totalwakecount`): every start, launches included.
    var wakes: Int
    /// Lifetime sleeps (`lifecycle_totalsleepcount`): clean stops.
    var sleeps: Int
    /// Lifetime crashes (`lifecycle_totalcrashcount`): runs that ended without a sleep.
    var crashes: Int
    /// Seconds awake over the unit's whole history, including the running foreground period when the last event is
    /// a launch or wake (`lifecycle_totalsecondsawake` of the engine's current data).
    var totalSecondsAwake: Int64
    /// Complete 24-hour periods since the first launch; nil before it, or when the clock is behind it.
    var daysSinceLaunch: Int64?
    /// The version stored at the last launch that knew one (for the default version source, a SHA-256 in hex).
    var version: String?
    /// The systemd InvocationID of the unit's current or last run.
    var invocationID: String?
    /// The number of the unit's last dispatch.
    var sequence: UInt64

    /// Evaluates `record` at `now`.
    ///
    /// - Parameters:
    ///   - record: the unit's state file.
    ///   - now: the instant the figures are computed for.
    ///   - calendar: the local calendar; no field of the summary depends on it today, but the engine's current data
    ///     is always computed in the configured zone.
    init(record: UnitRecord, now: Milliseconds, calendar: LocalCalendar) {
        let state = record.state
        let data = LifecycleEngine(calendar: calendar).currentData(at: now, state: state)
        unit = record.unit
        lastEvent = state.lastEvent
        switch state.lastEvent {
        case .sleep: lastEventTime = state.lastSleep
        case .launch, .wake: lastEventTime = state.lastWake
        case nil: lastEventTime = nil
        }
        launches = state.totalLaunchCount
        wakes = state.totalWakeCount
        sleeps = state.totalSleepCount
        crashes = state.totalCrashCount
        totalSecondsAwake = data.totalSecondsAwake
        daysSinceLaunch = data.daysSinceLaunch
        version = state.version
        invocationID = record.invocationID
        sequence = record.sequence
    }

    /// What the last event says about the unit: `up` after a launch or wake, `sleeping` after a sleep, nil before the
    /// first event. This is lifecycled's record, not systemd's live `ActiveState`.
    var trackedState: String? {
        switch lastEvent {
        case .launch, .wake: "up"
        case .sleep: "sleeping"
        case nil: nil
        }
    }

    /// Summaries of `records` at `now`, sorted by unit name (byte order, like the state store).
    static func summaries(_ records: [UnitRecord], now: Milliseconds, timeZone: TimeZoneRules) -> [UnitSummary] {
        let calendar = LocalCalendar(timeZone: timeZone)
        return records.map { UnitSummary(record: $0, now: now, calendar: calendar) }
            .sorted { Array($0.unit.utf8).lexicographicallyPrecedes(Array($1.unit.utf8)) }
    }
}
