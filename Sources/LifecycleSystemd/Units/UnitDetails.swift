// SPDX-License-Identifier: Apache-2.0

/// What version detection needs to know about one loaded unit.
public struct UnitDetails: Sendable, Hashable {
    /// The program of the first `ExecStart=` command (a service's main executable); nil if there is none.
    public var mainExecutable: String?
    /// `FragmentPath`: the unit file; empty for transient units.
    public var fragmentPath: String
    /// `DropInPaths`: the drop-in files, in the order systemd applies them.
    public var dropInPaths: [String]
    /// `Environment`: the unit's `Environment=` assignments as `NAME=value` (not `EnvironmentFile=`).
    public var environment: [String]

    public init(mainExecutable: String?, fragmentPath: String, dropInPaths: [String], environment: [String]) {
        self.mainExecutable = mainExecutable
        self.fragmentPath = fragmentPath
        self.dropInPaths = dropInPaths
        self.environment = environment
    }
}
