// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Glibc
import LifecycleEngine
import LifecycleSystemd

/// The client side of lifecycled's D-Bus interface (`org.lifecycled.Lifecycle1.Manager`, documented with the daemon's
/// `ManagerInterface`): one call per run of lifecyclectl, on a connection of its own.
struct ManagerClient {
    static let busName = LifecycleBusNames.busName
    static let objectPath = LifecycleBusNames.objectPath
    static let interface = LifecycleBusNames.interface

    /// The bus lifecycled is on.
    var address: BusAddress

    /// Sends a manual event (`Launch`, `Wake`, `Sleep`: `event` nil) or a custom event (`Track`).
    ///
    /// - Parameters:
    ///   - method: `Launch`, `Wake`, `Sleep` or `Track`.
    ///   - unit: The full unit name.
    ///   - event: The custom event's name, for `Track` only.
    ///   - data: The caller's data, each value a string.
    /// - Returns: The dispatch's sequence number; 0 when the event was counted but is not dispatched.
    /// - Throws: ``CallFailure`` with the message and exit status to report.
    func send(_ method: String, unit: String, event: String?, data: [String: String]) async throws(CallFailure)
        -> UInt64
    {
        try await call(method) { message throws(SystemdError) in
            try message.append(unit)
            if let event { try message.append(event) }
            try message.append(data)
        } decode: { reply throws(SystemdError) in
            try UInt64(from: reply)
        }
    }

    /// The units lifecycled has a record of (`ListUnits`), for "did you mean" hints; empty when they cannot be had.
    func unitNames() async -> [String] {
        let json = try? await call("ListUnits") { _ throws(SystemdError) in } decode: { reply throws(SystemdError) in
            try String(from: reply)
        }
        guard let json, case .array(let records)? = try? JSONParser.parse(Array(json.utf8)) else { return [] }
        return records.compactMap { record in
            if case .string(let unit)? = record.objectValue?["unit"] { return unit }
            return nil
        }
    }

    /// What the running lifecycled says is degraded (`GetStatus`), waiting at most `timeout`; nil when it cannot be
    /// asked (no bus, a lifecycled before `GetStatus`, or one that holds calls while it recovers).
    func degradations(timeout: Duration) async -> [DaemonDegradation]? {
        let json = try? await call("GetStatus", timeout: timeout) { _ throws(SystemdError) in } decode: {
            reply throws(SystemdError) in try String(from: reply)
        }
        return json.flatMap(DaemonDegradation.parse)
    }

    private func call<T: Sendable>(
        _ method: String,
        timeout: Duration? = nil,
        arguments: @escaping @Sendable (BusMessage) throws(SystemdError) -> Void,
        decode: @escaping @Sendable (BusMessage) throws(SystemdError) -> T
    ) async throws(CallFailure) -> T {
        let bus: SystemdBus
        do {
            bus = try await SystemdBus.connect(address, description: "lifecyclectl")
        } catch {
            throw CallFailure(error, bus: address)
        }
        let result: Result<T, SystemdError>
        do throws(SystemdError) {
            result = .success(try await bus.call(
                destination: Self.busName, path: Self.objectPath, interface: Self.interface, member: method,
                timeout: timeout, arguments: arguments, decode: decode
            ))
        } catch {
            result = .failure(error)
        }
        await bus.close()
        do {
            return try result.get()
        } catch {
            throw CallFailure(error, bus: address)
        }
    }
}

/// A failed call to lifecycled, as lifecyclectl reports it: one line for standard error and systemctl's exit status.
struct CallFailure: Error, Equatable {
    /// What was wrong, a sentence without the `lifecyclectl: ` prefix.
    var message: String
    /// 1, or 4 when lifecycled does not know the unit.
    var exitCode: ExitCode

    /// Words the bus error `error` for the user.
    ///
    /// The daemon's own errors keep its message; the bus daemon's are replaced by what they mean here (its
    /// AccessDenied message quotes the policy rule, which helps nobody).
    init(_ error: SystemdError, bus: BusAddress) {
        exitCode = .failure
        switch error.busErrorName {
        case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
            message = "lifecycled is not running (\(ManagerClient.busName) is not on the \(bus))."
        case "org.freedesktop.DBus.Error.AccessDenied":
            message = "Permission denied: only root may send events."
        case LifecycleBusNames.ErrorName.unknownUnit:
            message = error.message ?? "Unknown unit."
            exitCode = ExitCode(4)
        case let name? where name.hasPrefix(LifecycleBusNames.ErrorName.prefix):
            message = error.message ?? name
        case "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownObject",
            "org.freedesktop.DBus.Error.UnknownInterface":
            let reason = error.message ?? error.errnoDescription
            message = "The running lifecycled does not support this request (\(reason))."
        case _ where error.busErrorName == nil && [ENOENT, ECONNREFUSED, EACCES].contains(error.errno):
            message = "Failed to connect to the \(bus): \(error.errnoDescription)."
        default:
            message = error.description.hasSuffix(".") ? error.description : error.description + "."
        }
    }
}
