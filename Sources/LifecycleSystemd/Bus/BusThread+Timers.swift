// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// A timer of a ``BusThread``: its body runs on the thread once the deadline has passed.
struct BusTimer {
    var id: UInt64
    /// `CLOCK_MONOTONIC`, µs.
    var deadline: UInt64
    var body: () -> Void
}

/// Identifies a scheduled timer, to cancel it.
public struct BusTimerID: Sendable, Hashable {
    let value: UInt64
}

/// Timers and signals as sources of the thread's own loop: nothing waits on Swift's global executor.
extension BusThread {
    /// `thread` when given (shared with its owner), else a new thread named `name`.
    static func shared(_ thread: BusThread?, orNew name: String) throws(SystemdError) -> BusThread {
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

    /// Reads `signals` from a `signalfd` on this thread and hands each to `handler`, on this thread. The caller must
    /// have blocked them in every thread (`sigprocmask` before any thread starts), or the kernel delivers them the
    /// old way. Call it on this thread; calling it again replaces the set and the handler.
    public func watchSignals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws(SystemdError) {
        checkIsolated()
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        let fd = signalfd(signalFD, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        try check(fd < 0 ? -Glibc.errno : 0, "watch signals")
        signalFD = fd
        signalHandler = handler
    }

    func stopWatchingSignals() {
        if signalFD >= 0 { close(signalFD) }
        signalFD = -1
        signalHandler = nil
    }

    func readSignals() {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while withUnsafeMutableBytes(of: &info, { read(signalFD, $0.baseAddress, size) }) == size {
            signalHandler?(Int32(info.ssi_signo))
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

/// Blocks signals in the calling thread and every thread it starts afterwards, so that only a ``BusThread``'s
/// `signalfd` receives them. Call it first thing in `main`, before any thread exists.
public enum SignalMask {
    public static func block(_ signals: [Int32]) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal) }
        pthread_sigmask(SIG_BLOCK, &mask, nil)
    }
}
