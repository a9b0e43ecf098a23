// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Dispatch
import Glibc
import Synchronization

/// A dedicated thread that drives sd-bus connections and is also a Swift `SerialExecutor`.
///
/// sd-bus objects are "thread-agnostic": one thread at a time may touch a bus and its messages and slots
/// (`sd-bus(3)`, NOTES). Confining every sd-bus call to this one thread meets that rule by construction:
/// - an actor that uses a bus declares `unownedExecutor` to be this thread, so each of its isolated methods runs here;
/// - sd-bus invokes match, object and reply callbacks from `sd_bus_process` on this thread, so they can enter such an
///   actor with `assumeIsolated`.
///
/// The thread runs its own `poll(2)` loop rather than `sd_event`: besides the buses it waits for an `eventfd` that
/// other threads write when they enqueue a job, for its timers (the poll timeout) and for Unix signals (a pipe
/// their handler writes to), so a daemon can run everything on this one thread and never touch Swift's global executor, whose
/// first job arms a once-a-second libdispatch timer for the life of the process. A plain loop also sees
/// `sd_bus_process`'s error directly, which is how a lost connection is detected (with `sd_bus_attach_event` it
/// would surface only as the synthetic `Disconnected` signal).
///
/// Nothing on this thread may block: slow consumers get their data through `AsyncStream`s.
///
/// Lifetime: the thread keeps itself alive until ``shutdown()`` (``SystemdUnitSource/stop()`` and
/// ``SystemdBus/close()`` call it). Every connection is closed by then, so a job that arrives later (a method called
/// after `stop()`) runs on a serial fallback queue and finds no bus: it fails with `ENOTCONN` instead of hanging.
public final class BusThread: SerialExecutor, TaskExecutor, @unchecked Sendable {
    private struct Shared {
        var jobs: [UnownedJob] = []
        var isShutdownRequested = false
        var isTerminated = false
        var terminationWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// A name for diagnostics.
    public let name: String
    private let shared = Mutex(Shared())
    /// The eventfd that wakes `poll(2)` when a job is enqueued or shutdown is requested.
    private let wakeFD: Int32
    /// `pthread_self()` of the loop thread, 0 until it has started.
    private let threadID = Atomic<UInt>(0)
    /// The open connections to poll. Touched only on the loop thread, hence `@unchecked Sendable`.
    private var connections: [BusConnection] = []
    /// Connections whose last `sd_bus_process` had nothing to do, and that poll(2) has not woken since: processing
    /// them again would only cost a `recvmsg` that fails with `EAGAIN`.
    private var idleConnections = Set<ObjectIdentifier>()
    /// Added to the thread's nice value (the process's, inherited) at its start.
    private let niceness: Int32
    /// Runs, one at a time, the jobs that arrive after the loop has ended.
    private let afterShutdown: DispatchQueue
    /// Timers, soonest first. Touched only on the loop thread.
    var timers: [BusTimer] = []
    var lastTimerID: UInt64 = 0
    /// The read end of the signal pipe and what to do with each signal read from it. Touched only on the loop thread.
    var signalFD: Int32 = -1
    var signalHandler: ((Int32) -> Void)?

