// SPDX-License-Identifier: Apache-2.0

import CSystemd
import LifecycleEngine

extension BusConnection {
    /// Sends a method call and delivers its reply to `completion`, on the bus thread, exactly once.
    ///
    /// Wraps `sd_bus_call_async(3)`. The completion sees a method error reply, a timeout, or the connection closing
    /// as a `.failure`. It runs inside `sd_bus_process`, in the order replies and signals arrive, which callers rely
    /// on to tell whether a reply is older or newer than a signal.
    ///
    /// - Parameters:
    ///   - message: A method call from ``newMethodCall(destination:path:interface:member:)``.
    ///   - timeout: The reply timeout; nil for sd-bus's default (25 s).
    ///   - completion: Receives the reply or the error.
    /// - Throws: ``SystemdError`` if the call cannot be queued; `completion` is then not called.
    public func callAsync(
        _ message: BusMessage,
        timeout: Duration? = nil,
        completion: @escaping (sending Result<BusMessage, SystemdError>) -> Void
    ) throws(SystemdError) {
        let operation = "call \(message.member ?? "a method")"
        let bus = try openBus(operation)
        lastCallID += 1
        let id = lastCallID
        let call = PendingCallBox(operation: operation) { [weak self] result in
            self?.pendingCalls[id] = nil
            completion(result)
        }
        let box = Unmanaged.passRetained(call)
        var slot: OpaquePointer?
        // 0 asks sd-bus for its default timeout, so a sub-microsecond timeout must not round down to it.
        let usec = timeout.map { max($0.microsecondsRoundedUp, 1) } ?? 0
        let r = sd_bus_call_async(bus, &slot, message.pointer, BusCallbacks.reply, box.toOpaque(), usec)
        do throws(SystemdError) {
            try check(r, operation)
        } catch {
            box.release()
            throw error
        }
        // From here on the slot's destroy callback owns the box.
        try BusCallbacks.makeFloating(slot!, destroy: BusCallbacks.releasePendingCall)
        pendingCalls[id] = call
    }

    /// Sends a method call and waits for its reply, without blocking the bus thread.
    ///
    /// Wraps `sd_bus_call_async(3)`. Call it from an actor that runs on this connection's bus thread.
    ///
    /// - Parameters:
    ///   - message: A method call from ``newMethodCall(destination:path:interface:member:)``.
    ///   - timeout: The reply timeout; nil for sd-bus's default (25 s).
    /// - Returns: The method return message, positioned at its first argument.
    /// - Throws: ``SystemdError`` with the D-Bus error name for an error reply, or the errno of a local failure.
    public func call(
        _ message: BusMessage,
        timeout: Duration? = nil,
        isolation: isolated (any Actor) = #isolation
    ) async throws(SystemdError) -> BusMessage {
        let result = await withCheckedContinuation(isolation: isolation) {
            (continuation: CheckedContinuation<Result<BusMessage, SystemdError>, Never>) in
            do throws(SystemdError) {
                try callAsync(message, timeout: timeout) { result in
                    continuation.resume(returning: result)
                }
            } catch {
                continuation.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }

    /// Sends many method calls with at most `window` replies outstanding, and waits until all are answered.
    ///
    /// Pipelining keeps a resync of thousands of units to a few round trips, and the window stays below the bus
    /// daemon's `max_replies_per_connection` (128 on some system buses). The window slides: each reply sends the next
    /// call, so PID 1 always has calls waiting instead of the whole window draining before the next one is sent
    /// (docs/PERFORMANCE.md, "READY with 1,000 units"). `onReply` runs on the bus thread as each reply arrives, in
    /// arrival order relative to signals.
    ///
    /// - Parameters:
    ///   - count: How many calls.
    ///   - window: At most this many calls in flight.
    ///   - timeout: The reply timeout of each call; nil for sd-bus's default.
    ///   - makeCall: Builds call number `index`, when it is sent.
    ///   - onReply: Receives call `index`'s reply or error.
    /// - Throws: ``SystemdError`` if a call cannot be built or queued (no further call is sent then). Replies that are
    ///   errors go to `onReply`.
    public func callPipelined(
        count: Int,
        window: Int = 32,
        timeout: Duration? = nil,
        isolation: isolated (any Actor) = #isolation,
        makeCall: @escaping (Int) throws(SystemdError) -> BusMessage,
        onReply: @escaping (Int, sending Result<BusMessage, SystemdError>) -> Void
    ) async throws(SystemdError) {
        guard count > 0 else { return }
        let failure = await withCheckedContinuation(isolation: isolation) {
            (continuation: CheckedContinuation<SystemdError?, Never>) in
            let calls = PipelinedCalls(count: count, continuation: continuation)
            func sendNext() {
                guard let index = calls.takeNext() else { return }
                do throws(SystemdError) {
                    try callAsync(try makeCall(index), timeout: timeout) { result in
                        onReply(index, result)
                        // The next call before this one counts as answered, so the count never reaches 0 early.
                        sendNext()
                        calls.finishOne()
                    }
                } catch {
                    // The calls already queued still complete; this failure is reported once they have.
                    calls.fail(error)
                }
            }
            for _ in 0..<min(count, max(window, 1)) { sendNext() }
        }
        if let failure { throw failure }
    }
}

/// The state of one
/// ``BusConnection/callPipelined(count:window:timeout:isolation:makeCall:onReply:)``: the next call to send, the
/// calls sent and not answered, the first failure to send one.
private final class PipelinedCalls {
    private let count: Int
    private var next = 0
    private var outstanding = 0
    private var failure: SystemdError?
    private var continuation: CheckedContinuation<SystemdError?, Never>?

    init(count: Int, continuation: CheckedContinuation<SystemdError?, Never>) {
        self.count = count
        self.continuation = continuation
    }

    /// The index of the next call to send, counted as outstanding; nil once all were sent or one could not be.
    func takeNext() -> Int? {
        guard failure == nil, next < count else { return nil }
        next += 1
        outstanding += 1
        return next - 1
    }

    func finishOne() {
        outstanding -= 1
        resumeIfDone()
    }

    /// The call last taken could not be sent: none is sent after it.
    func fail(_ error: SystemdError) {
        failure = error
        outstanding -= 1
        resumeIfDone()
    }

    private func resumeIfDone() {
        guard outstanding == 0, failure != nil || next == count, let continuation else { return }
        self.continuation = nil
        continuation.resume(returning: failure)
    }
}
