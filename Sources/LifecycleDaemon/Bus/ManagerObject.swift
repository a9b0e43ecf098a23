// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd
import Logging

/// lifecycled's D-Bus object: ``ManagerInterface/objectPath`` with the interface ``ManagerInterface/name``, on a
/// connection of its own, under the well-known name ``ManagerInterface/busName``.
///
/// Threading: the actor runs on its connection's ``BusThread``, so sd-bus hands each call to it synchronously. A call
/// is decoded there and answered at once when it needs nothing from the daemon (`Introspect`, a wrong signature,
/// an unknown method); otherwise the call message is kept, the decoded request goes to one worker task that asks
/// the daemon (another actor) off the bus thread, and the reply is sent back on the bus thread. So the bus thread
/// never waits for the daemon, and calls are answered in the order they arrived.
///
/// Access control is the D-Bus policy's (`org.lifecycled.Lifecycle1.conf`): on the system bus only root may call
/// anything but `GetUnit`, `ListUnits`, `GetStatus`, `Introspect` and `Ping`. Every local user may call those, and a call waits
/// for the daemon as long as it is busy (it holds requests while it recovers), so the calls waiting are bounded
/// (``CallLimits``): per sender, and in all, since every connection is a sender of its own; more are refused at once
/// with `org.freedesktop.DBus.Error.LimitsExceeded`.
public actor ManagerObject {
    /// How many calls may wait for their replies: those of one sender (a unique bus name, so one connection), and
    /// those of all senders together, which bounds what a local user who opens many connections can hold.
    public struct CallLimits: Sendable {
        public var perSender: Int
        public var total: Int

        public init(perSender: Int = 32, total: Int = 256) {
            self.perSender = perSender
            self.total = total
        }
    }

    private struct Job: Sendable {
        var id: UInt64
        var call: ManagerCall
    }

    /// A call waiting for its reply. Touched only on the bus thread, by this actor.
    private final class PendingCall {
        let message: BusMessage
        let connection: BusConnection
        /// The caller's unique name, whose count of waiting calls this one is in.
        let sender: String

        init(message: BusMessage, connection: BusConnection) {
            self.message = message
            self.connection = connection
            self.sender = message.sender ?? ""
        }
    }

    /// The connection the object is exported on.
    public nonisolated let bus: SystemdBus
    private let requests: any LifecycleRequests
    private let logger: Logger
    private let limits: CallLimits
    private let jobs: AsyncStream<Job>
    private let jobsContinuation: AsyncStream<Job>.Continuation
    private var worker: Task<Void, Never>?
    private var pending: [UInt64: PendingCall] = [:]
    /// How many calls in ``pending`` each sender has.
    private var pendingBySender: [String: Int] = [:]
    private var lastID: UInt64 = 0
    private var ownedName: String?

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        bus.thread.asUnownedSerialExecutor()
    }

    private init(bus: SystemdBus, requests: any LifecycleRequests, logger: Logger, limits: CallLimits) {
        self.bus = bus
        self.requests = requests
        self.logger = logger
        self.limits = limits
        (jobs, jobsContinuation) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .unbounded)
    }

    /// Connects to `address`, exports the object, then becomes the primary owner of `name`.
    ///
    /// - Parameters:
    ///   - address: The bus, the same as the unit source's.
    ///   - requests: Who answers the calls: the daemon, or a fake in tests.
    ///   - logger: For refused calls (debug) and replies that cannot be sent.
    ///   - name: The well-known name to own; nil to own none (the object is then reachable by unique name only).
    ///   - thread: The bus thread to run on, shared with the caller; nil to start one of its own.
    /// - Returns: The exported object; call ``stop()`` when done.
    /// - Throws: ``SystemdError`` when the connection fails, or with `EEXIST` when someone else owns the name; the
    ///   connection is closed again then.
    public static func start(
        on address: BusAddress,
        requests: any LifecycleRequests,
        logger: Logger,
        name: String? = ManagerInterface.busName,
        thread: BusThread? = nil,
        limits: CallLimits = CallLimits()
    ) async throws(SystemdError) -> ManagerObject {
        let bus = try await SystemdBus.connect(address, description: "lifecycled-manager", thread: thread)
        let object = ManagerObject(bus: bus, requests: requests, logger: logger, limits: limits)
        do throws(SystemdError) {
            try await object.export()
            if let name {
                try await bus.requestName(name)
                await object.owns(name)
            }
        } catch {
            await object.stop()
            throw error
        }
        return object
    }

    /// Releases the name, answers the calls already received, and closes the connection. Idempotent.
    ///
    /// The calls already received wait for the daemon's answers: call it only once nothing the daemon waits for
    /// waits for it (the loop is done, or from a task of its own: ``stepDown()``).
    public nonisolated func stop() async {
        await stepDown()
        await answerReceivedCalls()
        await bus.close()
    }

    private func answerReceivedCalls() async {
        await worker?.value
    }

    /// Releases the name and refuses the calls that come from now on, without waiting for the calls already received:
    /// those are still answered, on this connection, as the daemon answers them. So a new object can take the name at
    /// once, while the daemon may be waiting for something that this one would otherwise hold up (docs/architecture.md,
    /// "Nothing waits in a circle"). Idempotent.
    public func stepDown() async {
        if let name = ownedName {
            ownedName = nil
            do {
                try await bus.releaseName(name)
            } catch {
                logger.warning("Failed to release the bus name \(name)", metadata: ["error": "\(error)"])
            }
        }
        jobsContinuation.finish()
    }

    private func export() async throws(SystemdError) {
        worker = Task(executorPreference: bus.thread) { await self.work() }
        try await bus.exportObject(path: ManagerInterface.objectPath) { [weak self] call, connection in
            guard let self else { return false }
            // sd-bus calls this on the bus thread, this actor's executor, and assumeIsolated runs the body right here,
            // synchronously: the message and the connection never leave the thread they belong to.
            nonisolated(unsafe) let call = call
            nonisolated(unsafe) let connection = connection
            return self.assumeIsolated { object in object.receive(call, on: connection) }
        }
    }

    private func owns(_ name: String) {
        ownedName = name
    }

    // MARK: - Calls (bus thread)

    /// Handles one call to the object path; returns false to let sd-bus answer `UnknownMethod`.
    private func receive(_ message: BusMessage, on connection: BusConnection) -> Bool {
        guard let member = message.member else { return false }
        switch message.interface {
        case ManagerInterface.introspectable? where member == "Introspect":
            reply(.text(ManagerInterface.introspectionXML), to: message, on: connection)
        case ManagerInterface.peer? where member == "Ping":
            // sd-bus answers Peer itself before objects see it; this only keeps Ping working if that ever changes.
            send(try message.makeReturn(), replyingTo: message, on: connection)
        case nil, ManagerInterface.name?:
            guard let method = ManagerMethod(rawValue: member) else { return false }
            let request: ManagerCall
            do {
                request = try ManagerCall(method, from: message)
            } catch {
                logger.debug("Refused a call", metadata: ["method": "\(member)", "error": "\(error)"])
                reply(.failure(error), to: message, on: connection)
                return true
            }
            let call = PendingCall(message: message, connection: connection)
            let waiting = pendingBySender[call.sender, default: 0]
            let refusal: ManagerError? =
                if waiting >= limits.perSender { .tooManyCalls(limit: limits.perSender) }
                else if pending.count >= limits.total { .tooManyCallsInAll(limit: limits.total) }
                else { nil }
            if let refusal {
                logger.debug("Refused a call", metadata: ["method": "\(member)", "sender": "\(call.sender)"])
                reply(.failure(refusal), to: message, on: connection)
                return true
            }
            pendingBySender[call.sender] = waiting + 1
            lastID += 1
            pending[lastID] = call
            if case .terminated = jobsContinuation.yield(Job(id: lastID, call: request)) {
                finish(lastID, .failure(ManagerError(name: ManagerError.failed, message: "lifecycled is stopping.")))
            }
        default:
            return false
        }
        return true
    }

    /// Answers the calls one at a time, in the order they came.
    private func work() async {
        for await job in jobs {
            let reply = await job.call.answer(from: requests)
            if case .failure(let error) = reply {
                logger.debug("Refused a call", metadata: ["error": "\(error)"])
            }
            finish(job.id, reply)
        }
    }

    private func finish(_ id: UInt64, _ reply: ManagerReply) {
        guard let call = pending.removeValue(forKey: id) else { return }
        let waiting = pendingBySender[call.sender, default: 1] - 1
        pendingBySender[call.sender] = waiting > 0 ? waiting : nil
        self.reply(reply, to: call.message, on: call.connection)
    }

    private func reply(_ reply: ManagerReply, to call: BusMessage, on connection: BusConnection) {
        send(try reply.message(replyingTo: call), replyingTo: call, on: connection)
    }

    /// Sends a reply; one that cannot be sent (the caller asked for none, or the connection is gone) is only logged.
    private func send(
        _ reply: @autoclosure () throws(SystemdError) -> BusMessage,
        replyingTo call: BusMessage,
        on connection: BusConnection
    ) {
        do throws(SystemdError) {
            try connection.send(try reply())
        } catch {
            logger.debug("Failed to reply to \(call.member ?? "a call")", metadata: ["error": "\(error)"])
        }
    }
}
