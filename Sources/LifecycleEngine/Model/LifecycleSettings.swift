// SPDX-License-Identifier: Apache-2.0

/// Which dispatches carry lifecycle data.
public enum DataTarget: String, Sendable, Codable, CaseIterable, Hashable {
    /// Only launch, wake and sleep carry lifecycle data (the default).
    case lifecycleEventsOnly
    /// Custom events carry the current lifecycle data too.
    case allEvents
}

/// The reference module's four settings, with its names, defaults and meaning.
///
/// - `autotracking_enabled` (Bool, default true): when true, manual launch/wake/sleep are refused with
///   ``LifecycleError/manualTrackNotAllowed``; when false, observations of systemd are ignored.
/// - `session_timeout` (Int, minutes, default 1440): a start after a sleep longer than this is a launch;
///   any value <= -1 is infinite; 0 makes every start after a sleep a launch.
/// - `tracked_lifecycle_events` (array of "launch", "wake", "sleep", default all three): which lifecycle events are
///   dispatched; events left out are still counted.
/// - `data_target` ("lifecycleEventsOnly" | "allEvents", default "lifecycleEventsOnly").
public struct LifecycleSettings: Sendable, Hashable {
    public static let defaultSessionTimeoutMinutes = 1440

    public var autotrackingEnabled: Bool
    public var sessionTimeoutMinutes: Int
    public var trackedLifecycleEvents: Set<LifecycleEvent>
    public var dataTarget: DataTarget

    public init(
        autotrackingEnabled: Bool = true,
        sessionTimeoutMinutes: Int = LifecycleSettings.defaultSessionTimeoutMinutes,
        trackedLifecycleEvents: Set<LifecycleEvent> = Set(LifecycleEvent.allCases),
        dataTarget: DataTarget = .lifecycleEventsOnly
    ) {
        self.autotrackingEnabled = autotrackingEnabled
        self.sessionTimeoutMinutes = sessionTimeoutMinutes
        self.trackedLifecycleEvents = trackedLifecycleEvents
        self.dataTarget = dataTarget
    }

    /// True when `session_timeout` never expires (any value <= -1).
    public var isInfiniteSession: Bool { sessionTimeoutMinutes <= -1 }
}
