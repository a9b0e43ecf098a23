// SPDX-License-Identifier: Apache-2.0

import Glibc

extension SystemdUnitSource {
    /// Reads what version detection needs about a watched unit that is loaded right now.
    ///
    /// Reads `FragmentPath` and `DropInPaths` (`.Unit`), and for services `ExecStart` and `Environment` (`.Service`),
    /// with `org.freedesktop.DBus.Properties.Get`, all sent before any reply is awaited: one round trip. Refuses units
    /// it has not seen loaded, or has seen removed since (`UnitRemoved`): reading an unloaded unit's properties would
    /// load it again. (A unit garbage-collected whose `UnitRemoved` is still on its way is loaded once more by the
    /// reads; that is one `UnitNew`/`UnitRemoved` pair, not a loop, since the source ignores `UnitNew`.)
    ///
    /// - Parameter unit: The unit name, e.g. `nginx.service`.
    /// - Returns: The details.
    /// - Throws: ``SystemdError`` with `ENOENT` if the unit is not watched and loaded, else the first read's error.
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
        let isService = SystemdNames.typeInterface(forUnit: unit) == SystemdNames.serviceInterface
        var reads = ["FragmentPath", "DropInPaths"].map {
            PropertyRead(unit: unit, path: path, interface: SystemdNames.unitInterface, name: $0)
        }
        if isService {
            reads += ["ExecStart", "Environment"].map {
                PropertyRead(unit: unit, path: path, interface: SystemdNames.serviceInterface, name: $0)
            }
        }
        var replies: [String: Result<BusMessage, SystemdError>] = [:]
        try await get(reads, on: connection) { read, result in replies[read.name] = result }
        func reply(_ name: String) throws(SystemdError) -> BusMessage {
            guard let result = replies[name] else {
                throw SystemdError(errno: EIO, operation: operation, message: "No reply for \(name)")
            }
            return try result.get()
        }
        let fragmentPath = try reply("FragmentPath").readVariant(String.self)
        let dropInPaths = try reply("DropInPaths").readVariant([String].self)
        guard isService else {
            return UnitDetails(
                mainExecutable: nil, fragmentPath: fragmentPath, dropInPaths: dropInPaths, environment: []
            )
        }
        let executable = try Self.readMainExecutable(try reply("ExecStart"))
        let environment = try reply("Environment").readVariant([String].self)
        return UnitDetails(
            mainExecutable: executable, fragmentPath: fragmentPath, dropInPaths: dropInPaths, environment: environment
        )
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
