// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
import Logging

/// Connecting, losing the connection, connecting again with back-off, and stopping.
extension UnitSourceMachine {
    mutating func start(_ effects: inout [UnitSourceEffect]) {
        // The driver refuses a start while running or after a stop; a failed start leaves the source idle, and
        // calling start() again tries once more.
        guard phase == .idle else { return }
        connect(.start, &effects)
    }

    /// Opens a new connection. What was learnt on the last one about reloads, requests and definitions is forgotten:
    /// the first resync of the new one reads everything in full. The units are kept, so a unit that comes back keeps
    /// what is known of it until its reads replace it.
    mutating func connect(_ attempt: UnitSourcePhase.Attempt, _ effects: inout [UnitSourceEffect]) {
        generation += 1
        phase = .connecting(attempt)
        isResyncRequested = false
        isReloading = false
        isFullReadNeeded = false
        parked = [:]
        effects.append(.forgetDetails(of: nil))
        effects.append(.connect(generation: generation))
    }

    mutating func connected(_ generation: Int, _ effects: inout [UnitSourceEffect]) {
        guard generation == self.generation, case .connecting(let attempt) = phase else { return }
        phase = .establishing(attempt)
        beginResync(isFull: true, &effects)
    }

    mutating func connectFailed(_ generation: Int, _ error: SystemdError, _ effects: inout [UnitSourceEffect]) {
        guard generation == self.generation, case .connecting(let attempt) = phase else { return }
        attemptFailed(attempt, error, &effects)
    }

    /// A connection attempt failed (opening, a match, or the first resync): the first one is the caller's to handle;
    /// a reconnect is tried again after a longer wait.
    mutating func attemptFailed(
        _ attempt: UnitSourcePhase.Attempt, _ error: SystemdError, _ effects: inout [UnitSourceEffect]
    ) {
        resync = nil
        effects.append(.disconnect)
        switch attempt {
        case .start:
            phase = .idle
            effects.append(.finishStart(failure: error))
        case .reconnect(let failures):
            let failures = failures + 1
            phase = .awaitingReconnect(failures: failures)
            effects.append(log(.debug, "Failed to reconnect", ["error": "\(error)", "attempts": "\(failures)"]))
            effects.append(.armTimer(.reconnect, after: policy.delay(afterFailures: failures)))
        }
    }

    /// The connection was set up: the first resync's `initial` is out.
    mutating func established(_ attempt: UnitSourcePhase.Attempt, _ effects: inout [UnitSourceEffect]) {
        phase = .established
        effects.append(log(.info, "Watching systemd units", [
            "bus": busName, "patterns": "\(patterns.map(\.text))", "units": "\(units.count)",
        ]))
        switch attempt {
        case .start:
            effects.append(.finishStart(failure: nil))
        case .reconnect(let failures):
            effects.append(log(.notice, "Reconnected to the bus", ["bus": busName, "attempts": "\(failures + 1)"]))
        }
        if isResyncRequested {
            // systemd changed owner or reloaded while the listing was being read.
            requestResync(&effects)
        }
    }

    /// The connection broke. Once it was set up, that is reported and the source connects again with back-off; while
    /// it is being set up, it is the attempt's failure.
    mutating func connectionLost(_ generation: Int, _ error: SystemdError, _ effects: inout [UnitSourceEffect]) {
        guard generation == self.generation else { return }
        switch phase {
        case .connecting(let attempt), .establishing(let attempt):
            attemptFailed(attempt, error, &effects)
        case .established, .retryingResync:
            effects.append(log(.warning, "Lost the connection to the bus", ["bus": busName, "error": "\(error)"]))
            if case .retryingResync(_, isWaiting: true) = phase { effects.append(.cancelTimer(.resyncRetry)) }
            resync = nil
            phase = .awaitingReconnect(failures: 0)
            effects.append(.disconnect)
            effects.append(.deliver(.connectionLost(error)))
            effects.append(.armTimer(.reconnect, after: policy.delay(afterFailures: 0)))
        case .idle, .awaitingReconnect, .stopped:
            break
        }
    }

    mutating func timerFired(_ timer: UnitSourceTimer, _ effects: inout [UnitSourceEffect]) {
        switch (timer, phase) {
        case (.reconnect, .awaitingReconnect(let failures)):
            connect(.reconnect(failures: failures), &effects)
        case (.resyncRetry, .retryingResync(let failures, isWaiting: true)):
            phase = .retryingResync(failures: failures, isWaiting: false)
            if isResyncRequested { beginRequestedResync(&effects) }
        default:
            break
        }
    }

    /// Closes the connection, ends any wait and reports nothing more. A start still connecting fails.
    mutating func stop(_ effects: inout [UnitSourceEffect]) {
        let stopped = phase
        phase = .stopped
        resync = nil
        switch stopped {
        case .stopped, .idle:
            return
        case .connecting(let attempt), .establishing(let attempt):
            effects.append(.disconnect)
            if attempt == .start {
                effects.append(.finishStart(failure: SystemdError(
                    errno: ECANCELED, operation: "connect to the \(busName)", message: "Stopped"
                )))
            }
        case .established:
            effects.append(.disconnect)
        case .retryingResync(_, let isWaiting):
            if isWaiting { effects.append(.cancelTimer(.resyncRetry)) }
            effects.append(.disconnect)
        case .awaitingReconnect:
            effects.append(.cancelTimer(.reconnect))
        }
    }
}
