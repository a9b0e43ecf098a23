// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd
import Synchronization
import Testing

/// Collects a source's events as its event handler, so tests can wait for the next one with a timeout.
final class EventRecorder: Sendable {
    private let events = Mutex<[UnitSourceEvent]>([])
    private let cursor = Mutex(0)

    /// The source's event handler.
    var handler: @Sendable (UnitSourceEvent) -> Void {
        { [self] event in events.withLock { $0.append(event) } }
    }

    /// The next event not yet returned, waiting up to `timeout`.
    func next(timeout: Duration = .seconds(10)) async throws -> UnitSourceEvent {
        let deadline = ContinuousClock.now + timeout
        while true {
            let index = cursor.withLock { $0 }
            if let event = events.withLock({ index < $0.count ? $0[index] : nil }) {
                cursor.withLock { $0 += 1 }
                return event
            }
            if ContinuousClock.now >= deadline { throw RecorderError.timedOut }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The next event other than `signalsLost`: a dying bus daemon may announce systemd's departure before the
    /// connection breaks, or not.
    func nextAfterSignalsLost(timeout: Duration = .seconds(10)) async throws -> UnitSourceEvent {
        let event = try await next(timeout: timeout)
        return event == .signalsLost ? try await next(timeout: timeout) : event
    }

    /// Expects the next event to be `expected`.
    func expectNext(
        _ expected: UnitSourceEvent,
        timeout: Duration = .seconds(10),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let event = try await next(timeout: timeout)
        #expect(event == expected, sourceLocation: sourceLocation)
    }

    /// Events received so far and not yet returned by ``next(timeout:)``.
    var pending: [UnitSourceEvent] {
        let index = cursor.withLock { $0 }
        return events.withLock { Array($0[index...]) }
    }
}

enum RecorderError: Error {
    case timedOut
}
