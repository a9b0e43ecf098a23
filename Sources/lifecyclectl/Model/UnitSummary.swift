// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage

/// One row of `lifecyclectl status`: what a unit's state file says, evaluated at one instant.
///
/// The table and the JSON output are both built from this value, so they can never disagree.
struct UnitSummary: Sendable, Equatable {
    /// The unit's full name.
    var unit: String
    /// Where the last run stands; nil before the first event.
    var runState: RunState?
    /// How the last run failed, when ``runState`` is failed; nil when it is not, or when the state file predates the
    /// record of failures.
    var failure: RunFailure?
    /// True when the unit failed at least as often as the configured crash loop allows within its window.
    var isCrashLooping: Bool
    /// The last lifecycle event recorded for the unit; nil before the first one.
    var lastEvent: LifecycleEvent?
    /// When ``lastEvent`` happened: the last sleep after a sleep, else the last launch or wake.
    var lastEventTime: Milliseconds?
    /// Lifetime launches (`lifecycle_totallaunchcount`): cold starts.
    var launches: Int
    /// Lifetime wakes (`lifecycle_totalwakecount`): every start, launches included (the reference's semantics).
    var wakes: Int
    /// Lifetime sleeps (`lifecycle_totalsleepcount`): clean stops.
    var sleeps: Int
    /// Lifetime crashes: `lifecycle_totalcrashcount`, plus the last run when it failed (the engine counts a crash
    /// only at the next launch, which a unit stopped by its failure may never have).
    var crashes: Int
    /// Seconds awake over the unit's history (`lifecycle_totalsecondsawake`): runs that ended with a sleep, plus the
    /// running one. A failed run adds nothing, as in the reference, which adds time awake only at a sleep.
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
    ///   - crashLoop: when failures make a crash loop.
    init(record: UnitRecord, now: Milliseconds, calendar: LocalCalendar, crashLoop: CrashLoopRule) {
        let state = record.state
        let data = LifecycleEngine(calendar: calendar).currentData(at: now, state: state)
        unit = record.unit
        runState = RunState(record: record)
        failure = runState == .failed ? record.lastFailure : nil
        isCrashLooping = crashLoop.isLooping(record.recentCrashes, now: now)
        lastEvent = state.lastEvent
        switch state.lastEvent {
        case .sleep: lastEventTime = state.lastSleep
        case .launch, .wake: lastEventTime = state.lastWake
        case nil: lastEventTime = nil
        }
        launches = state.totalLaunchCount
        wakes = state.totalWakeCount
        sleeps = state.totalSleepCount
        crashes = record.crashCount
        // The engine's live figure keeps growing until a sleep; a failed run has ended, so its time is not counted.
        totalSecondsAwake = runState == .failed ? state.totalSecondsAwake : data.totalSecondsAwake
        daysSinceLaunch = data.daysSinceLaunch
        version = state.version
        invocationID = record.invocationID
        sequence = record.sequence
    }

    /// What the STATE column shows: `crash-looping` over the run state, which is `running`, `stopped` or `failed`.
    var stateText: String? {
        isCrashLooping ? "crash-looping" : runState?.rawValue
    }

    /// Summaries of `records` at `now`, sorted by unit name (byte order, like the state store).
    static func summaries(
        _ records: [UnitRecord],
        now: Milliseconds,
        timeZone: TimeZoneRules,
        crashLoop: CrashLoopRule = CrashLoopRule()
    ) -> [UnitSummary] {
        let calendar = LocalCalendar(timeZone: timeZone)
        return records.map { UnitSummary(record: $0, now: now, calendar: calendar, crashLoop: crashLoop) }
            .sorted { Array($0.unit.utf8).lexicographicallyPrecedes(Array($1.unit.utf8)) }
    }
}
