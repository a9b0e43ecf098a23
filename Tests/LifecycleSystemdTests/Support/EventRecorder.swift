// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd
import Synchronization
import Testing

/// Collects a source's events in the background, so tests can wait for the next one with a timeout.
final class EventRecorder: Sendable {
    private final class Storage: Sendable {
        let events = Mutex<[UnitSourceEvent]>([])
        let isFinished = Mutex(false)
    }

    private let storage = Storage()
    private let cursor = Mutex(0)
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<UnitSourceEvent>) {
        let storage = self.storage
        task = Task {
            for await event in stream {
                storage.events.withLock { $0.append(event) }
            }
            storage.isFinished.withLock { $0 = true }
        }
    }

    deinit {
        task.cancel()
    }

    /// The next event not yet returned, waiting up to `timeout`.
    func next(timeout: Duration = .seconds(10)) async throws -> UnitSourceEvent {
        let deadline = ContinuousClock.now + timeout
        while true {
            let index = cursor.withLock { $0 }
            if let event = storage.events.withLock({ index < $0.count ? $0[index] : nil }) {
                cursor.withLock { $0 += 1 }
                return event
            }
            if storage.isFinished.withLock({ $0 }) { throw RecorderError.finished }
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

    /// Whether the stream has finished, waiting up to `timeout`.
    func waitForFinish(timeout: Duration = .seconds(10)) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if storage.isFinished.withLock({ $0 }) { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }

    /// Events received so far and not yet returned by ``next(timeout:)``.
    var pending: [UnitSourceEvent] {
        let index = cursor.withLock { $0 }
        return storage.events.withLock { Array($0[index...]) }
    }
}

enum RecorderError: Error {
    case timedOut
    case finished
}
