// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage
import LifecycleSystemd

/// Command-line choices that override the configuration file.
public struct DaemonOptions: Sendable {
    /// The configuration file; nil for `/etc/lifecycled/lifecycled.json` (missing means all defaults).
    public var configPath: String?
    /// The state directory; nil for the configuration's `state_directory`.
    public var stateDirectory: String?
    /// The bus; nil for the configuration's `bus`.
    public var bus: BusAddress?

    public init(configPath: String? = nil, stateDirectory: String? = nil, bus: BusAddress? = nil) {
        self.configPath = configPath
        self.stateDirectory = stateDirectory
        self.bus = bus
    }

    /// Where state files live: the rule lifecyclectl follows too (the option, else the configuration's).
    func stateDirectory(_ configuration: LifecycleConfiguration) -> String {
        StateDirectory.resolve(option: stateDirectory, configuration: configuration)
    }

    func bus(_ configuration: LifecycleConfiguration) -> BusAddress {
        if let bus { return bus }
        switch configuration.bus {
        case .system: return .system
        case .user: return .user
        }
    }
}
