// SPDX-License-Identifier: Apache-2.0

/// How long to wait between attempts to reconnect: exponential back-off with a cap.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The wait before the first attempt.
    public var initialDelay: Duration
    /// The longest wait.
    public var maximumDelay: Duration

    /// 100 ms, doubling, at most 5 s: quick when only the connection blipped, gentle while the bus is down.
    public static let standard = ReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(5))

    public init(initialDelay: Duration, maximumDelay: Duration) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait before the attempt that follows `failures` failed ones.
    public func delay(afterFailures failures: Int) -> Duration {
        var delay = initialDelay
        for _ in 0..<max(failures, 0) {
            delay *= 2
            if delay >= maximumDelay { return maximumDelay }
        }
        return min(delay, maximumDelay)
    }
}
