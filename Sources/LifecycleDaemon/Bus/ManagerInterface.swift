// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd

/// lifecycled's D-Bus interface, in systemd's versioned style: the names, the methods and their signatures.
///
/// | method | in | out |
/// |---|---|---|
/// | `Launch`, `Wake`, `Sleep` | `s unit, a{ss} data` | `t sequence` |
/// | `Track` | `s unit, s event, a{ss} data` | `t sequence` |
/// | `GetUnit` | `s unit` | `s json` |
/// | `ListUnits` | | `s json` |
/// | `GetStatus` | | `s json` |
///
/// `sequence` is the unit's dispatch number (0 when the event was counted but is not in `tracked_lifecycle_events`);
/// `json` is a unit record as in its state file, or an array of them; for `GetStatus`, lifecycled's own state:
/// `{"degraded": [{"what": "state_directory", "since": "2026-03-01T10:00:00Z", "reason": "cannot write …"}]}`, empty
/// while nothing is degraded. Errors are ``ManagerError``s.
public enum ManagerInterface {
    /// The well-known bus name lifecycled owns.
    public static let busName = LifecycleBusNames.busName
    /// The one object lifecycled exports.
    public static let objectPath = LifecycleBusNames.objectPath
    /// The interface of that object.
    public static let name = LifecycleBusNames.interface

    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let peer = "org.freedesktop.DBus.Peer"

    /// The introspection data of ``objectPath``, as `org.freedesktop.DBus.Introspectable.Introspect` returns it.
    public static let introspectionXML: String = {
        var xml = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>
             <interface name="\(peer)">
              <method name="Ping"/>
              <method name="GetMachineId">
               <arg type="s" name="machine_uuid" direction="out"/>
              </method>
             </interface>
             <interface name="\(introspectable)">
              <method name="Introspect">
               <arg type="s" name="xml_data" direction="out"/>
              </method>
             </interface>
             <interface name="\(name)">

            """
        for method in ManagerMethod.allCases {
            xml += "  <method name=\"\(method.rawValue)\">\n"
            for (argument, type) in method.inputs {
                xml += "   <arg type=\"\(type)\" name=\"\(argument)\" direction=\"in\"/>\n"
            }
            xml += "   <arg type=\"\(method.output.type)\" name=\"\(method.output.name)\" direction=\"out\"/>\n"
            xml += "  </method>\n"
        }
        return xml + " </interface>\n</node>\n"
    }()
}

/// A method of ``ManagerInterface``.
public enum ManagerMethod: String, Sendable, CaseIterable {
    case launch = "Launch"
    case wake = "Wake"
    case sleep = "Sleep"
    case track = "Track"
    case getUnit = "GetUnit"
    case listUnits = "ListUnits"
    case getStatus = "GetStatus"

    /// The input arguments, names and D-Bus types, in order.
    public var inputs: [(name: String, type: String)] {
        switch self {
        case .launch, .wake, .sleep: [("unit", "s"), ("data", "a{ss}")]
        case .track: [("unit", "s"), ("event", "s"), ("data", "a{ss}")]
        case .getUnit: [("unit", "s")]
        case .listUnits, .getStatus: []
        }
    }

    /// The signature a call must have, e.g. `sa{ss}`.
    public var inputSignature: String {
        inputs.map(\.type).joined()
    }

    /// The one output argument.
    public var output: (name: String, type: String) {
        switch self {
        case .launch, .wake, .sleep, .track: ("sequence", "t")
        case .getUnit, .listUnits, .getStatus: ("json", "s")
        }
    }
}
