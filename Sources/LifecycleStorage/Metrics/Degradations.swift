// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// What lifecycled cannot do as it should right now, by cause, each since when and why: a fault a restart would not
/// mend, which tracking goes on through and which ends by itself once the fault is mended (docs/architecture.md,
/// "Degrading instead of stopping"). Shown before every status (`systemctl status`), and as `lifecycled_degraded`
/// in the metrics (docs/metrics.md).
public struct Degradations: Sendable, Equatable {
    /// What is degraded: one value per kind of fault, the metrics' `what` label.
    public enum Cause: String, Sendable, CaseIterable, Comparable {
        /// The state directory cannot be written: state files fall behind the records in memory.
        case stateDirectory = "state_directory"
        /// The journal has not shown lifecycled's entries for a minute: stalled, or storing nothing below notice
        /// (docs/journal.md, "A journal that stores nothing").
        case journal

        public static func < (lhs: Cause, rhs: Cause) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// One cause's degradation: when it began (ms since the epoch) and why, as a phrase
    /// (`cannot write the state directory /var/lib/lifecycled: Read-only file system (EROFS)`).
    public struct Degradation: Sendable, Equatable {
        public var since: Milliseconds
        public var reason: String
    }

    private var causes: [Cause: Degradation] = [:]

    public init() {}

    public var isEmpty: Bool { causes.isEmpty }

    public subscript(cause: Cause) -> Degradation? { causes[cause] }

    /// `cause` is degraded for `reason`: since `now` when it was not yet, else since it began (the reason is the
    /// latest). Returns whether it began now.
    @discardableResult
    public mutating func begin(_ cause: Cause, reason: String, now: Milliseconds) -> Bool {
        let began = causes[cause] == nil
        causes[cause] = Degradation(since: causes[cause]?.since ?? now, reason: reason)
        return began
    }

    /// `cause` is no longer degraded; returns what it was, nil when it was not.
    @discardableResult
    public mutating func end(_ cause: Cause) -> Degradation? {
        causes.removeValue(forKey: cause)
    }

    /// What lifecycled's D-Bus `GetStatus` says of it: `[{"reason": "cannot write …", "since":
    /// "2026-03-01T10:00:00Z", "what": "state_directory"}]`, by cause; empty when nothing is degraded.
    public var json: JSONValue {
        .array(causes.sorted { $0.key < $1.key }.map { cause, degradation in
            .object([
                "what": .string(cause.rawValue), "reason": .string(degradation.reason),
                "since": .string(LifecycleDateFormat.iso8601.string(degradation.since)),
            ])
        })
    }

    /// `status` as `systemctl status` shows it: what is degraded comes first, whatever else is going on.
    /// `Degraded: cannot write the state directory /var/lib/lifecycled: Read-only file system (EROFS) since
    /// 2026-03-01T10:00:00Z; Watching 3 loaded units`.
    public func shown(_ status: String) -> String {
        guard !causes.isEmpty else { return status }
        let parts = causes.sorted { $0.key < $1.key }.map { _, degradation in
            "\(degradation.reason) since \(LifecycleDateFormat.iso8601.string(degradation.since))"
        }
        return "Degraded: \(parts.joined(separator: ", ")); \(status)"
    }
}
