// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

/// What a unit's state file holds: the engine's state plus the bookkeeping of the daemon around it.
///
/// This is the file's own type, kept apart from ``UnitState`` so that the file format can be migrated without
/// touching the engine. The coded form (keys sorted when written):
///
/// ```json
/// {
///   "invocation_id" : "0123456789abcdef0123456789abcdef",
///   "schema_version" : 1,
///   "sequence" : 12,
///   "state" : { "schema_version" : 1, "count_launch" : 3, ... },
///   "unit" : "nginx.service"
/// }
/// ```
public struct UnitRecord: Sendable, Equatable, Codable {
    /// The version of the record's coded form written by this build. Files with a larger version are refused.
    public static let currentSchemaVersion = 1

    /// The unit's full name, e.g. `nginx.service`; it also names the file.
    public var unit: String
    /// The engine's persisted state of the unit.
    public var state: UnitState
    /// The systemd `InvocationID` of the unit's current or last run, nil before the first run was seen.
    public var invocationID: String?
    /// True once the end of the run ``invocationID`` was recorded (a sleep, or a crash notice, which leaves the
    /// last event at launch or wake until the next launch counts the crash), so it is never recorded twice.
    public var runEnded: Bool
    /// The journal fields of the unit's dispatches that are not known to be in the journal yet, oldest first: each is
    /// saved before it is sent, and if lifecycled dies before the journal has it, it is sent again at the next start
    /// (and only then). Usually just the last dispatch; longer while the journal refuses writes.
    public var pendingDispatches: [JournalFields]
    /// The number of the unit's last dispatch. Saved before the dispatch is sent, so after a crash a re-sent dispatch
    /// carries the same number and can be recognised as a duplicate.
    public var sequence: UInt64
    /// How the last failed run ended (from its crash notice); nil before the first failure, or in files written
    /// before this field existed.
    public var lastFailure: RunFailure?
    /// When the unit's most recent runs failed, oldest first, at most ``recentCrashLimit`` of them: what tells a
    /// crash loop from a single crash without reading the journal.
    public var recentCrashes: [Milliseconds]
    /// Failed runs by systemd's Result (`exit-code`, `signal`, …), counted where crash notices are made (see
    /// ``noteFailure(_:)``), so that each count only ever grows; crashes the engine detected without a notice (a
    /// manual launch after a launch, or files from before this field) are not in it.
    public var crashResults: [String: Int]
    /// Version changes seen (launches the engine marked as an update), counted where they are recorded.
    public var updateCount: Int
    /// What the unit's ended runs cost, as far as each knew (absent from files from before it).
    public var runTotals: RunTotals
    /// What each timer that starts the unit did, by timer name (absent from files from before it, and while no timer
    /// of the unit elapsed).
    public var timers: [String: TimerTotals]
    /// Set on what the archive's retention leaves of a record it drops (a tombstone): the dropped record's last
    /// activity. A tombstone keeps only the unit's sequence, so that a unit seen again numbers its dispatches after
    /// every one it made, and no (unit, sequence) pair is dispatched twice; it goes once the journal holds nothing
    /// that old (docs/configuration.md, `archive_retention_days`).
    public var retired: Milliseconds?

    /// How many crash times a record keeps; a crash-loop threshold above it could never be reached.
    public static let recentCrashLimit = 20

    /// Creates a record; a unit that was never seen starts with an empty state and sequence 0.
    public init(
        unit: String,
        state: UnitState = UnitState(),
        invocationID: String? = nil,
        runEnded: Bool = false,
        pendingDispatches: [JournalFields] = [],
        sequence: UInt64 = 0,
        lastFailure: RunFailure? = nil,
        recentCrashes: [Milliseconds] = [],
        crashResults: [String: Int] = [:],
        updateCount: Int = 0,
        runTotals: RunTotals = RunTotals(),
        timers: [String: TimerTotals] = [:],
        retired: Milliseconds? = nil
    ) {
        self.unit = unit
        self.state = state
        self.invocationID = invocationID
        self.runEnded = runEnded
        self.pendingDispatches = pendingDispatches
        self.sequence = sequence
        self.lastFailure = lastFailure
        self.recentCrashes = recentCrashes
        self.crashResults = crashResults
        self.updateCount = updateCount
        self.runTotals = runTotals
        self.timers = timers
        self.retired = retired
    }

