// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import LifecycleSystemd

/// One call of lifecycled's Manager interface, decoded: what to ask the daemon.
///
/// Decoding happens on the bus thread, while the message is at hand; what is left is a `Sendable` value that can go
/// to the daemon's actor.
enum ManagerCall: Sendable, Equatable {
    /// `Launch`, `Wake`, `Sleep` or `Track`.
    case event(EventRequest)
    /// `GetUnit`.
    case unit(String)
    /// `ListUnits`.
    case listUnits
    /// `GetStatus`.
    case status

    /// Reads the arguments of a call of `method`.
    ///
    /// - Throws: ``ManagerError`` `InvalidArgument` when the call's signature is not the method's.
    init(_ method: ManagerMethod, from message: BusMessage) throws(ManagerError) {
        let signature = message.signature
        guard signature == method.inputSignature else { throw .wrongSignature(method, got: signature) }
        do throws(SystemdError) {
            switch method {
            case .launch, .wake, .sleep:
                let unit = try message.readString()
                let data = try [String: String](from: message)
                let event: LifecycleEvent = method == .launch ? .launch : method == .wake ? .wake : .sleep
                let request = EventRequest(unit: unit, event: .lifecycle(event), data: data.mapValues(JSONValue.string))
                self = .event(request)
            case .track:
                let unit = try message.readString()
                let name = try message.readString()
                let data = try [String: String](from: message)
                self = .event(EventRequest(unit: unit, event: .custom(name), data: data.mapValues(JSONValue.string)))
            case .getUnit:
                self = .unit(try message.readString())
            case .listUnits:
                self = .listUnits
            case .getStatus:
                self = .status
            }
        } catch {
            // The signature matched, so this is a message sd-bus itself would not have accepted.
            throw ManagerError(name: ManagerError.invalidArgument, message: "\(error.description).")
        }
    }

    /// Asks the daemon and turns its answer into the reply, off the bus thread (encoding every record may take a
    /// while on a machine with thousands of units).
    func answer(from requests: any LifecycleRequests) async -> ManagerReply {
        switch self {
        case .event(let request):
            switch await requests.send(request) {
            case .success(let sequence): return .sequence(sequence)
            case .failure(let error): return .failure(ManagerError(error, refusing: request))
            }
        case .unit(let unit):
            if let reason = UnitTracker.invalidUnitNameReason(unit) {
                return .failure(ManagerError(name: ManagerError.invalidArgument, message: reason))
            }
            guard let record = await requests.record(of: unit) else {
                return .failure(ManagerError(
                    name: ManagerError.unknownUnit,
                    message: "Unit \(unit) has no lifecycle state (not watched, or no event recorded yet)."
                ))
            }
            // The state files' coded form, with sorted keys, on one line.
            return .text(record.compactJSON)
        case .listUnits:
            return .text(UnitRecord.compactJSON(await requests.records()))
        case .status:
            var writer = JSONWriter()
            writer.value(.object(["degraded": await requests.degradations().json]))
            return .text(writer.string)
        }
    }
}

/// What lifecycled answers to one call of its Manager interface.
enum ManagerReply: Sendable, Equatable {
    /// `t sequence` of `Launch`, `Wake`, `Sleep` and `Track`.
    case sequence(UInt64)
    /// The `s` of `GetUnit` and `ListUnits` (JSON) or of `Introspect` (XML).
    case text(String)
    /// An error reply.
    case failure(ManagerError)

    /// The reply message to `call`.
    func message(replyingTo call: BusMessage) throws(SystemdError) -> BusMessage {
        switch self {
        case .sequence(let sequence):
            let reply = try call.makeReturn()
            try reply.append(sequence)
            return reply
        case .text(let text):
            let reply = try call.makeReturn()
            try reply.append(text)
            return reply
        case .failure(let error):
            return try call.makeError(name: error.name, message: error.message)
        }
    }
}
