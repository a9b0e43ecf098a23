// SPDX-License-Identifier: Apache-2.0

import Glibc

/// A general-purpose D-Bus client: one private connection on its own ``BusThread``, usable from any task.
///
/// Every method runs on the bus thread (the actor's executor is that thread), so the non-`Sendable` ``BusMessage``s
/// never leave it: callers pass `@Sendable` closures that write the arguments and decode the reply there.
///
/// ``SystemdUnitSource`` does not use this type: it needs to handle signals synchronously in its own state, so it owns
/// its ``BusConnection`` directly. `SystemdBus` is for one-off calls, names and exported objects (tools, tests).
///
/// Call ``close()`` when done; it ends the thread.
public actor SystemdBus {
    /// The thread every method of this actor runs on.
    public nonisolated let thread: BusThread
    /// Whether ``close()`` ends ``thread`` (it was started for this bus) or leaves it to its owner.
    private nonisolated let ownsThread: Bool
    private var connection: BusConnection?

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        thread.asUnownedSerialExecutor()
    }

    private init(thread: BusThread, ownsThread: Bool) {
        self.thread = thread
        self.ownsThread = ownsThread
    }

    /// Connects to `address` on a new bus thread.
    ///
    /// - Parameters:
    ///   - address: Which bus.
    ///   - description: A name for the connection in sd-bus's debug output.
    ///   - thread: The bus thread to run on, shared with its owner; nil to start one of its own.
    /// - Throws: ``SystemdError`` if the thread or the connection cannot be set up.
    public static func connect(
        _ address: BusAddress, description: String = "lifecycled", thread: BusThread? = nil
    ) async throws(SystemdError) -> SystemdBus {
        try await connect(address, description: description, thread: thread, isRelayed: false)
    }

    /// Connects; with `isRelayed`, through the bus relay the unit source uses
    /// (``BusConnection/init(relaying:description:thread:)``), which passes every message to sd-bus here: its tests
    /// run the same calls both ways.
    static func connect(
        _ address: BusAddress, description: String, thread: BusThread?, isRelayed: Bool
    ) async throws(SystemdError) -> SystemdBus {
        let bus = SystemdBus(thread: try BusThread.shared(thread, orNew: "sd-bus"), ownsThread: thread == nil)
        do throws(SystemdError) {
            try await bus.open(address, description: description, isRelayed: isRelayed)
        } catch {
            if bus.ownsThread { await bus.thread.shutdown() }
            throw error
        }
        return bus
    }

    private func open(_ address: BusAddress, description: String, isRelayed: Bool) throws(SystemdError) {
        connection = isRelayed
            ? try BusConnection(relaying: address, description: description, thread: thread)
            : try BusConnection(address: address, description: description, thread: thread)
    }

    private func openConnection(_ operation: String) throws(SystemdError) -> BusConnection {
        guard let connection, connection.isOpen else {
            throw SystemdError(errno: ENOTCONN, operation: operation, message: "The connection is closed")
        }
        if let failure = connection.failure { throw failure }
        return connection
    }

    /// Calls a method and decodes the reply on the bus thread.
    ///
    /// - Parameters:
    ///   - destination: The bus name, e.g. `org.freedesktop.systemd1`.
    ///   - path: The object path.
    ///   - interface: The interface, or nil.
    ///   - member: The method name.
    ///   - timeout: The reply timeout; nil for sd-bus's default (25 s).
    ///   - arguments: Appends the arguments.
    ///   - decode: Reads the reply.
    /// - Returns: What `decode` returns.
    /// - Throws: ``SystemdError``, with the D-Bus error name for an error reply.
    public func call<T: Sendable>(
        destination: String?,
        path: String,
        interface: String?,
        member: String,
        timeout: Duration? = nil,
        arguments: @Sendable (BusMessage) throws(SystemdError) -> Void = { _ in },
        decode: @Sendable (BusMessage) throws(SystemdError) -> T
    ) async throws(SystemdError) -> T {
        let connection = try openConnection("call \(member)")
        let message = try connection.newMethodCall(
            destination: destination, path: path, interface: interface, member: member
        )
        try arguments(message)
        let reply = try await connection.call(message, timeout: timeout)
        return try decode(reply)
    }

    /// Calls a method and returns every value of the reply.
    public func call(
        destination: String?,
        path: String,
        interface: String?,
        member: String,
        timeout: Duration? = nil,
        arguments: @Sendable (BusMessage) throws(SystemdError) -> Void = { _ in }
    ) async throws(SystemdError) -> [BusValue] {
        try await call(
            destination: destination, path: path, interface: interface, member: member, timeout: timeout,
            arguments: arguments
        ) { reply throws(SystemdError) in try reply.readValues() }
    }

    /// Sends a signal.
    public func emitSignal(
        path: String,
        interface: String,
        member: String,
        arguments: @Sendable (BusMessage) throws(SystemdError) -> Void
    ) throws(SystemdError) {
        let connection = try openConnection("emit \(member)")
        let signal = try connection.newSignal(path: path, interface: interface, member: member)
        try arguments(signal)
        try connection.send(signal)
    }

    /// Becomes the primary owner of a well-known name, without queueing.
    ///
    /// Calls `org.freedesktop.DBus.RequestName` through the asynchronous path instead of `sd_bus_request_name(3)`,
    /// which would wait for the reply on the bus thread.
    ///
    /// - Throws: ``SystemdError`` with `EEXIST` if someone else owns the name.
    public func requestName(_ name: String) async throws(SystemdError) {
        // DBUS_NAME_FLAG_DO_NOT_QUEUE = 4; replies: 1 primary owner, 2 in queue, 3 exists, 4 already owner.
        let result: UInt32 = try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "RequestName",
            arguments: { message throws(SystemdError) in
                try message.append(name)
                try message.append(UInt32(4))
            },
            decode: { reply throws(SystemdError) in try UInt32(from: reply) }
        )
        guard result == 1 || result == 4 else {
            throw SystemdError(errno: EEXIST, operation: "acquire the name \(name)", message: "The name is taken")
        }
    }

    /// Gives up a well-known name.
    public func releaseName(_ name: String) async throws(SystemdError) {
        _ = try await call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ReleaseName", arguments: { message throws(SystemdError) in try message.append(name) }
        )
    }

    /// Installs a match rule; `handler` receives each matching message on the bus thread and must not block.
    public func addMatch(
        _ rule: String,
        handler: @escaping @Sendable (sending BusMessage) -> Void
    ) async throws(SystemdError) {
        let connection = try openConnection("add match \(rule)")
        try await connection.addMatch(rule, handler: handler)
    }

    /// Answers method calls on `path` (and below it, with `includingChildren`) with `handler`, which gets the call
    /// and the connection to reply on, and returns whether it replied.
    public func exportObject(
        path: String,
        includingChildren: Bool = false,
        handler: @escaping @Sendable (BusMessage, BusConnection) throws(SystemdError) -> Bool
    ) throws(SystemdError) {
        let connection = try openConnection("export \(path)")
        try connection.exportObject(path: path, includingChildren: includingChildren) {
            [weak connection] call throws(SystemdError) in
            guard let connection else { return false }
            return try handler(call, connection)
        }
    }

    /// Our unique name (`:1.42`), once the bus daemon has answered `Hello()`.
    public var uniqueName: String? {
        connection?.uniqueName
    }

    /// Runs `body` with the connection, on the bus thread.
    public func withConnection<T: Sendable>(
        _ body: @Sendable (BusConnection) throws(SystemdError) -> T
    ) throws(SystemdError) -> T {
        try body(try openConnection("use the connection"))
    }

    /// Flushes and closes the connection, then ends the bus thread when it was started for this bus.
    public nonisolated func close() async {
        await closeConnection()
        if ownsThread { await thread.shutdown() }
    }

    private func closeConnection() {
        connection?.close()
        connection = nil
    }
}
