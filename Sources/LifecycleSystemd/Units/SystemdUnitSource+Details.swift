// SPDX-License-Identifier: Apache-2.0

import Glibc

extension SystemdUnitSource {
    /// Reads what version detection needs about a watched unit that is loaded right now.
    ///
    /// Reads `FragmentPath` and `DropInPaths` (`.Unit`), and for services `ExecStart` and `Environment` (`.Service`),
    /// with `org.freedesktop.DBus.Properties.Get`. Refuses units it has not seen loaded: reading an unloaded unit's
    /// properties would load it. (A unit garbage-collected between its last signal and this call is loaded once
    /// more by it; that is one `UnitNew`/`UnitRemoved` pair, not a loop, since the source ignores `UnitNew`.)
    ///
    /// - Parameter unit: The unit name, e.g. `nginx.service`.
    /// - Returns: The details.
    /// - Throws: ``SystemdError`` with `ENOENT` if the unit is not watched and loaded, else the bus error.
    public func details(of unit: String) async throws(SystemdError) -> UnitDetails {
        let operation = "read the details of \(unit)"
        guard units[unit] != nil else {
            throw SystemdError(
                errno: ENOENT, operation: operation, busErrorName: "org.freedesktop.systemd1.NoSuchUnit",
                message: "Unit \(unit) is not loaded or not watched"
            )
        }
        guard let connection, isEstablished else {
            throw SystemdError(errno: ENOTCONN, operation: operation, message: "Not connected to the \(address)")
        }
        let path = try BusObjectPath.encode(prefix: SystemdNames.unitPathPrefix, externalID: unit).rawValue
        let fragmentPath = try await property(SystemdNames.unitInterface, "FragmentPath", of: path, on: connection) {
            message throws(SystemdError) in try message.readVariant(String.self)
        }
        let dropInPaths = try await property(SystemdNames.unitInterface, "DropInPaths", of: path, on: connection) {
            message throws(SystemdError) in try message.readVariant([String].self)
        }
        guard SystemdNames.typeInterface(forUnit: unit) == SystemdNames.serviceInterface else {
            return UnitDetails(
                mainExecutable: nil, fragmentPath: fragmentPath, dropInPaths: dropInPaths, environment: []
            )
        }
        let executable = try await property(SystemdNames.serviceInterface, "ExecStart", of: path, on: connection) {
            message throws(SystemdError) in try Self.readMainExecutable(message)
        }
        let environment = try await property(SystemdNames.serviceInterface, "Environment", of: path, on: connection) {
            message throws(SystemdError) in try message.readVariant([String].self)
        }
        return UnitDetails(
            mainExecutable: executable, fragmentPath: fragmentPath, dropInPaths: dropInPaths, environment: environment
        )
    }

    /// Calls `org.freedesktop.DBus.Properties.Get(interface, name)` and decodes the variant it returns.
    private func property<T>(
        _ interface: String,
        _ name: String,
        of path: String,
        on connection: BusConnection,
        decode: (BusMessage) throws(SystemdError) -> T
    ) async throws(SystemdError) -> T {
        let call = try connection.newMethodCall(
            destination: SystemdNames.busName, path: path, interface: SystemdNames.propertiesInterface, member: "Get"
        )
        try call.append(interface)
        try call.append(name)
        let reply = try await connection.call(call)
        return try decode(reply)
    }

    /// `ExecStart` is `a(sasbttttuii)`: per command (path, argv, ignore errors, start/exit timestamps (4 × t), pid,
    /// code, status). The main executable is the first command's path.
    static func readMainExecutable(_ message: BusMessage) throws(SystemdError) -> String? {
        let signature = "(sasbttttuii)"
        let paths = try message.readContainer(.variant, "a" + signature) { variant throws(SystemdError) in
            try variant.readArray(signature) { array throws(SystemdError) in
                try array.readContainer(.structure, "sasbttttuii") { command throws(SystemdError) in
                    let path = try command.readString()
                    try command.skip("asbttttuii")
                    return path
                }
            }
        }
        return paths.first
    }
}
