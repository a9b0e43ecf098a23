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

    /// A data point's key: its case and its text, the reference's (`lifecycle_launchcount`). The cases come in the
    /// order ``forEachField(_:)`` gives them, so that what is made once per key (a journal field's name, its place in
    /// sorted order) is kept in a table by ``rawValue``.
    public enum Key: Int, CaseIterable, Sendable, CustomStringConvertible {
        case type
        case dayOfWeekLocal
        case hourOfDayLocal
        case daysSinceLaunch
        case daysSinceLastWake
        case daysSinceUpdate
        case firstLaunchDate
        case firstLaunchDateMonthDayYear
        case lastLaunchDate
        case lastWakeDate
        case lastSleepDate
        case updateLaunchDate
        case launchCount
        case wakeCount
        case sleepCount
        case totalLaunchCount
        case totalWakeCount
        case totalSleepCount
        case totalCrashCount
        case totalSecondsAwake
        case secondsAwake
        case priorSecondsAwake
        case isFirstLaunch
        case isFirstLaunchUpdate
        case isFirstWakeToday
        case isFirstWakeMonth
        case didDetectCrash
        case autotracked

        public var name: StaticString {
            switch self {
            case .type: "lifecycle_type"
            case .dayOfWeekLocal: "lifecycle_dayofweek_local"
            case .hourOfDayLocal: "lifecycle_hourofday_local"
            case .daysSinceLaunch: "lifecycle_dayssincelaunch"
            case .daysSinceLastWake: "lifecycle_dayssincelastwake"
            case .daysSinceUpdate: "lifecycle_dayssinceupdate"
            case .firstLaunchDate: "lifecycle_firstlaunchdate"
            case .firstLaunchDateMonthDayYear: "lifecycle_firstlaunchdate_MMDDYYYY"
            case .lastLaunchDate: "lifecycle_lastlaunchdate"
            case .lastWakeDate: "lifecycle_lastwakedate"
            case .lastSleepDate: "lifecycle_lastsleepdate"
            case .updateLaunchDate: "lifecycle_updatelaunchdate"
            case .launchCount: "lifecycle_launchcount"
            case .wakeCount: "lifecycle_wakecount"
            case .sleepCount: "lifecycle_sleepcount"
            case .totalLaunchCount: "lifecycle_totallaunchcount"
            case .totalWakeCount: "lifecycle_totalwakecount"
            case .totalSleepCount: "lifecycle_totalsleepcount"
            case .totalCrashCount: "lifecycle_totalcrashcount"
            case .totalSecondsAwake: "lifecycle_totalsecondsawake"
            case .secondsAwake: "lifecycle_secondsawake"
            case .priorSecondsAwake: "lifecycle_priorsecondsawake"
            case .isFirstLaunch: "lifecycle_isfirstlaunch"
            case .isFirstLaunchUpdate: "lifecycle_isfirstlaunchupdate"
            case .isFirstWakeToday: "lifecycle_isfirstwaketoday"
            case .isFirstWakeMonth: "lifecycle_isfirstwakemonth"
            case .didDetectCrash: "lifecycle_diddetectcrash"
            case .autotracked: "autotracked"
            }
        }

        public var description: String { name.description }
    }

    /// Calls `body` with every present data point, in a fixed order, under its reference key.
    public func forEachField(_ body: (Key, Field) throws -> Void) rethrows {
        if let type { try body(.type, .event(type)) }
        try body(.dayOfWeekLocal, .int(Int64(dayOfWeekLocal)))
        try body(.hourOfDayLocal, .int(Int64(hourOfDayLocal)))
        if let daysSinceLaunch { try body(.daysSinceLaunch, .int(daysSinceLaunch)) }
        if let daysSinceLastWake { try body(.daysSinceLastWake, .int(daysSinceLastWake)) }
        if let daysSinceUpdate { try body(.daysSinceUpdate, .int(daysSinceUpdate)) }
        if let firstLaunchDate {
            try body(.firstLaunchDate, .isoDate(firstLaunchDate))
            try body(.firstLaunchDateMonthDayYear, .monthDayYear(firstLaunchDate))
        }
        if let lastLaunchDate { try body(.lastLaunchDate, .isoDate(lastLaunchDate)) }
        if let lastWakeDate { try body(.lastWakeDate, .isoDate(lastWakeDate)) }
        if let lastSleepDate { try body(.lastSleepDate, .isoDate(lastSleepDate)) }
        if let updateLaunchDate { try body(.updateLaunchDate, .isoDate(updateLaunchDate)) }
        try body(.launchCount, .int(Int64(launchCount)))
        try body(.wakeCount, .int(Int64(wakeCount)))
        try body(.sleepCount, .int(Int64(sleepCount)))
        try body(.totalLaunchCount, .int(Int64(totalLaunchCount)))
        try body(.totalWakeCount, .int(Int64(totalWakeCount)))
        try body(.totalSleepCount, .int(Int64(totalSleepCount)))
        try body(.totalCrashCount, .int(Int64(totalCrashCount)))
        try body(.totalSecondsAwake, .int(totalSecondsAwake))
        if let secondsAwake { try body(.secondsAwake, .int(secondsAwake)) }
        if let priorSecondsAwake { try body(.priorSecondsAwake, .int(priorSecondsAwake)) }
        if isFirstLaunch { try body(.isFirstLaunch, .bool(true)) }
        if isFirstLaunchUpdate { try body(.isFirstLaunchUpdate, .bool(true)) }
        if isFirstWakeToday { try body(.isFirstWakeToday, .bool(true)) }
        if isFirstWakeMonth { try body(.isFirstWakeMonth, .bool(true)) }
        if didDetectCrash { try body(.didDetectCrash, .bool(true)) }
        if autotracked { try body(.autotracked, .bool(true)) }
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
