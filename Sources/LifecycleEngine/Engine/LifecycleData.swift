// SPDX-License-Identifier: Apache-2.0

/// The lifecycle data points of one dispatch (docs/engine-semantics.md §4, "Data points"). Optional fields and false
/// flags are absent from the payload: the reference omits a flag that does not apply, it never sends `false`.
public struct LifecycleData: Sendable, Equatable {
    /// Absent on custom events (`data_target` `allEvents`).
    public var type: LifecycleEvent?
    public var dayOfWeekLocal: Int
    public var hourOfDayLocal: Int
    public var daysSinceLaunch: Int64?
    public var daysSinceLastWake: Int64?
    public var daysSinceUpdate: Int64?
    public var firstLaunchDate: Milliseconds?
    public var lastLaunchDate: Milliseconds?
    public var lastWakeDate: Milliseconds?
    public var lastSleepDate: Milliseconds?
    public var updateLaunchDate: Milliseconds?
    public var launchCount: Int
    public var wakeCount: Int
    public var sleepCount: Int
    public var totalLaunchCount: Int
    public var totalWakeCount: Int
    public var totalSleepCount: Int
    public var totalCrashCount: Int
    public var totalSecondsAwake: Int64
    public var secondsAwake: Int64?
    public var priorSecondsAwake: Int64?
    public var isFirstLaunch = false
    public var isFirstLaunchUpdate = false
    public var isFirstWakeToday = false
    public var isFirstWakeMonth = false
    public var didDetectCrash = false
    public var autotracked = false

    /// One data point, in the form it takes on the wire.
    public enum Field: Sendable, Equatable {
        case int(Int64)
        case bool(Bool)
        case event(LifecycleEvent)
        /// A time to be written as `yyyy-MM-dd'T'HH:mm:ss'Z'`.
        case isoDate(Milliseconds)
        /// A time to be written as `MM/dd/yyyy`.
        case monthDayYear(Milliseconds)

        public var jsonValue: JSONValue {
            switch self {
            case .int(let value): .int(value)
            case .bool(let value): .bool(value)
            case .event(let event): .string(event.rawValue)
            case .isoDate(let time): .string(LifecycleDateFormat.iso8601.string(time))
            case .monthDayYear(let time): .string(LifecycleDateFormat.monthDayYear.string(time))
            }
        }
    }

    /// Calls `body` with every present data point, in a fixed order, under its reference key.
    public func forEachField(_ body: (StaticString, Field) throws -> Void) rethrows {
        if let type { try body("lifecycle_type", .event(type)) }
        try body("lifecycle_dayofweek_local", .int(Int64(dayOfWeekLocal)))
        try body("lifecycle_hourofday_local", .int(Int64(hourOfDayLocal)))
        if let daysSinceLaunch { try body("lifecycle_dayssincelaunch", .int(daysSinceLaunch)) }
        if let daysSinceLastWake { try body("lifecycle_dayssincelastwake", .int(daysSinceLastWake)) }
        if let daysSinceUpdate { try body("lifecycle_dayssinceupdate", .int(daysSinceUpdate)) }
        if let firstLaunchDate {
            try body("lifecycle_firstlaunchdate", .isoDate(firstLaunchDate))
            try body("lifecycle_firstlaunchdate_MMDDYYYY", .monthDayYear(firstLaunchDate))
        }
        if let lastLaunchDate { try body("lifecycle_lastlaunchdate", .isoDate(lastLaunchDate)) }
        if let lastWakeDate { try body("lifecycle_lastwakedate", .isoDate(lastWakeDate)) }
        if let lastSleepDate { try body("lifecycle_lastsleepdate", .isoDate(lastSleepDate)) }
        if let updateLaunchDate { try body("lifecycle_updatelaunchdate", .isoDate(updateLaunchDate)) }
        try body("lifecycle_launchcount", .int(Int64(launchCount)))
        try body("lifecycle_wakecount", .int(Int64(wakeCount)))
        try body("lifecycle_sleepcount", .int(Int64(sleepCount)))
        try body("lifecycle_totallaunchcount", .int(Int64(totalLaunchCount)))
        try body("lifecycle_totalwakecount", .int(Int64(totalWakeCount)))
        try body("lifecycle_totalsleepcount", .int(Int64(totalSleepCount)))
        try body("lifecycle_totalcrashcount", .int(Int64(totalCrashCount)))
        try body("lifecycle_totalsecondsawake", .int(totalSecondsAwake))
        if let secondsAwake { try body("lifecycle_secondsawake", .int(secondsAwake)) }
        if let priorSecondsAwake { try body("lifecycle_priorsecondsawake", .int(priorSecondsAwake)) }
        if isFirstLaunch { try body("lifecycle_isfirstlaunch", .bool(true)) }
        if isFirstLaunchUpdate { try body("lifecycle_isfirstlaunchupdate", .bool(true)) }
        if isFirstWakeToday { try body("lifecycle_isfirstwaketoday", .bool(true)) }
        if isFirstWakeMonth { try body("lifecycle_isfirstwakemonth", .bool(true)) }
        if didDetectCrash { try body("lifecycle_diddetectcrash", .bool(true)) }
        if autotracked { try body("autotracked", .bool(true)) }
    }
}

/// What the engine hands out for sending: a lifecycle event or a custom event, with its payload.
public struct Dispatch: Sendable, Equatable {
    /// `launch`, `wake`, `sleep`, or the custom event's name.
    public var name: String
    public var time: Milliseconds
    /// Lifecycle data points; nil for a custom event under `lifecycleEventsOnly`.
    public var lifecycle: LifecycleData?
    /// The caller's own data, merged over the lifecycle data points (its keys win).
    public var customData: [String: JSONValue]

    public init(name: String, time: Milliseconds, lifecycle: LifecycleData?, customData: [String: JSONValue]) {
        self.name = name
        self.time = time
        self.lifecycle = lifecycle
        self.customData = customData
    }

    /// Whether a key of the custom data may be a lifecycle data point's, which it then replaces: every data point's
    /// key begins with `lifecycle_` or is `autotracked`. Looking each data point up in the custom data costs more than
    /// the rest of a payload's making when none can be.
    public var customDataMayReplaceLifecycle: Bool {
        customData.keys.contains { $0.hasPrefix("lifecycle_") || $0 == "autotracked" }
    }

    /// The whole payload as one JSON object.
    public var payload: [String: JSONValue] {
        var payload: [String: JSONValue] = [:]
        lifecycle?.forEachField { key, field in payload[key.description] = field.jsonValue }
        payload.merge(customData) { _, custom in custom }
        return payload
    }
}
