// SPDX-License-Identifier: Apache-2.0

/// The names of systemd's D-Bus API (`org.freedesktop.systemd1(5)`) and the match rules that follow it.
enum SystemdNames {
    static let busName = "org.freedesktop.systemd1"
    static let managerPath = "/org/freedesktop/systemd1"
    static let managerInterface = "org.freedesktop.systemd1.Manager"
    static let unitInterface = "org.freedesktop.systemd1.Unit"
    static let serviceInterface = "org.freedesktop.systemd1.Service"
    /// Unit objects live at `<prefix>/<escaped unit name>`, and a loaded unit's current run also at
    /// `<prefix>/<invocation ID>`.
    static let unitPathPrefix = "/org/freedesktop/systemd1/unit"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let alreadySubscribed = "org.freedesktop.systemd1.AlreadySubscribed"
    /// PID 1's answer to a call on `<prefix>/<invocation ID>` when no loaded unit has that run.
    static let noUnitForInvocationID = "org.freedesktop.systemd1.NoUnitForInvocationID"

    static let dbusName = "org.freedesktop.DBus"
    static let dbusPath = "/org/freedesktop/DBus"
    static let dbusInterface = "org.freedesktop.DBus"

    /// The type interface (`org.freedesktop.systemd1.Service`, `.Socket`, …) of a unit, from its suffix; nil for
    /// types whose interface carries none of the values a snapshot needs (device, target, slice).
    static func typeInterface(forUnit name: String) -> String? {
        guard let dot = name.lastIndex(of: ".") else { return nil }
        switch name[name.index(after: dot)...] {
        case "service": return serviceInterface
        case "socket": return "org.freedesktop.systemd1.Socket"
        case "mount": return "org.freedesktop.systemd1.Mount"
        case "swap": return "org.freedesktop.systemd1.Swap"
        case "timer": return "org.freedesktop.systemd1.Timer"
        case "path": return "org.freedesktop.systemd1.Path"
        case "automount": return "org.freedesktop.systemd1.Automount"
        case "scope": return "org.freedesktop.systemd1.Scope"
        default: return nil
        }
    }

    /// The rules the unit source installs, before it calls `Subscribe()`.
    ///
    /// Senders are the well-known name, never a cached unique name: PID 1 comes back under a new unique name after
    /// the bus daemon restarts, and the bus daemon applies a well-known sender to whoever owns it at the time.
    static let matchRules: [String] = [
        // Every unit's PropertiesChanged: the type interface's first, then org.freedesktop.systemd1.Unit.
        "type='signal',sender='\(busName)',path_namespace='\(unitPathPrefix)',"
            + "interface='\(propertiesInterface)',member='PropertiesChanged'",
        "type='signal',sender='\(busName)',path='\(managerPath)',interface='\(managerInterface)',member='UnitRemoved'",
        "type='signal',sender='\(busName)',path='\(managerPath)',interface='\(managerInterface)',member='JobRemoved'",
        "type='signal',sender='\(busName)',path='\(managerPath)',interface='\(managerInterface)',member='Reloading'",
        // PID 1 leaving or rejoining the bus: it forgets every Subscribe() when it does.
        "type='signal',sender='\(dbusName)',path='\(dbusPath)',interface='\(dbusInterface)',"
            + "member='NameOwnerChanged',arg0='\(busName)'",
    ]
}
