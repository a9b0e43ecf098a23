// SPDX-License-Identifier: Apache-2.0

/// Who asked for a lifecycle event.
public enum EventOrigin: Sendable, Hashable {
    /// A person, script or API call: refused while autotracking is enabled.
    case manual
    /// The autotracker, from what systemd reported; the payload carries `autotracked: true`.
    case autotracked
}

/// The reference Lifecycle module's rules (docs/engine-semantics.md §2-7 and §9), as a pure value.
///
/// The engine keeps no per-unit state: each call takes the unit's ``UnitState`` and returns the new one through
/// `inout`. Time comes in as data and the local calendar is built from configuration, so nothing here reads the
/// machine's clock or time zone.
public struct LifecycleEngine: Sendable {
    public var settings: LifecycleSettings
    public let calendar: LocalCalendar

    public init(settings: LifecycleSettings = LifecycleSettings(), calendar: LocalCalendar) {
        self.settings = settings
        self.calendar = calendar
    }

    /// Registers a launch, wake or sleep of one unit.
    ///
    /// - Parameters:
    ///   - version: the unit's version at this event, or nil when unknown (a launch with no version never counts as
    ///     an update and leaves the stored version alone).
    ///   - data: the caller's own data, merged over the lifecycle data points.
    /// - Returns: the dispatch to send, or nil when the event was registered but is not in
    ///   `tracked_lifecycle_events`; a refused event leaves `state` untouched.
    public func track(
        _ event: LifecycleEvent,
        at time: Milliseconds,
        state: inout UnitState,
        version: String? = nil,
        data: [String: JSONValue] = [:],
        origin: EventOrigin = .manual
    ) -> Result<Dispatch?, LifecycleError> {
        if origin == .manual, settings.autotrackingEnabled {
            return .failure(.manualTrackNotAllowed)
        }
        if let refusal = orderViolation(event, state) {
            return .failure(refusal)
        }
        var lifecycle: LifecycleData
        switch event {
        case .launch: lifecycle = registerLaunch(at: time, version: version, state: &state)
        case .wake: lifecycle = registerWake(at: time, state: &state)
        case .sleep: lifecycle = registerSleep(at: time, state: &state)
        }
        state.hasLaunchedInRun = true
        guard settings.trackedLifecycleEvents.contains(event) else { return .success(nil) }
        lifecycle.autotracked = origin == .autotracked
        return .success(Dispatch(name: event.rawValue, time: time, lifecycle: lifecycle, customData: data))
    }

    /// A custom (non-lifecycle) event: it carries the current lifecycle data only with `data_target` `allEvents`.
    public func trackCustom(
        _ name: String,
        at time: Milliseconds,
        state: UnitState,
        data: [String: JSONValue] = [:]
    ) -> Dispatch {
        let lifecycle = settings.dataTarget == .allEvents ? currentData(at: time, state: state) : nil
        return Dispatch(name: name, time: time, lifecycle: lifecycle, customData: data)
    }

    /// The data points of a unit at `time` outside any lifecycle event (docs/engine-semantics.md §9, "data_target"): no
    /// type, no flags, no prior seconds; seconds awake include the running foreground period unless the unit is asleep.
    public func currentData(at time: Milliseconds, state: UnitState) -> LifecycleData {
        var data = baseData(at: time, state: state)
        let live = state.lastEvent == .sleep ? 0 : time.secondsSince(state.lastWake)
        data.secondsAwake = state.priorSecondsAwake + live
        data.totalSecondsAwake = state.totalSecondsAwake + live
        data.daysSinceLastWake = time.daysSince(state.lastWake)
        data.lastLaunchDate = state.lastLaunch
        data.lastWakeDate = state.lastWake
        data.lastSleepDate = state.lastSleep
        return data
    }

    // MARK: - Rules

    /// docs/engine-semantics.md §7, "Event order": the persisted last event decides, and within one run a launch must
    /// follow a sleep.
    private func orderViolation(_ event: LifecycleEvent, _ state: UnitState) -> LifecycleError? {
        let isForeground = state.lastEvent == .launch || state.lastEvent == .wake
        switch event {
        case .launch: return state.hasLaunchedInRun && state.lastEvent != .sleep ? .invalidEventOrder : nil
        case .wake: return state.lastEvent == .sleep ? nil : .invalidEventOrder
        case .sleep: return isForeground ? nil : .invalidEventOrder
        }
    }

