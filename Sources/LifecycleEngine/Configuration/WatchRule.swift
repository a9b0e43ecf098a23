// SPDX-License-Identifier: Apache-2.0

/// One entry of the configuration's `watch` list: the units whose names match ``pattern``, and the settings that
/// differ for them from the configuration's defaults.
///
/// Every override is optional; nil keeps the default. In the configuration file a rule is either a bare pattern
/// string or an object with `pattern` and any of `autotracking_enabled`, `session_timeout`,
/// `tracked_lifecycle_events`, `data_target` and `version_source`.
public struct WatchRule: Sendable, Equatable {
    /// The glob that selects the units of this rule.
    public var pattern: UnitPattern
    /// `autotracking_enabled` for these units.
    public var autotrackingEnabled: Bool?
    /// `session_timeout` in minutes for these units; any value <= -1 is infinite.
    public var sessionTimeoutMinutes: Int?
    /// `tracked_lifecycle_events` for these units; an empty set dispatches nothing.
    public var trackedLifecycleEvents: Set<LifecycleEvent>?
    /// `data_target` for these units.
    public var dataTarget: DataTarget?
    /// `version_source` for these units.
    public var versionSource: VersionSource?

    /// Creates a rule; every override left out keeps the configuration's default.
    public init(
        pattern: UnitPattern,
        autotrackingEnabled: Bool? = nil,
        sessionTimeoutMinutes: Int? = nil,
        trackedLifecycleEvents: Set<LifecycleEvent>? = nil,
        dataTarget: DataTarget? = nil,
        versionSource: VersionSource? = nil
    ) {
        self.pattern = pattern
        self.autotrackingEnabled = autotrackingEnabled
        self.sessionTimeoutMinutes = sessionTimeoutMinutes
        self.trackedLifecycleEvents = trackedLifecycleEvents
        self.dataTarget = dataTarget
        self.versionSource = versionSource
    }

    /// `defaults` with this rule's overrides applied.
    ///
    /// - Parameter defaults: the configuration-wide reference settings.
    /// - Returns: the settings for a unit matched by this rule.
    public func settings(overriding defaults: LifecycleSettings) -> LifecycleSettings {
        var settings = defaults
        if let autotrackingEnabled { settings.autotrackingEnabled = autotrackingEnabled }
        if let sessionTimeoutMinutes { settings.sessionTimeoutMinutes = sessionTimeoutMinutes }
        if let trackedLifecycleEvents { settings.trackedLifecycleEvents = trackedLifecycleEvents }
        if let dataTarget { settings.dataTarget = dataTarget }
        return settings
    }
}
