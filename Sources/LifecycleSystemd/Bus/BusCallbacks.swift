// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

// sd-bus calls back into Swift through C function pointers with a `void *userdata`. Each registration passes a
// retained box as userdata and sets the slot's destroy callback to release it, so a box lives exactly as long as its
// slot. Slots are floating (owned by the bus), so closing the bus frees them all, and with them the boxes.

/// What a pending method call does with its reply; completed exactly once.
final class PendingCallBox {
    let operation: String
    private var completion: ((sending Result<BusMessage, SystemdError>) -> Void)?

    init(operation: String, completion: @escaping (sending Result<BusMessage, SystemdError>) -> Void) {
        self.operation = operation
        self.completion = completion
    }

    func complete(_ result: sending Result<BusMessage, SystemdError>) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }
}

/// The handler of a match, and the callback for the `AddMatch()` reply.
final class MatchBox {
    let rule: String
    let handler: (sending BusMessage) -> Void
    var installed: ((SystemdError?) -> Void)?

    init(rule: String, handler: @escaping (sending BusMessage) -> Void, installed: @escaping (SystemdError?) -> Void) {
        self.rule = rule
        self.handler = handler
        self.installed = installed
    }

    func finishInstall(_ error: SystemdError?) {
        guard let installed else { return }
        self.installed = nil
        installed(error)
    }
}

/// The handler of an exported object path.
final class ObjectBox {
    let handler: (BusMessage) throws(SystemdError) -> Bool

    init(handler: @escaping (BusMessage) throws(SystemdError) -> Bool) {
        self.handler = handler
    }
}

enum BusCallbacks {
    /// Wraps the reply (or the synthetic error sd-bus makes on timeout or disconnect) of `sd_bus_call_async(3)`.
    static let reply: sd_bus_message_handler_t = { message, userdata, _ in
        let box = Unmanaged<PendingCallBox>.fromOpaque(userdata!).takeUnretainedValue()
        guard let message else {
            box.complete(.failure(SystemdError(errno: EIO, operation: box.operation, message: "No reply message")))
            return 0
        }
        if let error = sd_bus_message_get_error(message) {
            box.complete(.failure(SystemdError(busError: error, operation: box.operation)))
        } else {
            box.complete(.success(BusMessage(referencing: UInt(bitPattern: message))))
        }
        return 0
    }

    static let releasePendingCall: sd_bus_destroy_t = { userdata in
        let box = Unmanaged<PendingCallBox>.fromOpaque(userdata!).takeRetainedValue()
        // Only reached with the completion still set when the bus was freed before any reply came.
        box.complete(.failure(SystemdError(
            errno: ECONNRESET, operation: box.operation, message: "The connection was closed before a reply arrived"
        )))
    }

    static let match: sd_bus_message_handler_t = { message, userdata, _ in
        let box = Unmanaged<MatchBox>.fromOpaque(userdata!).takeUnretainedValue()
        if let message {
            box.handler(BusMessage(referencing: UInt(bitPattern: message)))
        }
        return 0  // let other matches see it too
    }

    static let matchInstalled: sd_bus_message_handler_t = { message, userdata, _ in
        let box = Unmanaged<MatchBox>.fromOpaque(userdata!).takeUnretainedValue()
        if let message, let error = sd_bus_message_get_error(message) {
            box.finishInstall(SystemdError(busError: error, operation: "add match \(box.rule)"))
        } else {
            box.finishInstall(nil)
        }
        return 0
    }

    static let releaseMatch: sd_bus_destroy_t = { userdata in
        let box = Unmanaged<MatchBox>.fromOpaque(userdata!).takeRetainedValue()
        box.finishInstall(SystemdError(
            errno: ECONNRESET, operation: "add match \(box.rule)", message: "The connection was closed"
        ))
    }

    static let object: sd_bus_message_handler_t = { message, userdata, retError in
        let box = Unmanaged<ObjectBox>.fromOpaque(userdata!).takeUnretainedValue()
        guard let message else { return 0 }
        do throws(SystemdError) {
            return try box.handler(BusMessage(borrowing: message)) ? 1 : 0
        } catch {
            // sd-bus turns a negative return plus a set error into an error reply to the caller.
            if let name = error.busErrorName {
                sd_bus_error_set(retError, name, error.message ?? error.description)
            }
            return -error.errno
        }
    }

    static let releaseObject: sd_bus_destroy_t = { userdata in
        Unmanaged<ObjectBox>.fromOpaque(userdata!).release()
    }

    /// Gives a freshly created slot to the bus (floating) with `destroy` as its destroy callback.
    ///
    /// Wraps `sd_bus_slot_set_destroy_callback(3)` and `sd_bus_slot_set_floating(3)`.
    static func makeFloating(_ slot: OpaquePointer, destroy: sd_bus_destroy_t) throws(SystemdError) {
        defer { sd_bus_slot_unref(slot) }
        try check(sd_bus_slot_set_destroy_callback(slot, destroy), "set a slot's destroy callback")
        try check(sd_bus_slot_set_floating(slot, 1), "hand a slot to its bus")
    }
}
