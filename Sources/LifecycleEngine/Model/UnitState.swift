// SPDX-License-Identifier: Apache-2.0

/// Everything the engine remembers about one unit: the reference module's persisted storage, plus whether the
/// current run has launched (the reference's in-memory `hasLaunched`, where one run of a unit is one process lifetime).
///
/// Coding keys are the reference's storage names, so a state file reads like the reference's data store.
public struct UnitState: Codable, Sendable, Equatable {
    /// The schema of this value; bumped on any incompatible change of the coded form.
    public static let currentSchemaVersion = 1

    public var schemaVersion: Int = UnitState.currentSchemaVersion
    /// `app_version`: the version seen at the last launch that knew one.
    public var version: String?
    public var firstLaunch: Milliseconds?
    public var lastLaunch: Milliseconds?
    /// The most recent launch or wake.
    public var lastWake: Milliseconds?
    public var lastSleep: Milliseconds?
    /// The launch that detected the most recent version change.
    public var update: Milliseconds?
    public var launchCount = 0
    public var wakeCount = 0
    public var sleepCount = 0
    public var totalLaunchCount = 0
    public var totalWakeCount = 0
    public var totalSleepCount = 0
    public var totalCrashCount = 0
    public var lastEvent: LifecycleEvent?
    public var totalSecondsAwake: Int64 = 0
    /// Foreground seconds since the last launch, summed over its completed foreground periods.
    public var priorSecondsAwake: Int64 = 0
    /// True once an event was registered in the current run; a new run starts with false.
    public var hasLaunchedInRun = false

    public init() {}

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version"
        case version = "app_version"
        case firstLaunch = "timestamp_first_launch"
        case lastLaunch = "timestamp_last_launch"
        case lastWake = "timestamp_last_wake"
        case lastSleep = "timestamp_last_sleep"
        case update = "timestamp_update"
        case launchCount = "count_launch"
        case wakeCount = "count_wake"
        case sleepCount = "count_sleep"
        case totalLaunchCount = "count_total_launch"
        case totalWakeCount = "count_total_wake"
        case totalSleepCount = "count_total_sleep"
        case totalCrashCount = "count_total_crash"
        case lastEvent = "last_event"
        case totalSecondsAwake = "total_seconds_awake"
        case priorSecondsAwake = "prior_seconds_awake"
        case hasLaunchedInRun = "has_launched_in_run"
    }

    /// Decodes leniently like the reference: a missing counter reads as 0.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try c.decode(Int.self, forKey: .schemaVersion)
        version = try c.decodeIfPresent(String.self, forKey: .version)
        firstLaunch = try c.decodeIfPresent(Milliseconds.self, forKey: .firstLaunch)
        lastLaunch = try c.decodeIfPresent(Milliseconds.self, forKey: .lastLaunch)
        lastWake = try c.decodeIfPresent(Milliseconds.self, forKey: .lastWake)
        lastSleep = try c.decodeIfPresent(Milliseconds.self, forKey: .lastSleep)
        update = try c.decodeIfPresent(Milliseconds.self, forKey: .update)
        launchCount = try c.decodeIfPresent(Int.self, forKey: .launchCount) ?? 0
        wakeCount = try c.decodeIfPresent(Int.self, forKey: .wakeCount) ?? 0
        sleepCount = try c.decodeIfPresent(Int.self, forKey: .sleepCount) ?? 0
        totalLaunchCount = try c.decodeIfPresent(Int.self, forKey: .totalLaunchCount) ?? 0
        totalWakeCount = try c.decodeIfPresent(Int.self, forKey: .totalWakeCount) ?? 0
        totalSleepCount = try c.decodeIfPresent(Int.self, forKey: .totalSleepCount) ?? 0
        totalCrashCount = try c.decodeIfPresent(Int.self, forKey: .totalCrashCount) ?? 0
        lastEvent = try c.decodeIfPresent(LifecycleEvent.self, forKey: .lastEvent)
        totalSecondsAwake = try c.decodeIfPresent(Int64.self, forKey: .totalSecondsAwake) ?? 0
        priorSecondsAwake = try c.decodeIfPresent(Int64.self, forKey: .priorSecondsAwake) ?? 0
        hasLaunchedInRun = try c.decodeIfPresent(Bool.self, forKey: .hasLaunchedInRun) ?? false
    }
}
