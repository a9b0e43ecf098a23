// SPDX-License-Identifier: Apache-2.0

/// Milliseconds since 1970-01-01T00:00:00Z, the reference module's unit of time.
public typealias Milliseconds = Int64

/// The three lifecycle events of the reference module.
public enum LifecycleEvent: String, Sendable, Codable, CaseIterable, Hashable {
    case launch
    case wake
    case sleep
}

/// Why the engine refused an event. A refused event changes nothing.
public enum LifecycleError: String, Error, Sendable, Hashable, CustomStringConvertible {
    /// A manual launch, wake or sleep while autotracking is enabled.
    case manualTrackNotAllowed
    /// The event does not follow the previous one (for example a wake that does not follow a sleep).
    case invalidEventOrder

    public var description: String {
        switch self {
        case .manualTrackNotAllowed:
            return "Manual lifecycle events are not allowed while autotracking is enabled."
        case .invalidEventOrder:
            return "Invalid lifecycle event order. The event is not registered/tracked."
        }
    }
}
