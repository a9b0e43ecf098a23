// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc
import LifecycleEngine

/// A timer of a ``BusThread``: its body runs on the thread once the deadline has passed.
struct BusTimer {
    var id: UInt64
    /// `CLOCK_MONOTONIC`, µs.
    var deadline: UInt64
    var body: () -> Void
}

/// The write end of the signal pipe, for the signal handler (a C function pointer captures nothing). Written once,
/// before the handlers are installed.
nonisolated(unsafe) private var signalPipeWriteFD: Int32 = -1

/// Identifies a scheduled timer, to cancel it.
public struct BusTimerID: Sendable, Hashable {
    let value: UInt64
}

/// Timers and signals as sources of the thread's own loop: nothing waits on Swift's global executor.
extension BusThread {
    /// `thread` when given (shared with its owner), else a new thread named `name`.
    public static func shared(_ thread: BusThread?, orNew name: String) throws(SystemdError) -> BusThread {
        if let thread { return thread }
        return try BusThread(name: name)
    }

    /// Runs `body` on this thread once `delay` has passed. Call it on this thread (from an actor whose executor it is).
    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping () -> Void) -> BusTimerID {
        checkIsolated()
        lastTimerID += 1
        let deadline = Self.monotonicMicroseconds() + delay.microsecondsRoundedUp
        let timer = BusTimer(id: lastTimerID, deadline: deadline, body: body)
        let index = timers.firstIndex { $0.deadline > deadline } ?? timers.endIndex
        timers.insert(timer, at: index)
        return BusTimerID(value: timer.id)
    }

    /// Cancels a timer that has not fired yet; nothing happens for one that has.
    public func cancel(_ timer: BusTimerID) {
        checkIsolated()
        timers.removeAll { $0.id == timer.value }
    }

    /// Suspends the calling task for `delay`, waking it from this thread's loop. Call it on this thread.
    public func sleep(for delay: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            schedule(after: delay) { continuation.resume() }
        }
    }

    /// Hands each of `signals` to `handler`, on this thread. A signal handler writes the signal's number to a pipe
    /// that the loop polls (the self-pipe trick): a `signalfd` would need the signals blocked in every thread, and
    /// on Linux the main thread of an async `main` waits in `sigsuspend` with none blocked. Call it on this thread,
    /// once per process.
    public func watchSignals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws(SystemdError) {
        checkIsolated()
        var fds: [Int32] = [0, 0]
        try check(pipe(&fds) < 0 ? -Glibc.errno : 0, "create the signal pipe")
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
        }
        signalFD = fds[0]
        signalPipeWriteFD = fds[1]
        signalHandler = handler
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in
            // Async-signal-safe: one write(2) of one byte; a full pipe drops it, and the loop reads what it holds.
            var byte = UInt8(truncatingIfNeeded: signal)
            _ = write(signalPipeWriteFD, &byte, 1)
        }
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        for signal in signals {
            try check(sigaction(signal, &action, nil) < 0 ? -Glibc.errno : 0, "handle signal \(signal)")
        }
    }

    func stopWatchingSignals() {
        if signalFD >= 0 { close(signalFD) }
        signalFD = -1
        signalHandler = nil
    }

    func readSignals() {
        var byte: UInt8 = 0
        while read(signalFD, &byte, 1) == 1 {
            signalHandler?(Int32(byte))
        }
    }

    /// Runs the timers whose deadline has passed; returns whether there were any.
    func runDueTimers() -> Bool {
        guard let first = timers.first, first.deadline <= Self.monotonicMicroseconds() else { return false }
        let now = Self.monotonicMicroseconds()
        let due = timers.prefix { $0.deadline <= now }
        timers.removeFirst(due.count)
        for timer in due { timer.body() }
        return true
    }

    /// The poll timeout until the soonest timer, -1 for none.
    func nextTimerTimeout() -> Int32 {
        guard let first = timers.first else { return -1 }
        return Self.milliseconds(until: first.deadline, now: Self.monotonicMicroseconds())
    }
}
