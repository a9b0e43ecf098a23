// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
import Logging

/// Watches systemd units over D-Bus and reports their states as ``UnitSourceEvent``s.
///
/// The decisions (what to call and read, what to report, when to try again) are ``UnitSourceMachine``'s; this actor
/// is its driver. It owns one private bus connection on a ``BusThread``, and its executor is that thread, so every
/// sd-bus call, every signal handler and every reply runs there, one at a time, and nothing in it blocks. It parses
/// each signal and reply into plain values, hands them to the machine as inputs, and performs the effects the machine
/// returns, in order (``SystemdUnitSource/perform(_:)``).
///
/// Replies come back as inputs as they arrive, inside `sd_bus_process`, and signals as the bus relay reads them
/// (docs/architecture.md, "The bus relay"), in the order the bus daemon sent them: the machine merges both so.
///
/// Call ``stop()`` when done: it closes the connection and ends the thread when the source started it.
public actor SystemdUnitSource {
    /// The thread this actor runs on.
    public nonisolated let thread: BusThread
    /// Whether the source started ``thread`` (and ends it in ``stop()``), or shares its owner's.
    private nonisolated let ownsThread: Bool

    /// The source's one output, called on the bus thread as each event happens. Never waits: a slow consumer must
    /// not make the bus daemon drop signals.
    let eventHandler: @Sendable (UnitSourceEvent) -> Void
    let address: BusAddress
    let logger: Logger

    var machine: UnitSourceMachine
    /// Inputs that came while effects were being performed (a reply failed by closing the connection, say): handled
    /// after them, so the machine sees one input at a time.
    var inbox: [UnitSourceInput] = []
    var isHandling = false
    /// The values of the type interface's last `PropertiesChanged` of each unit, not handed to the machine yet: they
    /// are only when the `.Unit` one that follows shows a run's end, or another input may read them
    /// (``takeHeldTypeSignals(before:)``). At most one per unit, between the two signals of a pair, as a rule.
    var heldTypeSignals: [String: TypeProperties] = [:]
    /// The unit of the last `PropertiesChanged`, by its object path (``signalUnit(at:)``).
    var lastSignalUnit: SignalUnit?

    /// The current connection, nil while disconnected, and the machine's number for it.
    var connection: BusConnection?
    var connectionGeneration = 0
    var timers: [UnitSourceTimer: BusTimerID] = [:]
    /// Batches of reads in flight; ``stop()`` waits for them (closing the connection fails their calls).
    var readBatches: [Int: Task<Void, Never>] = [:]
    var lastReadBatch = 0
    /// ``start()`` waiting for the first connection.
    var startWaiter: CheckedContinuation<SystemdError?, Never>?

    /// What version detection read of each loaded unit (``details(of:invocationID:reading:)``), and which parts: it
    /// comes from the unit's definition, which changes only when PID 1 loads the unit again, after `UnitRemoved` or
    /// with a reload (the machine says when: ``UnitSourceEffect/forgetDetails(of:)``).
    var details: [String: (parts: UnitDetails.Parts, details: UnitDetails)] = [:]
    /// The timers of the watched services, as last read or signalled (``timers(of:)``): their changes are reported.
    var followedTimers: [String: TimerSnapshot] = [:]
    /// Bumped whenever ``details`` loses entries, so that reads sent before are not kept.
    var detailsEpoch = 0

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        thread.asUnownedSerialExecutor()
    }

    /// Creates a source; nothing is connected until ``start()``.
    ///
    /// - Parameters:
    ///   - address: The bus: ``BusAddress/system`` for PID 1, ``BusAddress/user`` for the user manager.
    ///   - patterns: The unit globs to watch, as `ListUnitsByPatterns` takes them; empty watches every unit. Incoming
    ///     signals are filtered with the same rule, so what the source reports matches its initial listing.
    ///   - reconnectPolicy: The back-off between reconnection attempts, and between attempts of a failed resync.
    ///   - thread: The bus thread to run on, shared with its owner; nil to start one of its own.
    ///   - logger: Where connection trouble is reported.
    ///   - eventHandler: Takes each event, in order, on the bus thread, as it happens.
    /// - Throws: ``SystemdError`` if the bus thread cannot be started.
    public init(
        address: BusAddress = .system,
        patterns: [UnitPattern],
        reconnectPolicy: ReconnectPolicy = .standard,
        thread: BusThread? = nil,
        logger: Logger,
        eventHandler: @escaping @Sendable (UnitSourceEvent) -> Void
    ) throws(SystemdError) {
        self.eventHandler = eventHandler
        self.address = address
        self.logger = logger
        self.machine = UnitSourceMachine(patterns: patterns, policy: reconnectPolicy, busName: "\(address)")
        self.ownsThread = thread == nil
        self.thread = try BusThread.shared(thread, orNew: "sd-bus-units")
    }

    /// Connects, subscribes and sends the first ``UnitSourceEvent/initial(_:)``.
    ///
    /// - Throws: ``SystemdError`` if the first connection cannot be set up (the source does not retry then; calling
    ///   `start()` again tries once more), `EALREADY` if it is running, `ESHUTDOWN` after ``stop()``.
    public func start() async throws(SystemdError) {
        guard !machine.isStopped else {
            throw SystemdError(errno: ESHUTDOWN, operation: "start watching units", message: "The source was stopped")
        }
        guard !machine.isRunning, startWaiter == nil else {
            throw SystemdError(errno: EALREADY, operation: "start watching units", message: "The source is running")
        }
        let failure = await withCheckedContinuation { (continuation: CheckedContinuation<SystemdError?, Never>) in
            startWaiter = continuation
            handle(.start)
        }
        if let failure { throw failure }
    }

    /// Closes the connection and ends the bus thread when the source started it; no event comes after. Idempotent.
    public nonisolated func stop() async {
        await shutDownOnBusThread()
        if ownsThread { await thread.shutdown() }
    }

    private func shutDownOnBusThread() async {
        guard !machine.isStopped else { return }
        handle(.stop)
        // Closing the connection failed their calls: they finish.
        while let (_, task) = readBatches.first {
            await task.value
        }
    }

    /// Hands `input` to the machine and performs its effects; an input that comes meanwhile waits its turn.
    func handle(_ input: UnitSourceInput) {
        takeHeldTypeSignals(before: input)
        guard !isHandling else {
            inbox.append(input)
            return
        }
        isHandling = true
        defer { isHandling = false }
        for effect in machine.handle(input) {
            perform(effect)
        }
        while !inbox.isEmpty {
            let next = inbox.removeFirst()
            for effect in machine.handle(next) {
                perform(effect)
            }
        }
    }
}
