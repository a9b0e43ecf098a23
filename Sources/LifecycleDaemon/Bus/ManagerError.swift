// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleSystemd

/// An error reply of lifecycled's D-Bus interface: a D-Bus error name and a message saying what was wrong.
///
/// The names are part of the interface (`lifecyclectl` maps them to exit statuses):
/// - `org.lifecycled.Lifecycle1.ManualTrackNotAllowed`: a manual launch, wake or sleep of an autotracked unit;
/// - `org.lifecycled.Lifecycle1.InvalidEventOrder`: a manual event out of order (a wake before any launch);
/// - `org.lifecycled.Lifecycle1.UnknownUnit`: the unit is not watched, or (`GetUnit`) has no record;
/// - `org.lifecycled.Lifecycle1.InvalidArgument`: a wrong signature, an invalid unit or event name, too much data;
/// - `org.freedesktop.DBus.Error.LimitsExceeded`: too many calls of one caller, or of all callers, waiting for their
///   replies.
public struct ManagerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The engine's `manualTrackNotAllowed`: the unit is autotracked.
    public static let manualTrackNotAllowed = LifecycleBusNames.ErrorName.manualTrackNotAllowed
    /// The engine's `invalidEventOrder`: the event does not follow the unit's last one.
    public static let invalidEventOrder = LifecycleBusNames.ErrorName.invalidEventOrder
    /// No `watch` pattern matches the unit, or `GetUnit` found no record.
    public static let unknownUnit = LifecycleBusNames.ErrorName.unknownUnit
    /// The call itself is malformed.
    public static let invalidArgument = LifecycleBusNames.ErrorName.invalidArgument
    /// A call that reached lifecycled while it was stopping.
    public static let failed = "org.freedesktop.DBus.Error.Failed"
    /// The standard error for a caller over a limit.
    public static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"

    /// The D-Bus error name.
    public var name: String
    /// What was wrong, as a sentence.
    public var message: String

    /// Creates an error reply from its name and message.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// The error reply for a refused request.
    ///
    /// An engine refusal names the event and the unit (`Refused wake of job-1.service: Invalid lifecycle event
    /// order. …`); the other messages already say what was wrong.
    public init(_ error: EventRequestError, refusing request: EventRequest) {
        switch error {
        case .unknownUnit:
            self.init(name: Self.unknownUnit, message: error.description)
        case .invalidArgument:
            self.init(name: Self.invalidArgument, message: error.description)
        case .stopping, .archiveUnreadable:
            self.init(name: Self.failed, message: error.description)
        case .refused(let refusal):
            let event = switch request.event {
            case .lifecycle(let event): event.rawValue
            case .custom(let name): "event \(name)"
            }
            self.init(
                name: refusal == .manualTrackNotAllowed ? Self.manualTrackNotAllowed : Self.invalidEventOrder,
                message: "Refused \(event) of \(request.unit): \(refusal.description)"
            )
        }
    }

    /// A call whose arguments do not match the method's signature.
    static func wrongSignature(_ method: ManagerMethod, got signature: String) -> ManagerError {
        ManagerError(
            name: invalidArgument,
            message: "\(method.rawValue) takes arguments of type '\(method.inputSignature)', not '\(signature)'."
        )
    }

    /// A call refused because its sender already has `limit` calls waiting for their replies.
    static func tooManyCalls(limit: Int) -> ManagerError {
        ManagerError(
            name: limitsExceeded,
            message: "Too many calls from this connection are waiting for lifecycled: at most \(limit) at a time."
        )
    }

    /// A call refused because `limit` calls of all senders together are waiting for their replies.
    static func tooManyCallsInAll(limit: Int) -> ManagerError {
        ManagerError(
            name: limitsExceeded,
            message: "Too many calls are waiting for lifecycled: at most \(limit) at a time from all callers."
        )
    }

    public var description: String { "\(name): \(message)" }
}
