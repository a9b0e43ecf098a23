// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// One D-Bus message (`sd_bus_message`): a method call, a reply, an error or a signal.
///
/// Reading and writing go through the typed methods in `BusMessage+Read.swift` and `BusMessage+Append.swift`, which
/// use only the fixed-arity sd-bus functions (Swift cannot call `sd_bus_message_read`/`_append`, which are C-variadic).
///
/// A message belongs to its bus: use it only on that bus's thread. Not `Sendable` for that reason. One kept beyond
/// the callback or call that produced it (a signal parsed later, `SystemdUnitSource.heldTypeSignals`) holds its own
/// reference and stays on that thread.
public final class BusMessage {
    let pointer: OpaquePointer

    /// Takes over a reference the caller owns (from a `sd_bus_message_new_*` call).
    init(consuming pointer: OpaquePointer) {
        self.pointer = pointer
    }

    /// Adds a reference to a message sd-bus lends us (in a callback).
    ///
    /// Wraps `sd_bus_message_ref(3)`.
    init(borrowing pointer: OpaquePointer) {
        self.pointer = sd_bus_message_ref(pointer)
    }

    /// Adds a reference to the message at `address` and wraps it.
    ///
    /// The same as ``init(borrowing:)``, for a reply handed to another task: a new reference that nothing else holds
    /// may be sent, but the compiler cannot prove that for a value derived from a (non-`Sendable`) C pointer argument.
    convenience init(referencing address: UInt) {
        self.init(borrowing: OpaquePointer(bitPattern: address)!)
    }

    deinit {
        sd_bus_message_unref(pointer)
    }

    /// The kind of message.
    public enum Kind: Sendable, Hashable {
        case methodCall, methodReturn, methodError, signal
    }

    /// The message type.
    ///
    /// Wraps `sd_bus_message_get_type(3)`.
    public var kind: Kind? {
        var type: UInt8 = 0
        guard (try? check(sd_bus_message_get_type(pointer, &type), "get the message type")) != nil else { return nil }
        switch Int(type) {
        case SD_BUS_MESSAGE_METHOD_CALL: return .methodCall
        case SD_BUS_MESSAGE_METHOD_RETURN: return .methodReturn
        case SD_BUS_MESSAGE_METHOD_ERROR: return .methodError
        case SD_BUS_MESSAGE_SIGNAL: return .signal
        default: return nil
        }
    }

    /// Wraps `sd_bus_message_get_path(3)`.
    public var path: String? { sd_bus_message_get_path(pointer).map { String(cString: $0) } }
    /// The object path where the header holds it, without a `String` made of it; nil when there is none.
    func withPath<Result>(_ body: (UnsafePointer<CChar>) -> Result) -> Result? {
        sd_bus_message_get_path(pointer).map(body)
    }
    /// Wraps `sd_bus_message_get_interface(3)`.
    public var interface: String? { sd_bus_message_get_interface(pointer).map { String(cString: $0) } }
    /// Whether this is the signal `member` of `interface`, compared where the header lies. Wraps
    /// `sd_bus_message_is_signal(3)`.
    func isSignal(_ interface: String, _ member: String) -> Bool {
        interface.withCString { interface in
            member.withCString { sd_bus_message_is_signal(pointer, interface, $0) > 0 }
        }
    }
    /// Wraps `sd_bus_message_get_member(3)`.
    public var member: String? { sd_bus_message_get_member(pointer).map { String(cString: $0) } }
    /// The sender's unique name (`:1.42`). Wraps `sd_bus_message_get_sender(3)`.
    public var sender: String? { sd_bus_message_get_sender(pointer).map { String(cString: $0) } }
    /// Wraps `sd_bus_message_get_destination(3)`.
    public var destination: String? { sd_bus_message_get_destination(pointer).map { String(cString: $0) } }

    /// The signature of the whole body, e.g. `sa{sv}as`.
    ///
    /// Wraps `sd_bus_message_get_signature(3)`.
    public var signature: String {
        sd_bus_message_get_signature(pointer, 1).map { String(cString: $0) } ?? ""
    }

    /// Whether this is a call of `interface.member` (nil matches any).
    ///
    /// Wraps `sd_bus_message_is_method_call(3)`.
    public func isMethodCall(interface: String?, member: String?) -> Bool {
        ((try? check(sd_bus_message_is_method_call(pointer, interface, member), "check the message type")) ?? 0) > 0
    }

    /// Whether this is the signal `interface.member` (nil matches any).
    ///
    /// Wraps `sd_bus_message_is_signal(3)`.
    public func isSignal(interface: String?, member: String?) -> Bool {
        ((try? check(sd_bus_message_is_signal(pointer, interface, member), "check the message type")) ?? 0) > 0
    }

    /// Creates the method return for this call, to fill and send.
    ///
    /// Wraps `sd_bus_message_new_method_return(3)`.
    public func makeReturn() throws(SystemdError) -> BusMessage {
        var raw: OpaquePointer?
        try check(sd_bus_message_new_method_return(pointer, &raw), "create the reply to \(member ?? "a call")")
        return BusMessage(consuming: raw!)
    }

    /// Creates an error reply to this call, to send.
    ///
    /// Wraps `sd_bus_error_set(3)` and `sd_bus_message_new_method_error(3)` (instead of the variadic `…errorf`).
    public func makeError(name: String, message text: String) throws(SystemdError) -> BusMessage {
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        // Returns the negative errno that `name` maps to: that is its purpose, not a failure.
        _ = sd_bus_error_set(&error, name, text)
        var raw: OpaquePointer?
        try check(
            sd_bus_message_new_method_error(pointer, &raw, &error),
            "create the error reply to \(member ?? "a call")"
        )
        return BusMessage(consuming: raw!)
    }

    /// Moves the read position back to the first argument.
    ///
    /// Wraps `sd_bus_message_rewind(3)`.
    public func rewind() throws(SystemdError) {
        try check(sd_bus_message_rewind(pointer, 1), "rewind a message")
    }
}
