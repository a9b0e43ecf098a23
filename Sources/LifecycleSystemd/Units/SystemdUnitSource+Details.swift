// SPDX-License-Identifier: Apache-2.0

import Glibc

extension SystemdUnitSource {
    /// Reads what version detection needs about one run of a watched unit, while that run's unit is loaded.
    ///
    /// Reads only the `parts` asked for: `ExecStart` (services), `FragmentPath` and `DropInPaths`, `Environment`
    /// (services), with `org.freedesktop.DBus.Properties.Get`, all sent before any reply is awaited: one round trip.
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
    /// the details never come from a later load of the unit than this run's. Units the source has seen removed
    /// (`UnitRemoved`) are refused without a call.
    ///
    /// - Parameters:
    ///   - unit: The unit name, e.g. `nginx.service`.
    ///   - invocationID: The run's invocation ID, 32 lower-case hex digits.
    ///   - parts: What to read.
    /// - Returns: The details, with the `parts` asked for filled in.
    /// - Throws: ``SystemdError`` with `ENOENT` if the unit is not watched and loaded or the run's unit is gone, else
    ///   the first read's error.
    public func details(
        of unit: String, invocationID: String, reading parts: UnitDetails.Parts = .all
    ) async throws(SystemdError) -> UnitDetails {
        let operation = "read the details of \(unit)"
        guard machine.isLoaded(unit), Self.isInvocationID(invocationID) else {
            throw SystemdError(
                errno: ENOENT, operation: operation, busErrorName: "org.freedesktop.systemd1.NoSuchUnit",
                message: "Unit \(unit) is not loaded or not watched, or run \(invocationID) is unknown"
            )
        }
        if let known = details[unit], known.parts.isSuperset(of: parts) { return known.details }
        guard let connection, machine.isEstablished else {
            throw SystemdError(errno: ENOTCONN, operation: operation, message: "Not connected to the \(address)")
        }
        let missing = parts.subtracting(details[unit]?.parts ?? [])
        let read = try await readDetails(of: [(unit, invocationID, missing)], on: connection)
        guard let result = read[unit] else {
            throw SystemdError(errno: EIO, operation: operation, message: "No reply")
        }
        return try result.get()
    }

    /// Reads, in one pipelined batch, the definitions of watched units whose runs are about to be recorded and that
    /// are not known yet, so that each run's ``details(of:invocationID:reading:)`` finds it: the first start with a
    /// thousand running units made a thousand round trips one after the other. Failures are left for that call to
    /// report.
    public func prefetchDetails(of runs: [(unit: String, invocationID: String, parts: UnitDetails.Parts)]) async {
        let wanted = runs.compactMap { run -> (unit: String, invocationID: String, parts: UnitDetails.Parts)? in
            let missing = run.parts.subtracting(details[run.unit]?.parts ?? [])
            guard machine.isLoaded(run.unit), Self.isInvocationID(run.invocationID), !missing.isEmpty else { return nil }
            return (run.unit, run.invocationID, missing)
        }
        guard !wanted.isEmpty, let connection, machine.isEstablished else { return }
        _ = try? await readDetails(of: wanted, on: connection)
    }

    /// Reads the `parts` of `runs`' units by their invocation IDs, all pipelined; keeps each that was read, with what
    /// was known before.
    private func readDetails(
        of runs: [(unit: String, invocationID: String, parts: UnitDetails.Parts)], on connection: BusConnection
    ) async throws(SystemdError) -> [String: Result<UnitDetails, SystemdError>] {
        let epoch = detailsEpoch
        var reads: [PropertyRead] = []
        var expected: [String: (count: Int, parts: UnitDetails.Parts)] = [:]
        var results: [String: Result<UnitDetails, SystemdError>] = [:]
        for (unit, invocationID, parts) in runs where expected[unit] == nil {
            let path = SystemdNames.unitPathPrefix + "/" + invocationID
            let isService = SystemdNames.typeInterface(forUnit: unit) == SystemdNames.serviceInterface
            var names: [(String, String)] = []
            if parts.contains(.unitFiles) {
                names += [(SystemdNames.unitInterface, "FragmentPath"), (SystemdNames.unitInterface, "DropInPaths")]
            }
            if isService, parts.contains(.mainExecutable) { names.append((SystemdNames.serviceInterface, "ExecStart")) }
            if isService, parts.contains(.environment) { names.append((SystemdNames.serviceInterface, "Environment")) }
            reads += names.map { PropertyRead(unit: unit, path: path, interface: $0.0, name: $0.1) }
            expected[unit] = (names.count, parts)
            if names.isEmpty { results[unit] = .success(UnitDetails()) }  // nothing a unit of its type has
        }
        // Each unit is parsed as soon as its last reply is in, so that no more than a window of replies is held.
        var replies: [String: [String: Result<BusMessage, SystemdError>]] = [:]
        try await get(reads, on: connection) { read, result in
            replies[read.unit, default: [:]][read.name] = result
            guard let answered = replies[read.unit], answered.count == expected[read.unit]?.count else { return }
            replies[read.unit] = nil
            results[read.unit] = Result { () throws(SystemdError) in try Self.parseDetails(of: read.unit, answered) }
        }
        for (unit, result) in results {
            guard case .success(let read) = result, let parts = expected[unit]?.parts else { continue }
            let merged = (details[unit]?.details).map { read.merged(into: $0, parts: parts) } ?? read
            if epoch == detailsEpoch, machine.isLoaded(unit) {
                details[unit] = (parts.union(details[unit]?.parts ?? []), merged)
            }
            results[unit] = .success(merged)
        }
        return results
    }

    /// A unit's definition from the replies to its reads, by property name; the parts not read stay empty.
    private static func parseDetails(
        of unit: String, _ replies: [String: Result<BusMessage, SystemdError>]
    ) throws(SystemdError) -> UnitDetails {
        let operation = "read the details of \(unit)"
        func reply(_ name: String) throws(SystemdError) -> BusMessage? {
            guard let result = replies[name] else { return nil }
            do {
                return try result.get()
            } catch where error.busErrorName == SystemdNames.noUnitForInvocationID {
                throw SystemdError(
                    errno: ENOENT, operation: operation, busErrorName: error.busErrorName, message: error.message
                )
            }
        }
        var read = UnitDetails()
        if let message = try reply("FragmentPath") { read.fragmentPath = try message.readVariant(String.self) }
        if let message = try reply("DropInPaths") { read.dropInPaths = try message.readVariant([String].self) }
        if let message = try reply("ExecStart") { read.mainExecutable = try readMainExecutable(message) }
        if let message = try reply("Environment") { read.environment = try message.readVariant([String].self) }
        return read
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
