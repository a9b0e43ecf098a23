// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage
import LifecycleSystemd

/// Command-line choices that override the configuration file.
public struct DaemonOptions: Sendable {
    /// The configuration file; nil for `/etc/lifecycled/lifecycled.json` (missing means all defaults).
    public var configPath: String?
    /// The state directory; nil for `$STATE_DIRECTORY` (set by systemd's `StateDirectory=`), else the configuration's.
    public var stateDirectory: String?
    /// The bus; nil for the configuration's `bus`.
    public var bus: BusAddress?

    public init(configPath: String? = nil, stateDirectory: String? = nil, bus: BusAddress? = nil) {
        self.configPath = configPath
        self.stateDirectory = stateDirectory
        self.bus = bus
    }

    /// Where state files live: the option, else systemd's `$STATE_DIRECTORY` (its first entry), else the configuration.
    func stateDirectory(_ configuration: LifecycleConfiguration) -> String {
        if let stateDirectory { return stateDirectory }
        if let fromSystemd = ProcessInfo.processInfo.environment["STATE_DIRECTORY"]?.split(separator: ":").first {
            return String(fromSystemd)
        }
        return configuration.stateDirectory
    }

    func bus(_ configuration: LifecycleConfiguration) -> BusAddress {
        if let bus { return bus }
        switch configuration.bus {
        case .system: return .system
        case .user: return .user
        }
    }
}
