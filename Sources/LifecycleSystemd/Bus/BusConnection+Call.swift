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
    /// daemon's `max_replies_per_connection` (128 on some system buses). `onReply` runs on the bus thread as each
    /// reply arrives, in arrival order relative to signals.
    ///
    /// - Parameters:
    ///   - count: How many calls.
    ///   - window: At most this many calls in flight.
    ///   - timeout: The reply timeout of each call; nil for sd-bus's default.
    ///   - makeCall: Builds call number `index`.
    ///   - onReply: Receives call `index`'s reply or error.
    /// - Throws: ``SystemdError`` if a call cannot be built or queued. Replies that are errors go to `onReply`.
    public func callPipelined(
        count: Int,
        window: Int = 32,
        timeout: Duration? = nil,
        isolation: isolated (any Actor) = #isolation,
        makeCall: (Int) throws(SystemdError) -> BusMessage,
        onReply: @escaping (Int, sending Result<BusMessage, SystemdError>) -> Void
    ) async throws(SystemdError) {
        var next = 0
        while next < count {
            let end = min(count, next + max(window, 1))
            var messages: [BusMessage] = []
            for index in next..<end {
                messages.append(try makeCall(index))
            }
            let first = next
            let failure = await withCheckedContinuation(isolation: isolation) {
                (continuation: CheckedContinuation<SystemdError?, Never>) in
                let batch = BatchCountdown(outstanding: messages.count, continuation: continuation)
                for (offset, message) in messages.enumerated() {
                    do throws(SystemdError) {
                        try callAsync(message, timeout: timeout) { result in
                            onReply(first + offset, result)
                            batch.finishOne()
                        }
                    } catch {
                        // The calls already queued still complete; report this failure once they have.
                        batch.abandon(messages.count - offset, because: error)
                        return
                    }
                }
            }
            if let failure { throw failure }
            next = end
        }
    }
}

/// Counts the replies of one window of
/// ``BusConnection/callPipelined(count:window:timeout:isolation:makeCall:onReply:)``.
private final class BatchCountdown {
    private var outstanding: Int
    private var failure: SystemdError?
    private let continuation: CheckedContinuation<SystemdError?, Never>

    init(outstanding: Int, continuation: CheckedContinuation<SystemdError?, Never>) {
        self.outstanding = outstanding
        self.continuation = continuation
        if outstanding == 0 { continuation.resume(returning: nil) }
    }

    func finishOne() {
        outstanding -= 1
        if outstanding == 0 { continuation.resume(returning: failure) }
    }

    func abandon(_ count: Int, because error: SystemdError) {
        failure = error
        outstanding -= count
        if outstanding == 0 { continuation.resume(returning: failure) }
    }
}
