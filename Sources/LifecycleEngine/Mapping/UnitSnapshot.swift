// SPDX-License-Identifier: Apache-2.0

/// A unit's `ActiveState`. systemd adds states over releases, so unknown strings are kept, never rejected.
public enum ActiveState: Sendable, Hashable {
    case active, reloading, inactive, failed, activating, deactivating, maintenance, refreshing
    case other(String)

    public init(_ raw: String) {
        switch raw {
        case "active": self = .active
        case "reloading": self = .reloading
        case "inactive": self = .inactive
        case "failed": self = .failed
        case "activating": self = .activating
        case "deactivating": self = .deactivating
        case "maintenance": self = .maintenance
        case "refreshing": self = .refreshing
        default: self = .other(raw)
        }
    }

    public var rawValue: String {
        switch self {
        case .active: "active"
        case .reloading: "reloading"
        case .inactive: "inactive"
        case .failed: "failed"
        case .activating: "activating"
        case .deactivating: "deactivating"
        case .maintenance: "maintenance"
        case .refreshing: "refreshing"
        case .other(let raw): raw
        }
    }
}

/// What systemd says about one unit at one moment: the `org.freedesktop.systemd1.Unit` properties of a
/// `PropertiesChanged` (or of the initial listing), with the type interface's (`.Service`) values that came just
/// before it. Plain values only, so the mapper can be tested without D-Bus.
public struct UnitSnapshot: Sendable, Hashable {
    public var name: String
    public var activeState: ActiveState
    public var subState: String
    /// `InvocationID` as 32 lower-case hex digits; empty when the unit has never run.
    public var invocationID: String
    /// `Result` of the `.Service` (and other type) interfaces; nil for types that have none.
    public var result: String?
    public var nRestarts: UInt32?
    /// `ExecMainCode`: 1 exited, 2 killed, 3 dumped (a `siginfo` code).
    public var execMainCode: Int32?
    /// `ExecMainStatus`: the exit status or the signal number.
    public var execMainStatus: Int32?
    public var mainPID: UInt32?
    /// `FreezerState`: running, freezing, frozen or thawing.
    public var freezerState: String?
    /// `StateChangeTimestamp` (µs since the epoch) and its monotonic twin.
    public var stateChangeTimestamp: UInt64
    public var stateChangeTimestampMonotonic: UInt64
    /// The pending job id (0 for none).
    public var jobID: UInt32
    /// PID 1's monotonic clock (µs) when the unit last left inactive, last became active and last became inactive
    /// (`InactiveExitTimestampMonotonic`, `ActiveEnterTimestampMonotonic`, `InactiveEnterTimestampMonotonic`); 0
    /// when never or unknown. Each is kept until the state is entered again, so at a run's end they tell how long
    /// its start took (``RunRecord/init(properties:isOneshot:endedMonotonic:)``).
    public var inactiveExitMonotonic: UInt64 = 0
    public var activeEnterMonotonic: UInt64 = 0
    public var inactiveEnterMonotonic: UInt64 = 0

    public init(
        name: String,
        activeState: ActiveState,
        subState: String,
        invocationID: String,
        result: String? = nil,
        nRestarts: UInt32? = nil,
        execMainCode: Int32? = nil,
        execMainStatus: Int32? = nil,
        mainPID: UInt32? = nil,
        freezerState: String? = nil,
        stateChangeTimestamp: UInt64 = 0,
        stateChangeTimestampMonotonic: UInt64 = 0,
        jobID: UInt32 = 0
    ) {
        self.name = name
        self.activeState = activeState
        self.subState = subState
        self.invocationID = invocationID
        self.result = result
        self.nRestarts = nRestarts
        self.execMainCode = execMainCode
        self.execMainStatus = execMainStatus
        self.mainPID = mainPID
        self.freezerState = freezerState
        self.stateChangeTimestamp = stateChangeTimestamp
        self.stateChangeTimestampMonotonic = stateChangeTimestampMonotonic
        self.jobID = jobID
    }
}
