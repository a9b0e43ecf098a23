// SPDX-License-Identifier: Apache-2.0

/// The names of lifecycled's D-Bus interface, defined once for the daemon that exports it and the tool that calls it.
public enum LifecycleBusNames {
    /// The well-known bus name lifecycled owns.
    public static let busName = "org.lifecycled.Lifecycle1"
    /// The one object lifecycled exports.
    public static let objectPath = "/org/lifecycled/Lifecycle1"
    /// The interface of that object.
    public static let interface = "org.lifecycled.Lifecycle1.Manager"

    /// The error names of its replies (`lifecyclectl` maps them to exit statuses).
    public enum ErrorName {
        /// The engine's `manualTrackNotAllowed`: the unit is autotracked.
        public static let manualTrackNotAllowed = "\(busName).ManualTrackNotAllowed"
        /// The engine's `invalidEventOrder`: the event does not follow the unit's last one.
        public static let invalidEventOrder = "\(busName).InvalidEventOrder"
        /// No `watch` pattern matches the unit, or `GetUnit` found no record.
        public static let unknownUnit = "\(busName).UnknownUnit"
        /// The call itself is malformed.
        public static let invalidArgument = "\(busName).InvalidArgument"
        /// Every error name of lifecycled's own starts with this.
        public static let prefix = "\(busName)."
    }
}