    /// The tombstone the archive keeps of this record once its retention drops it (``retired``).
    public var tombstone: UnitRecord {
        UnitRecord(unit: unit, sequence: sequence, retired: retired ?? lastActivity ?? 0)
    }

    /// When the unit was last seen doing anything: its last launch, wake, sleep or failure; nil when never.
    public var lastActivity: Milliseconds? {
        [state.lastLaunch, state.lastWake, state.lastSleep, lastFailure?.time].compactMap { $0 }.max()
    }

    /// Notes a crash notice: it is the last failure, and its time joins the recent crashes (the oldest beyond
    /// ``recentCrashLimit`` are forgotten).
    public mutating func noteCrash(_ notice: Dispatch) {
        noteFailure(RunFailure(crashNotice: notice) ?? RunFailure(result: "unknown", time: notice.time))
    }

    /// Notes a failed run: the last failure, and its time among the recent crashes.
    public mutating func noteFailure(_ failure: RunFailure) {
        lastFailure = failure
        crashResults[failure.result, default: 0] += 1
        recentCrashes.append(failure.time)
        if recentCrashes.count > Self.recentCrashLimit {
            recentCrashes.removeFirst(recentCrashes.count - Self.recentCrashLimit)
        }
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version"
        case unit
        case state
        case invocationID = "invocation_id"
        case runEnded = "run_ended"
        case pendingDispatches = "pending_dispatches"
        /// Written by earlier builds: the one pending dispatch.
        case lastDispatch = "last_dispatch"
        case sequence
        case lastFailure = "last_failure"
        case recentCrashes = "recent_crashes"
        case crashResults = "crash_results"
        case updateCount = "update_count"
        case runTotals = "run_totals"
        case timers
        case retired
    }

    /// Decodes a record whose `schema_version` the caller has already checked to be at most
    /// ``currentSchemaVersion`` (older versions would be migrated here).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _ = try container.decode(Int.self, forKey: .schemaVersion)
        unit = try container.decode(String.self, forKey: .unit)
        state = try container.decode(UnitState.self, forKey: .state)
        invocationID = try container.decodeIfPresent(String.self, forKey: .invocationID)
        runEnded = try container.decodeIfPresent(Bool.self, forKey: .runEnded) ?? false
        pendingDispatches =
            try container.decodeIfPresent([JournalFields].self, forKey: .pendingDispatches)
            ?? container.decodeIfPresent(JournalFields.self, forKey: .lastDispatch).map { [$0] } ?? []
        sequence = try container.decode(UInt64.self, forKey: .sequence)
        // Both absent from files written before crashes were kept in the record.
        lastFailure = try container.decodeIfPresent(RunFailure.self, forKey: .lastFailure)
        recentCrashes = try container.decodeIfPresent([Milliseconds].self, forKey: .recentCrashes) ?? []
        crashResults = try container.decodeIfPresent([String: Int].self, forKey: .crashResults) ?? [:]
        // Files from before the count: a recorded update time means at least one update was seen.
        updateCount = try container.decodeIfPresent(Int.self, forKey: .updateCount) ?? (state.update == nil ? 0 : 1)
        runTotals = try container.decodeIfPresent(RunTotals.self, forKey: .runTotals) ?? RunTotals()
        timers = try container.decodeIfPresent([String: TimerTotals].self, forKey: .timers) ?? [:]
        retired = try container.decodeIfPresent(Milliseconds.self, forKey: .retired)
    }

    /// Encodes the record in the current schema version; a record is always written in the newest form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.currentSchemaVersion, forKey: .schemaVersion)
        try container.encode(unit, forKey: .unit)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(invocationID, forKey: .invocationID)
        if runEnded { try container.encode(runEnded, forKey: .runEnded) }
        if !pendingDispatches.isEmpty { try container.encode(pendingDispatches, forKey: .pendingDispatches) }
        try container.encode(sequence, forKey: .sequence)
        try container.encodeIfPresent(lastFailure, forKey: .lastFailure)
        if !recentCrashes.isEmpty { try container.encode(recentCrashes, forKey: .recentCrashes) }
        if !crashResults.isEmpty { try container.encode(crashResults, forKey: .crashResults) }
        if updateCount > 0 { try container.encode(updateCount, forKey: .updateCount) }
        if !runTotals.isEmpty { try container.encode(runTotals, forKey: .runTotals) }
        if !timers.isEmpty { try container.encode(timers, forKey: .timers) }
        try container.encodeIfPresent(retired, forKey: .retired)
    }
}
