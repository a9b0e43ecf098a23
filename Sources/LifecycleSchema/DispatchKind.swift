// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The six kinds of dispatch, each with its own `MESSAGE_ID` and priority (docs/journal.md, "MESSAGE_IDs").
public enum DispatchKind: String, Sendable, Hashable, CaseIterable {
    case launch
    case wake
    case sleep
    case custom
    case crash
    /// A run a timer was due to start that never began (docs/journal.md, "Timers").
    case missed

    /// The kind of `dispatch`.
    ///
    /// A crash notice cannot be told from a custom event that someone named `crash` by looking at it, so the caller
    /// says which it is. A launch, wake or sleep carries lifecycle data of its own type; a custom event named
    /// `launch` does not, and stays a custom event.
    ///
    /// - Parameters:
    ///   - dispatch: what the engine or the autotracker handed out.
    ///   - isCrashNotice: whether the autotracker sent it because a run failed.
    public init(dispatch: Dispatch, isCrashNotice: Bool) {
        if isCrashNotice {
            self = .crash
            return
        }
        switch LifecycleEvent(rawValue: dispatch.name) {
        case .launch? where dispatch.lifecycle?.type == .launch: self = .launch
        case .wake? where dispatch.lifecycle?.type == .wake: self = .wake
        case .sleep? where dispatch.lifecycle?.type == .sleep: self = .sleep
        default: self = .custom
        }
    }

    /// The constant `MESSAGE_ID`, generated once with `systemd-id128 new`. Never change one: dashboards and
    /// `journalctl MESSAGE_ID=…` queries depend on it.
    public var messageID: String {
        switch self {
        case .launch: "7006b0aab99348aaa0549048c05b00b9"
        case .wake: "c3cffdd912a94468bf55af95c5153a3f"
        case .sleep: "1ecaafbe5252451daa10ccc3e7fd2329"
        case .custom: "c045a9c8b7de4d3084fecaf0ae0df532"
        case .crash: "8ca45d5015014645bedba16bc4a17ad0"
        case .missed: "0e2c805157d74255856d089a14e48eb1"
        }
    }

    /// The syslog priority: 4 (warning) for a crash notice and a missed run, 6 (info) for everything else.
    public var priority: Int {
        self == .crash || self == .missed ? 4 : 6
    }
}