    private func registerLaunch(at time: Milliseconds, version: String?, state: inout UnitState) -> LifecycleData {
        let previousWake = state.lastWake
        let previousLaunch = state.lastLaunch
        let isFirstLaunch = state.firstLaunch == nil
        if isFirstLaunch { state.firstLaunch = time }

        var isUpdate = false
        if let version {
            if let stored = state.version, stored != version {
                state.update = time
                state.launchCount = 0
                state.wakeCount = 0
                state.sleepCount = 0
                isUpdate = true
            }
            state.version = version
        }

        // A launch while the last event is still launch or wake: the previous run died without a sleep.
        let didDetectCrash = state.lastEvent == .launch || state.lastEvent == .wake
        if didDetectCrash { state.totalCrashCount += 1 }

        let priorSecondsAwake = state.priorSecondsAwake
        state.lastWake = time
        state.lastLaunch = time
        state.lastEvent = .launch
        state.launchCount += 1
        state.totalLaunchCount += 1
        state.wakeCount += 1
        state.totalWakeCount += 1
        state.priorSecondsAwake = 0

        var data = baseData(at: time, state: state)
        data.type = .launch
        data.daysSinceLastWake = time.daysSince(previousWake)
        data.lastLaunchDate = previousLaunch
        data.lastWakeDate = previousWake
        data.lastSleepDate = state.lastSleep
        data.priorSecondsAwake = priorSecondsAwake
        data.isFirstLaunch = isFirstLaunch
        data.isFirstLaunchUpdate = isUpdate
        data.didDetectCrash = didDetectCrash
        setFirstWakeFlags(&data, at: time, previousWake: previousWake)
        return data
    }

    private func registerWake(at time: Milliseconds, state: inout UnitState) -> LifecycleData {
        let previousWake = state.lastWake
        state.lastWake = time
        state.lastEvent = .wake
        state.wakeCount += 1
        state.totalWakeCount += 1

        var data = baseData(at: time, state: state)
        data.type = .wake
        data.daysSinceLastWake = time.daysSince(previousWake)
        data.lastLaunchDate = state.lastLaunch
        data.lastWakeDate = previousWake
        data.lastSleepDate = state.lastSleep
        data.secondsAwake = state.priorSecondsAwake
        setFirstWakeFlags(&data, at: time, previousWake: previousWake)
        return data
    }

    private func registerSleep(at time: Milliseconds, state: inout UnitState) -> LifecycleData {
        let previousSleep = state.lastSleep
        let awake = time.secondsSince(state.lastWake)
        state.lastEvent = .sleep
        state.sleepCount += 1
        state.totalSleepCount += 1
        state.totalSecondsAwake += awake
        state.priorSecondsAwake += awake
        state.lastSleep = time

        var data = baseData(at: time, state: state)
        data.type = .sleep
        data.daysSinceLastWake = time.daysSince(state.lastWake)
        data.lastLaunchDate = state.lastLaunch
        data.lastWakeDate = state.lastWake
        data.lastSleepDate = previousSleep
        data.secondsAwake = state.priorSecondsAwake
        return data
    }

    /// Data points every dispatch carries, read from the state after the event was registered.
    private func baseData(at time: Milliseconds, state: UnitState) -> LifecycleData {
        let local = calendar.civilDate(time)
        return LifecycleData(
            dayOfWeekLocal: Int(local.weekday),
            hourOfDayLocal: Int(local.hour),
            daysSinceLaunch: time.daysSince(state.firstLaunch),
            daysSinceUpdate: time.daysSince(state.update),
            firstLaunchDate: state.firstLaunch,
            updateLaunchDate: state.update,
            launchCount: state.launchCount,
            wakeCount: state.wakeCount,
            sleepCount: state.sleepCount,
            totalLaunchCount: state.totalLaunchCount,
            totalWakeCount: state.totalWakeCount,
            totalSleepCount: state.totalSleepCount,
            totalCrashCount: state.totalCrashCount,
            totalSecondsAwake: state.totalSecondsAwake
        )
    }

    /// docs/engine-semantics.md §4.5, "First wake today / this month": compared with the previous launch or wake, in
    /// the local calendar; a new month is always a new day too.
    private func setFirstWakeFlags(_ data: inout LifecycleData, at time: Milliseconds, previousWake: Milliseconds?) {
        guard let previousWake else {
            data.isFirstWakeToday = true
            data.isFirstWakeMonth = true
            return
        }
        let now = calendar.civilDate(time)
        let before = calendar.civilDate(previousWake)
        if now.year != before.year || now.month != before.month {
            data.isFirstWakeToday = true
            data.isFirstWakeMonth = true
        } else if now.day != before.day {
            data.isFirstWakeToday = true
        }
    }
}