    /// Starts a new bus thread.
    ///
    /// - Parameters:
    ///   - name: A name for diagnostics.
    ///   - niceness: How much nicer than the process the thread is, for work that may wait: a thread that reads a
    ///     long history then gives way at once to the loop's thread when a live change wakes it, instead of sharing
    ///     the cores with it (docs/PERFORMANCE.md, "Live changes during a day-one history, the reader niced"). A
    ///     value the kernel refuses leaves the process's.
    /// - Throws: ``SystemdError`` if the eventfd or the thread cannot be created.
    public init(name: String = "sd-bus", niceness: Int32 = 0) throws(SystemdError) {
        self.name = name
        self.niceness = niceness
        self.afterShutdown = DispatchQueue(label: "\(name).after-shutdown")
        let fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        try check(fd < 0 ? -Glibc.errno : 0, "create the bus thread's eventfd")
        self.wakeFD = fd
        // The thread owns one reference to self while it runs; it is released when the loop returns.
        let retained = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let busThread = Unmanaged<BusThread>.fromOpaque(raw!).takeRetainedValue()
            busThread.runLoop()
            return nil
        }, retained.toOpaque())
        if rc != 0 {
            retained.release()
            close(fd)
            throw SystemdError(errno: rc, operation: "start the bus thread")
        }
        pthread_detach(thread)
    }

    deinit {
        close(wakeFD)
    }

    /// Adds `niceness` to the calling thread's nice value, up to the weakest (19). Linux keeps a nice value per
    /// thread, and `who` 0 names the calling thread, not the process.
    private static func addNiceness(_ niceness: Int32) {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        _ = setpriority(which, 0, min(getpriority(which, 0) + niceness, 19))
    }

    // MARK: SerialExecutor

    public func enqueue(_ job: consuming ExecutorJob) {
        let unownedJob = UnownedJob(job)
        let accepted = shared.withLock { state -> Bool in
            guard !state.isTerminated else { return false }
            state.jobs.append(unownedJob)
            return true
        }
        guard accepted else {
            let executor = asUnownedSerialExecutor()
            afterShutdown.async { unownedJob.runSynchronously(on: executor) }
            return
        }
        wake()
    }

    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` succeed in sd-bus callbacks, which run on this thread but outside any executor job.
    public func checkIsolated() {
        precondition(isCurrent, "sd-bus was used off its bus thread '\(name)'")
    }

    public func isIsolatingCurrentContext() -> Bool? {
        isCurrent
    }

    /// Whether the caller runs on this bus thread.
    public var isCurrent: Bool {
        let id = threadID.load(ordering: .acquiring)
        return id != 0 && pthread_equal(pthread_self(), pthread_t(id)) != 0
    }

    // MARK: Shutdown

    /// Asks the loop to finish and waits until the thread has ended.
    ///
    /// Jobs already enqueued still run. Connections still open are closed (flushed first). Call it from outside the
    /// bus thread, after everything that runs on it has finished.
    public func shutdown() async {
        precondition(!isCurrent, "BusThread.shutdown() must not be awaited on the bus thread itself")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let isTerminated = shared.withLock { state -> Bool in
                if state.isTerminated { return true }
                state.isShutdownRequested = true
                state.terminationWaiters.append(continuation)
                return false
            }
            if isTerminated { continuation.resume() } else { wake() }
        }
    }

    /// Whether the loop thread has ended.
    public var isTerminated: Bool {
        shared.withLock { $0.isTerminated }
    }

    // MARK: Connections (bus thread only)

    func attach(_ connection: BusConnection) {
        checkIsolated()
        connections.append(connection)
    }

    func detach(_ connection: BusConnection) {
        checkIsolated()
        connections.removeAll { $0 === connection }
        idleConnections.remove(ObjectIdentifier(connection))
    }

    // MARK: Loop

    private func wake() {
        // On the loop's own thread (a job, a callback or a timer enqueuing the next job) the loop runs its jobs
        // before it waits again, so a write would only cost a syscall and a spurious wakeup.
        if isCurrent { return }
        var one: UInt64 = 1
        // EAGAIN means the counter is already non-zero: the loop is awake anyway.
        _ = withUnsafeBytes(of: &one) { write(wakeFD, $0.baseAddress, 8) }
    }

    /// How often a busy loop looks at its fds without waiting (µs): see ``runLoop()``.
    static let busyPollInterval: UInt64 = 1_000

    private func runLoop() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        if niceness != 0 { Self.addNiceness(niceness) }
        var pollFDs: [pollfd] = []
        var polledAt: UInt64 = 0
        while true {
            var didWork = runPendingJobs()
            didWork = processConnections() || didWork
            didWork = runDueTimers() || didWork
            if didWork {
                // Jobs that keep coming (answers from another thread, each waking the loop, or a job that queues the
                // next) would keep the loop from poll(2), and only poll(2) says that a bus or the signal pipe has
                // something: a systemd signal waited until the loop ran out of jobs (docs/PERFORMANCE.md, "Live
                // changes during a day-one history"). So a busy loop looks without waiting, at most once a millisecond.
                let now = Self.monotonicMicroseconds()
                if now - polledAt >= Self.busyPollInterval {
                    waitForEvents(&pollFDs, waits: false)
                    polledAt = now
                }
                continue
            }
            if finishIfShutdownRequested() { return }
            waitForEvents(&pollFDs, waits: true)
            polledAt = Self.monotonicMicroseconds()
        }
    }

    /// Runs the jobs queued so far; returns whether there were any.
    private func runPendingJobs() -> Bool {
        let batch = shared.withLock { state -> [UnownedJob] in
            let batch = state.jobs
            state.jobs.removeAll(keepingCapacity: true)
            return batch
        }
        for job in batch {
            job.runSynchronously(on: asUnownedSerialExecutor())
        }
        return !batch.isEmpty
    }

    /// How many messages a connection dispatches per turn of the loop: a unit's change is several messages (the
    /// type's and the unit's properties, a job's removal, and those of the slice and targets beside it), and between
    /// two turns the loop runs its jobs, which can be long (a recovery's round). One message a turn made a live
    /// change during a day-one history wait for several rounds (docs/PERFORMANCE.md, "Live changes during a day-one
    /// history"); a bound still lets jobs and timers interleave with a flood of signals.
    static let messagesPerTurn = 64

    /// Dispatches up to ``messagesPerTurn`` messages per connection, so jobs interleave with bursts of signals.
    private func processConnections() -> Bool {
        var didWork = false
        for connection in connections where !idleConnections.contains(ObjectIdentifier(connection)) {
            do throws(SystemdError) {
                let turn = try connection.process(limit: Self.messagesPerTurn)
                didWork = didWork || turn.didWork
                // A connection closed during its turn is detached already: its identifier may soon be a new one's.
                if turn.isIdle, connection.isOpen { idleConnections.insert(ObjectIdentifier(connection)) }
            } catch {
                connectionFailed(connection, error)
                didWork = true
            }
        }
        return didWork
    }

    private func connectionFailed(_ connection: BusConnection, _ error: SystemdError) {
        detach(connection)
        connection.markFailed(error)
    }

    private func finishIfShutdownRequested() -> Bool {
        let waiters = shared.withLock { state -> [CheckedContinuation<Void, Never>]? in
            guard state.isShutdownRequested, state.jobs.isEmpty else { return nil }
            state.isTerminated = true
            defer { state.terminationWaiters.removeAll() }
            return state.terminationWaiters
        }
        guard let waiters else { return false }
        for connection in connections {
            connection.close()
        }
        connections.removeAll()
        idleConnections.removeAll()
        timers.removeAll()
        stopWatchingSignals()
        threadID.store(0, ordering: .releasing)
        for waiter in waiters {
            waiter.resume()
        }
        return true
    }

    /// Waits in `poll(2)` for the eventfd and every bus's fd, events and timeout; unless `waits`, only looks which
    /// are ready.
    private func waitForEvents(_ pollFDs: inout [pollfd], waits: Bool) {
        pollFDs.removeAll(keepingCapacity: true)
        pollFDs.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0))
        pollFDs.append(pollfd(fd: signalFD, events: Int16(POLLIN), revents: 0))  // poll skips a negative fd
        var timeoutMilliseconds = nextTimerTimeout()
        // Per polled connection: its index in pollFDs and its deadline. A connection becomes due again when poll(2)
        // reports its fd, or when its deadline passed: sd_bus_get_timeout(3) gives 0 while messages wait in its read
        // queue (a synchronous call may have read them), and a method call's timeout otherwise.
        var polled: [(connection: BusConnection, index: Int, deadline: UInt64)] = []
        for connection in connections {
            guard let bus = connection.bus else { continue }
            do throws(SystemdError) {
                guard let request = try connection.pollRequest() else { continue }
                // Wraps sd_bus_get_timeout(3).
                var until: UInt64 = 0
                try check(sd_bus_get_timeout(bus, &until), "get the timeout of the \(connection.address)")
                polled.append((connection, pollFDs.count, until))
                pollFDs.append(request)
                if until != .max {
                    let wait = Self.milliseconds(until: until, now: Self.monotonicMicroseconds())
                    timeoutMilliseconds = timeoutMilliseconds < 0 ? wait : min(timeoutMilliseconds, wait)
                }
            } catch {
                connectionFailed(connection, error)
                return
            }
        }
        let r = poll(&pollFDs, nfds_t(pollFDs.count), waits ? timeoutMilliseconds : 0)
        if r < 0 {
            let code = Glibc.errno
            // Anything but EINTR means the fd array is wrong: a bug, not a runtime condition.
            precondition(code == EINTR, "poll(2) failed on bus thread '\(name)': \(String(cString: strerror(code)))")
            return
        }
        let now = polled.contains { $0.deadline != .max } ? Self.monotonicMicroseconds() : 0
        for (connection, index, deadline) in polled where pollFDs[index].revents != 0 || deadline <= now {
            idleConnections.remove(ObjectIdentifier(connection))
            // Anything but input only is sd-bus's to process: its queued writes, its deadline, an error or hang-up.
            if pollFDs[index].revents & ~Int16(POLLIN) != 0 || deadline <= now { connection.isSDBusDue = true }
        }
        if pollFDs[0].revents & Int16(POLLIN) != 0 {
            var counter: UInt64 = 0
            _ = withUnsafeMutableBytes(of: &counter) { read(wakeFD, $0.baseAddress, 8) }
        }
        if pollFDs[1].revents & Int16(POLLIN) != 0 {
            readSignals()
        }
    }

    /// `sd_bus_get_timeout` gives an absolute CLOCK_MONOTONIC time in µs; poll wants relative milliseconds, rounded
    /// up so the loop does not wake early and spin (`sd_bus_get_fd(3)`).
    static func milliseconds(until deadline: UInt64, now: UInt64) -> Int32 {
        guard deadline > now else { return 0 }
        let remaining = deadline - now
        return Int32(clamping: remaining / 1000 + (remaining % 1000 == 0 ? 0 : 1))
    }

    public static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }
}
