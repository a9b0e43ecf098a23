// SPDX-License-Identifier: Apache-2.0

/// Where a ``UnitSourceMachine`` stands with its connection, with what belongs to each step.
enum UnitSourcePhase: Sendable, Hashable {
    /// Why a connection is being set up: a failed ``start`` is reported and not retried (the caller decides), a
    /// failed ``reconnect(failures:)`` is tried again after a longer back-off.
    enum Attempt: Sendable, Hashable {
        case start
        /// `failures` attempts since the connection broke have failed.
        case reconnect(failures: Int)
    }

    /// Not started, or the first connection failed.
    case idle
    /// The driver opens a connection and installs the matches. Signals may arrive already.
    case connecting(Attempt)
    /// Connected; the first resync (in full) runs. A failure is the attempt's.
    case establishing(Attempt)
    /// Set up; a requested resync may run.
    case established
    /// Set up, and the last `failures` requested resyncs failed: waiting for the retry timer, or running the retry.
    case retryingResync(failures: Int, isWaiting: Bool)
    /// The connection broke; `failures` attempts to connect again have failed, and the reconnect timer is armed.
    case awaitingReconnect(failures: Int)
    case stopped
}

extension UnitSourcePhase {
    /// Whether the connection is set up: what the details and run cost reads need.
    var isEstablished: Bool {
        switch self {
        case .established, .retryingResync: true
        case .idle, .connecting, .establishing, .awaitingReconnect, .stopped: false
        }
    }

    /// Whether a connection is open (or being opened), which ``UnitSourceEffect/disconnect`` closes.
    var hasConnection: Bool {
        switch self {
        case .connecting, .establishing, .established, .retryingResync: true
        case .idle, .awaitingReconnect, .stopped: false
        }
    }
}
