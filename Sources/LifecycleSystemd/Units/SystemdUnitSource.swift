// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
import Logging

/// Watches systemd units over D-Bus and reports their states as ``UnitSourceEvent``s.
///
/// The source owns one private bus connection on its own ``BusThread``; the actor's executor is that thread, so every
/// sd-bus call and every signal handler runs there, one at a time, and nothing in it blocks. Consumers read
/// ``events`` from any task.
///
/// Connecting follows the order that leaves no gap:
/// 1. add the matches (`PropertiesChanged` of units, the manager's `UnitRemoved`, `JobRemoved`, `Reloading`, and
///    `NameOwnerChanged` of `org.freedesktop.systemd1`);
/// 2. `Subscribe()`, without which PID 1 sends no unit signals (`AlreadySubscribed` counts as success);
/// 3. `ListUnitsByPatterns([], patterns)`, skip `not-found` units, take each one's state from the listing and `Get`
///    the few other properties a snapshot uses, pipelined (never `GetAll` of `.Unit`: PID 1 would compute
///    `UnitFileState`); then send ``UnitSourceEvent/initial(_:)``.
///
/// It never reads the properties of a unit it has not seen loaded, and never reacts to `UnitNew`: reading a unit
/// object loads the unit, which PID 1 announces with `UnitNew` and then garbage-collects, endlessly.
///
/// It resyncs (re-subscribes, lists again, sends a new `initial`) after `Reloading(false)` and whenever systemd's
/// bus name gets a new owner, tries a failed resync again with back-off, and reconnects with back-off when the bus
/// connection breaks. After a reload it reads
/// again only units whose state moved: a reload changes no unit's run state.
///
/// Call ``stop()`` when done: it closes the connection, finishes ``events`` and ends the thread.
public actor SystemdUnitSource {
    /// Everything the source learns, in order. Unbounded: the bus thread must never wait for a consumer (a slow
    /// reader makes the bus daemon drop signals, which is worse than memory).
    public nonisolated let events: AsyncStream<UnitSourceEvent>
    /// The thread this actor runs on.
    public nonisolated let thread: BusThread
    /// Whether the source started ``thread`` (and ends it in ``stop()``), or shares its owner's.
    private nonisolated let ownsThread: Bool

    let continuation: AsyncStream<UnitSourceEvent>.Continuation
    /// Takes the events instead of ``events`` when set: called on the bus thread, as each event happens.
    private let eventHandler: (@Sendable (UnitSourceEvent) -> Void)?
    let address: BusAddress
    let patterns: [UnitPattern]
    let policy: ReconnectPolicy
    let logger: Logger

    /// The current connection, nil while disconnected.
    var connection: BusConnection?
    /// Bumped for each new connection, so callbacks of an old one are ignored.
    var generation = 0
    /// Whether the current connection completed its setup; a failure before that is the setup's to report.
    var isEstablished = false
    var isStopped = false
    /// Watched units known to be loaded, by name.
    var units: [String: WatchedUnit] = [:]
    /// Units removed during a reload, kept until the listing after it says whether they are loaded again.
    var parked: [String: WatchedUnit] = [:]
    /// What version detection read of each loaded unit (``details(of:invocationID:reading:)``), and which parts: it
    /// comes from the unit's definition, which changes only when PID 1 loads the unit again, after `UnitRemoved` or
    /// with a reload.
    var details: [String: (parts: UnitDetails.Parts, details: UnitDetails)] = [:]
    /// Bumped whenever ``details`` loses entries, so that reads sent before are not kept.
    var detailsEpoch = 0
    /// Between `Reloading(true)` and `Reloading(false)`.
    var isReloading = false
    /// Signals may have been lost since the last resync: the next one reads every unit in full.
    var isFullReadNeeded = false
    /// Set while a resync collects its listing.
    var resync: ResyncState?
    var resyncCount = 0
    var isResyncRequested = false
    var resyncTask: Task<Void, Never>?
    /// The timer and the task of a failed resync waiting to try again.
    var retryWait: (timer: BusTimerID, continuation: CheckedContinuation<Void, Never>)?
    var reconnectTask: Task<Void, Never>?

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        thread.asUnownedSerialExecutor()
    }

    /// Creates a source; nothing is connected until ``start()``.
    ///
    /// - Parameters:
    ///   - address: The bus: ``BusAddress/system`` for PID 1, ``BusAddress/user`` for the user manager.
    ///   - patterns: The unit globs to watch, as `ListUnitsByPatterns` takes them; empty watches every unit. Incoming
    ///     signals are filtered with the same rule, so what the source reports matches its initial listing.
    ///   - reconnectPolicy: The back-off between reconnection attempts.
    ///   - thread: The bus thread to run on, shared with its owner; nil to start one of its own.
    ///   - logger: Where connection trouble is reported.
    ///   - eventHandler: Takes each event as it happens, on the bus thread, instead of ``events``: one hop fewer
    ///     for an owner on the same thread.
    /// - Throws: ``SystemdError`` if the bus thread cannot be started.
    public init(
        address: BusAddress = .system,
        patterns: [UnitPattern],
        reconnectPolicy: ReconnectPolicy = .standard,
        thread: BusThread? = nil,
        logger: Logger,
        eventHandler: (@Sendable (UnitSourceEvent) -> Void)? = nil
    ) throws(SystemdError) {
        self.eventHandler = eventHandler
        self.address = address
        self.patterns = patterns
        self.policy = reconnectPolicy
        self.logger = logger
        self.ownsThread = thread == nil
        self.thread = try BusThread.shared(thread, orNew: "sd-bus-units")
        (events, continuation) = AsyncStream.makeStream(of: UnitSourceEvent.self, bufferingPolicy: .unbounded)
    }

    /// Connects, subscribes and sends the first ``UnitSourceEvent/initial(_:)``.
    ///
    /// - Throws: ``SystemdError`` if the first connection cannot be set up (the source does not retry then; calling
    ///   `start()` again tries once more), `EALREADY` if it is running, `ESHUTDOWN` after ``stop()``.
    public func start() async throws(SystemdError) {
        guard !isStopped else {
            throw SystemdError(errno: ESHUTDOWN, operation: "start watching units", message: "The source was stopped")
        }
        guard connection == nil else {
            throw SystemdError(errno: EALREADY, operation: "start watching units", message: "The source is running")
        }
        try await establish()
    }

    /// Closes the connection, finishes ``events`` and ends the bus thread when the source started it. Idempotent.
    public nonisolated func stop() async {
        await shutDownOnBusThread()
        if ownsThread { await thread.shutdown() }
    }

    private func shutDownOnBusThread() async {
        guard !isStopped else { return }
        isStopped = true
        let tasks = [reconnectTask, resyncTask].compactMap { $0 }
        for task in tasks {
            task.cancel()
        }
        // Closing fails the pending calls, and ending the wait wakes a resync waiting to retry: the tasks above finish.
        endRetryWait()
        resync = nil
        closeConnection()
        for task in tasks {
            await task.value
        }
        continuation.finish()
    }

    // MARK: Connection

    /// Opens a connection, adds the matches, subscribes and resyncs.
    func establish() async throws(SystemdError) {
        let connection = try BusConnection(address: address, description: "lifecycled-units", thread: thread)
        generation += 1
        let generation = self.generation
        connection.disconnectHandler = { [weak self] error in
            self?.assumeIsolated { source in source.connectionLost(error, generation: generation) }
        }
        self.connection = connection
        isEstablished = false
        isResyncRequested = false
        isReloading = false
        isFullReadNeeded = false
        parked = [:]
        forgetDetails()
        do throws(SystemdError) {
            try await addMatches(on: connection)
            try await synchronize(on: connection, full: true)
            // The connection may have broken after the last reply but before this resumed.
            if let failure = connection.failure { throw failure }
            guard generation == self.generation, !isStopped else {
                throw SystemdError(errno: ECANCELED, operation: "connect to the \(address)", message: "Stopped")
            }
        } catch {
            if self.connection === connection {
                closeConnection()
            }
            throw error
        }
        isEstablished = true
        if isResyncRequested {
            // systemd changed owner or reloaded while the listing was being read.
            requestResync()
        }
        logger.info("Watching systemd units", metadata: [
            "bus": "\(address)", "patterns": "\(patterns.map(\.text))", "units": "\(units.count)",
        ])
    }

    func closeConnection() {
        connection?.close()
        connection = nil
        isEstablished = false
    }

    /// Runs on the bus thread when `sd_bus_process` fails, e.g. `-ECONNRESET` after the bus daemon went away.
    private func connectionLost(_ error: SystemdError, generation: Int) {
        guard generation == self.generation, isEstablished, !isStopped else { return }
        logger.warning("Lost the connection to the bus", metadata: ["bus": "\(address)", "error": "\(error)"])
        resync = nil
        closeConnection()
        deliver(.connectionLost(error))
        startReconnecting()
    }

    private func startReconnecting() {
        guard reconnectTask == nil, !isStopped else { return }
        reconnectTask = Task(executorPreference: thread) { await self.reconnect() }
    }

    private func reconnect() async {
        defer { reconnectTask = nil }
        var failures = 0
        while !isStopped {
            // The thread's own timer, not Task.sleep: nothing of the source runs on Swift's global executor.
            await thread.sleep(for: policy.delay(afterFailures: failures))
            if isStopped || Task.isCancelled { return }
            do throws(SystemdError) {
                try await establish()
                logger.notice("Reconnected to the bus", metadata: ["bus": "\(address)", "attempts": "\(failures + 1)"])
                return
            } catch {
                failures += 1
                logger.debug("Failed to reconnect", metadata: ["error": "\(error)", "attempts": "\(failures)"])
            }
        }
    }

    // MARK: Output

    /// Sends `event` at once, also while a resync is collecting: holding signals back could only reorder or lose
    /// them, and the consumer tells an older snapshot from a newer one by its state-change time.
    func deliver(_ event: UnitSourceEvent) {
        if let eventHandler { eventHandler(event) } else { continuation.yield(event) }
    }
}
