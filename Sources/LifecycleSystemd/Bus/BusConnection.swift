// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// One private `sd_bus` connection, driven by a ``BusThread``.
///
/// Thread rules: create, use and close it only on its bus thread, i.e. from an actor whose executor is that thread.
/// The type is deliberately not `Sendable`, so the compiler keeps it inside that actor.
///
/// The connection is always private (`sd_bus_open_system`, `sd_bus_open_user` or `sd_bus_new`), never
/// `sd_bus_default*`, whose objects are per-thread and shared with anything else in the process.
public final class BusConnection {
    /// The bus; nil once closed.
    private(set) var bus: OpaquePointer?
    /// The thread that polls this connection.
    public let thread: BusThread
    /// Where the connection goes.
    public let address: BusAddress
    /// Why the connection broke, once it has.
    public private(set) var failure: SystemdError?
    /// Calls waiting for their reply, so that ``close()`` can fail them: sd-bus fails them only when it frees the
    /// bus, and a method-call message still referenced by a waiting caller keeps the bus alive after the close.
    var pendingCalls: [UInt64: PendingCallBox] = [:]
    var lastCallID: UInt64 = 0

    /// Called on the bus thread, once, when `sd_bus_process` reports that the connection is gone (for example
    /// `-ECONNRESET` when the bus daemon exits). Pending calls have failed by then. The connection is no longer
    /// polled; close it.
    public var disconnectHandler: ((SystemdError) -> Void)?

    /// The relay of a connection that reads the bus itself (``init(relaying:description:thread:)``); nil for one
    /// sd-bus reads.
    var relay: BusRelay?
    /// Called on the bus thread with each message the relay has framed, before sd-bus may see it: returns whether it
    /// took the message (sd-bus never sees it then). Only for a relayed connection.
    var messageFilter: ((WireMessage) -> Bool)?
    /// Whether sd-bus of a relayed connection may have work of its own (writes queued, a deadline passed), which
    /// only `sd_bus_process` does; otherwise it is processed only after the relay has passed it a message, and a
    /// turn costs no `recvmsg` that fails on its empty input (docs/PERFORMANCE.md, "The bus relay").
    var isSDBusDue = true

    /// Connects and starts processing on `thread`.
    ///
    /// Wraps `sd_bus_open_system_with_description(3)`, `sd_bus_open_user_with_description(3)`, or for an explicit
    /// address `sd_bus_new(3)` + `sd_bus_set_address(3)` + `sd_bus_set_bus_client(3)` + `sd_bus_start(3)`. None of them
    /// blocks: authentication and `Hello()` complete later, in the poll loop.
    ///
    /// - Parameters:
    ///   - address: Which bus.
    ///   - description: A name for the connection in sd-bus's debug logs.
    ///   - thread: The bus thread; this initializer must run on it.
    /// - Throws: ``SystemdError`` if the connection cannot be set up.
    public init(address: BusAddress, description: String, thread: BusThread) throws(SystemdError) {
        try Self.checkUsable(thread, connectingTo: address)
        var raw: OpaquePointer?
        switch address {
        case .system:
            try check(sd_bus_open_system_with_description(&raw, description), "connect to the system bus")
        case .user:
            try check(sd_bus_open_user_with_description(&raw, description), "connect to the user bus")
        case .address(let text):
            try check(sd_bus_new(&raw), "allocate a bus connection")
            do throws(SystemdError) {
                try check(sd_bus_set_description(raw, description), "set the bus description")
                try check(sd_bus_set_address(raw, text), "set the bus address \(text)")
                // We talk to a bus broker (dbus-daemon, dbus-broker), not to a peer: send Hello().
                try check(sd_bus_set_bus_client(raw, 1), "mark the connection as a bus client")
                try check(sd_bus_start(raw), "connect to \(text)")
            } catch {
                sd_bus_unref(raw)
                throw error
            }
        }
        self.bus = raw
        self.thread = thread
        self.address = address
        thread.attach(self)
    }

    /// Connects with a relay: lifecycled reads the bus socket itself and passes sd-bus only the messages
    /// ``messageFilter`` does not take (docs/architecture.md, "The bus relay").
    ///
    /// Wraps `sd_bus_new(3)`, `sd_bus_set_fd(3)` (sd-bus's input is a socket pair, its output a duplicate of the bus
    /// socket), `sd_bus_set_bus_client(3)`, `sd_bus_negotiate_fds(3)` (no unix fds: none is ever passed here) and
    /// `sd_bus_start(3)`. The socket connects at once; authentication and `Hello()` complete in the poll loop.
    init(relaying address: BusAddress, description: String, thread: BusThread) throws(SystemdError) {
        try Self.checkUsable(thread, connectingTo: address)
        let (relay, input, output) = try BusRelay.connect(to: try BusSocketAddress.resolve(address))
        var raw: OpaquePointer?
        do throws(SystemdError) {
            try check(sd_bus_new(&raw), "allocate a bus connection")
        } catch {
            Glibc.close(input)
            Glibc.close(output)
            throw error
        }
        do throws(SystemdError) {
            try check(sd_bus_set_description(raw, description), "set the bus description")
            let set = sd_bus_set_fd(raw, input, output)
            if set < 0 {
                Glibc.close(input)
                Glibc.close(output)
            }
            try check(set, "hand the bus relay's fds to sd-bus")
            try check(sd_bus_set_bus_client(raw, 1), "mark the connection as a bus client")
            try check(sd_bus_negotiate_fds(raw, 0), "refuse unix fds on the bus")
            try check(sd_bus_start(raw), "connect to the \(address)")
        } catch {
            sd_bus_unref(raw)
            throw error
        }
        self.bus = raw
        self.relay = relay
        self.thread = thread
        self.address = address
        thread.attach(self)
    }

