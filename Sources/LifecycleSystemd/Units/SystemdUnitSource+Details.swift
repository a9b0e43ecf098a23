// SPDX-License-Identifier: Apache-2.0

import Glibc

extension SystemdUnitSource {
    /// Reads what version detection needs about one run of a watched unit, while that run's unit is loaded.
    ///
    /// Reads `FragmentPath` and `DropInPaths` (`.Unit`), and for services `ExecStart` and `Environment` (`.Service`),
    /// with `org.freedesktop.DBus.Properties.Get`, all sent before any reply is awaited: one round trip.
    ///
    /// The answer is kept until PID 1 loads the unit again (`UnitRemoved`, a reload, a new bus owner), so a unit that
    /// starts again makes no call: the round trip waited in PID 1 behind whatever job came next, and was most of the
    /// time from a start to its dispatch. These properties come from the unit's files and change only when the unit
    /// is loaded. The one exception, a drop-in written by `systemctl set-property` for resource settings, reaches
    /// the `unit_file` version at the next reload.
    ///
    /// The reads address the unit by its run's invocation ID (`/org/freedesktop/systemd1/unit/<32 hex digits>`), not
    /// by its name. PID 1 resolves such a path among its loaded units only: when the run's unit was garbage-collected
    /// it answers `NoUnitForInvocationID`, where a read by name would load the unit again (and PID 1 would collect it
    /// once more). Short-lived transient units are usually collected before their start is handled. It also means
    /// the details are those of this run, never of a later run of the same name. Units the source has seen removed
    /// (`UnitRemoved`) are refused without a call.
    ///
    /// - Parameters:
    ///   - unit: The unit name, e.g. `nginx.service`.
    ///   - invocationID: The run's invocation ID, 32 lower-case hex digits.
    /// - Returns: The details.
    /// - Throws: ``SystemdError`` with `ENOENT` if the unit is not watched and loaded or the run's unit is gone, else
    ///   the first read's error.
    public func details(of unit: String, invocationID: String) async throws(SystemdError) -> UnitDetails {
        let operation = "read the details of \(unit)"
        guard units[unit] != nil, Self.isInvocationID(invocationID) else {
            throw SystemdError(
                errno: ENOENT, operation: operation, busErrorName: "org.freedesktop.systemd1.NoSuchUnit",
                message: "Unit \(unit) is not loaded or not watched, or run \(invocationID) is unknown"
            )
        }
        if let known = details[unit] { return known }
        guard let connection, isEstablished else {
            throw SystemdError(errno: ENOTCONN, operation: operation, message: "Not connected to the \(address)")
        }
        let read = try await readDetails(of: [(unit, invocationID)], on: connection)
        guard let result = read[unit] else {
            throw SystemdError(errno: EIO, operation: operation, message: "No reply")
        }
        return try result.get()
    }

    /// Reads, in one pipelined batch, the definitions of watched units whose runs are about to be recorded and that
    /// are not known yet, so that each run's ``details(of:invocationID:)`` finds it: the first start with a thousand
    /// running units made a thousand round trips one after the other. Failures are left for that call to report.
    public func prefetchDetails(of runs: [(unit: String, invocationID: String)]) async {
        let wanted = runs.filter { units[$0.unit] != nil && details[$0.unit] == nil && Self.isInvocationID($0.invocationID) }
        guard !wanted.isEmpty, let connection, isEstablished else { return }
        _ = try? await readDetails(of: wanted, on: connection)
    }

    /// Reads the definitions of `runs`' units by their invocation IDs, all pipelined; keeps each that was read.
    private func readDetails(
        of runs: [(unit: String, invocationID: String)], on connection: BusConnection
    ) async throws(SystemdError) -> [String: Result<UnitDetails, SystemdError>] {
        let epoch = detailsEpoch
        var reads: [PropertyRead] = []
        var expected: [String: Int] = [:]
        for (unit, invocationID) in runs where expected[unit] == nil {
            let path = SystemdNames.unitPathPrefix + "/" + invocationID
            let names = SystemdNames.typeInterface(forUnit: unit) == SystemdNames.serviceInterface
                ? [(SystemdNames.unitInterface, "FragmentPath"), (SystemdNames.unitInterface, "DropInPaths"),
                   (SystemdNames.serviceInterface, "ExecStart"), (SystemdNames.serviceInterface, "Environment")]
                : [(SystemdNames.unitInterface, "FragmentPath"), (SystemdNames.unitInterface, "DropInPaths")]
            reads += names.map { PropertyRead(unit: unit, path: path, interface: $0.0, name: $0.1) }
            expected[unit] = names.count
        }
        // Each unit is parsed as soon as its last reply is in, so that no more than a window of replies is held.
        var replies: [String: [String: Result<BusMessage, SystemdError>]] = [:]
        var results: [String: Result<UnitDetails, SystemdError>] = [:]
        try await get(reads, on: connection) { read, result in
            replies[read.unit, default: [:]][read.name] = result
            guard let answered = replies[read.unit], answered.count == expected[read.unit] else { return }
            replies[read.unit] = nil
            results[read.unit] = Result { () throws(SystemdError) in try Self.parseDetails(of: read.unit, answered) }
        }
        for (unit, result) in results {
            if case .success(let read) = result, epoch == detailsEpoch, units[unit] != nil { details[unit] = read }
        }
        return results
    }

    /// A unit's definition from the replies to its reads, by property name.
    private static func parseDetails(
        of unit: String, _ replies: [String: Result<BusMessage, SystemdError>]
    ) throws(SystemdError) -> UnitDetails {
        let operation = "read the details of \(unit)"
        func reply(_ name: String) throws(SystemdError) -> BusMessage {
            guard let result = replies[name] else {
                throw SystemdError(errno: EIO, operation: operation, message: "No reply for \(name)")
            }
            do {
                return try result.get()
            } catch where error.busErrorName == SystemdNames.noUnitForInvocationID {
                throw SystemdError(
                    errno: ENOENT, operation: operation, busErrorName: error.busErrorName, message: error.message
                )
            }
        }
        let fragmentPath = try reply("FragmentPath").readVariant(String.self)
        let dropInPaths = try reply("DropInPaths").readVariant([String].self)
        guard replies["ExecStart"] != nil else {
            return UnitDetails(mainExecutable: nil, fragmentPath: fragmentPath, dropInPaths: dropInPaths, environment: [])
        }
        return UnitDetails(
            mainExecutable: try readMainExecutable(try reply("ExecStart")), fragmentPath: fragmentPath,
            dropInPaths: dropInPaths, environment: try reply("Environment").readVariant([String].self)
        )
    }

    /// Forgets what was read of `unit`'s definition, or of every unit's.
    func forgetDetails(of unit: String? = nil) {
        if let unit { details[unit] = nil } else { details = [:] }
        detailsEpoch += 1
    }

    /// An invocation ID as the source keeps it: 32 lower-case hex digits, and so a valid object path element.
    static func isInvocationID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
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
