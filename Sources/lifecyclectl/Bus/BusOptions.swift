// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleSystemd

/// Which bus lifecycled is on, for the commands that talk to it over D-Bus.
struct BusOptions: ParsableArguments {
    /// The service manager whose bus lifecycled uses, as with systemctl.
    enum Scope: String, EnumerableFlag {
        case system
        case user

        static func help(for value: Scope) -> ArgumentHelp? {
            switch value {
            case .system: "Talk to the lifecycled of the system (the default)."
            case .user: "Talk to the lifecycled of the calling user (lifecycled --user)."
            }
        }
    }

    @Flag var scope: Scope?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Talk to lifecycled on this D-Bus address, such as unix:path=/run/dbus/system_bus_socket.",
            valueName: "address"
        )
    )
    var busAddress: String?

    func validate() throws {
        if let scope, busAddress != nil {
            throw ValidationError("--\(scope.rawValue) and --bus-address cannot be combined.")
        }
        if let busAddress, busAddress.isEmpty {
            throw ValidationError("The bus address must not be empty.")
        }
    }

    /// The bus to connect to.
    var address: BusAddress {
        if let busAddress { return .address(busAddress) }
        return scope == .user ? .user : .system
    }
}
