// SPDX-License-Identifier: Apache-2.0

/// What version detection needs to know about one loaded unit. Only the ``Parts`` asked for are read; the others
/// keep their empty values.
public struct UnitDetails: Sendable, Hashable {
    /// Which properties to read: each version source needs one or two of the four.
    public struct Parts: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `ExecStart` (services only).
        public static let mainExecutable = Parts(rawValue: 1)
        /// `FragmentPath` and `DropInPaths`.
        public static let unitFiles = Parts(rawValue: 2)
        /// `Environment` (services only).
        public static let environment = Parts(rawValue: 4)
        public static let all: Parts = [.mainExecutable, .unitFiles, .environment]
    }

    /// The program of the first `ExecStart=` command (a service's main executable); nil if there is none.
    public var mainExecutable: String?
    /// `FragmentPath`: the unit file; empty for transient units.
    public var fragmentPath: String
    /// `DropInPaths`: the drop-in files, in the order systemd applies them.
    public var dropInPaths: [String]
    /// `Environment`: the unit's `Environment=` assignments as `NAME=value` (not `EnvironmentFile=`).
    public var environment: [String]

    public init(
        mainExecutable: String? = nil, fragmentPath: String = "", dropInPaths: [String] = [], environment: [String] = []
    ) {
        self.mainExecutable = mainExecutable
        self.fragmentPath = fragmentPath
        self.dropInPaths = dropInPaths
        self.environment = environment
    }
}

extension UnitDetails {
    /// `known` with the `parts` of this read put in.
    func merged(into known: UnitDetails, parts: Parts) -> UnitDetails {
        var merged = known
        if parts.contains(.mainExecutable) { merged.mainExecutable = mainExecutable }
        if parts.contains(.unitFiles) {
            merged.fragmentPath = fragmentPath
            merged.dropInPaths = dropInPaths
        }
        if parts.contains(.environment) { merged.environment = environment }
        return merged
    }
}