    /// A connection is made on its running bus thread.
    private static func checkUsable(_ thread: BusThread, connectingTo address: BusAddress) throws(SystemdError) {
        guard !thread.isTerminated else {
            throw SystemdError(
                errno: ENOTCONN, operation: "connect to the \(address)", message: "The bus thread has ended"
            )
        }
        thread.checkIsolated()
    }

    deinit {
        // Normally closed already; the bus thread holds every open connection, so this runs on it or after it ended.
        if let bus {
            sd_bus_close_unref(bus)
        }
    }

    /// Whether ``close()`` has not been called yet.
    public var isOpen: Bool { bus != nil }

    /// Our unique name on the bus (`:1.42`), or nil until the bus daemon has answered `Hello()`.
    ///
    /// Wraps `sd_bus_is_ready(3)` and `sd_bus_get_unique_name(3)`; the readiness check keeps the latter from
    /// blocking the bus thread while it waits for `Hello()`.
    public var uniqueName: String? {
        guard let bus, (try? check(sd_bus_is_ready(bus), "check whether the bus is ready")) ?? 0 > 0 else {
            return nil
        }
        var name: UnsafePointer<CChar>?
        guard (try? check(sd_bus_get_unique_name(bus, &name), "get our unique bus name")) != nil, let name else {
            return nil
        }
        return String(cString: name)
    }

    /// Stops polling, sends what is queued, and closes the connection.
    ///
    /// Wraps `sd_bus_flush_close_unref(3)`. Pending calls fail with `ECONNRESET`, and every match and exported
    /// object is dropped. The flush only waits for queued writes; on a broken connection it returns at once.
    public func close() {
        guard let bus else { return }
        thread.checkIsolated()
        thread.detach(self)
        self.bus = nil
        relay = nil
        sd_bus_flush_close_unref(bus)
        let pending = pendingCalls.values
        pendingCalls = [:]
        for call in pending {
            call.complete(.failure(SystemdError(
                errno: ECONNRESET, operation: call.operation, message: "The connection was closed before a reply arrived"
            )))
        }
    }

    func markFailed(_ error: SystemdError) {
        guard failure == nil else { return }
        failure = error
        disconnectHandler?(error)
    }

    /// The open bus, or `ENOTCONN`.
    func openBus(_ operation: @autoclosure () -> String) throws(SystemdError) -> OpaquePointer {
        guard let bus else {
            throw SystemdError(errno: ENOTCONN, operation: operation(), message: "The connection is closed")
        }
        thread.checkIsolated()
        return bus
    }

    // MARK: Messages

    /// Creates a method call to fill with arguments.
    ///
    /// Wraps `sd_bus_message_new_method_call(3)`.
    public func newMethodCall(
        destination: String?,
        path: String,
        interface: String?,
        member: String
    ) throws(SystemdError) -> BusMessage {
        let bus = try openBus("create a call of \(member)")
        var raw: OpaquePointer?
        try check(
            sd_bus_message_new_method_call(bus, &raw, destination, path, interface, member),
            "create a call of \(member)"
        )
        return BusMessage(consuming: raw!)
    }

    /// Creates a signal to fill with arguments and ``send(_:)``.
    ///
    /// Wraps `sd_bus_message_new_signal(3)`.
    public func newSignal(path: String, interface: String, member: String) throws(SystemdError) -> BusMessage {
        let bus = try openBus("create the signal \(member)")
        var raw: OpaquePointer?
        try check(sd_bus_message_new_signal(bus, &raw, path, interface, member), "create the signal \(member)")
        return BusMessage(consuming: raw!)
    }

    /// Queues a message (a signal, a reply, or a call whose reply we do not want) for sending.
    ///
    /// Wraps `sd_bus_send(3)`. It does not block: what cannot be written now is written by the poll loop.
    public func send(_ message: BusMessage) throws(SystemdError) {
        let bus = try openBus("send a message")
        try check(sd_bus_send(bus, message.pointer, nil), "send \(message.member ?? "a message")")
    }
}
