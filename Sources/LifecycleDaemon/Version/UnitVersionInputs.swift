// SPDX-License-Identifier: Apache-2.0

/// What systemd reports about a unit that its version can be computed from (docs/configuration.md, "Version source").
///
/// Plain data, filled from the unit's D-Bus properties when a run begins, so ``VersionReader`` never talks to the
/// bus and can be tested with files alone.
public struct UnitVersionInputs: Sendable, Hashable {
    /// The main executable, the path of the first `ExecStart=` (for example `/usr/sbin/nginx`); nil for units that
    /// run nothing (targets, sockets, mounts).
    public var executablePath: String?
    /// The unit file (`FragmentPath`); nil for units that have none.
    public var fragmentPath: String?
    /// The drop-ins (`DropInPaths`), in the order systemd applies them.
    public var dropInPaths: [String]
    /// The unit's `Environment=` list, as `KEY=value` strings.
    public var environment: [String]

    public init(
        executablePath: String? = nil,
        fragmentPath: String? = nil,
        dropInPaths: [String] = [],
        environment: [String] = []
    ) {
        self.executablePath = executablePath
        self.fragmentPath = fragmentPath
        self.dropInPaths = dropInPaths
        self.environment = environment
    }
}
