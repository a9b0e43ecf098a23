// SPDX-License-Identifier: Apache-2.0

/// Which D-Bus bus to connect to.
public enum BusAddress: Sendable, Hashable, CustomStringConvertible {
    /// The system bus (`$DBUS_SYSTEM_BUS_ADDRESS`, else `/run/dbus/system_bus_socket`), where PID 1 lives.
    case system
    /// The calling user's bus (`$DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`), where the user manager lives.
    case user
    /// An explicit D-Bus address such as `unix:path=/run/dbus/system_bus_socket`; tests use a private bus this way.
    case address(String)

    public var description: String {
        switch self {
        case .system: "system bus"
        case .user: "user bus"
        case .address(let address): "bus at \(address)"
        }
    }
}
