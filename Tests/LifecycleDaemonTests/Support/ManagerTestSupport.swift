// SPDX-License-Identifier: Apache-2.0

import Foundation
import Glibc
import LifecycleCore
import LifecycleDaemon
import LifecycleEngine
import LifecycleStorage
import LifecycleSystemd
import Logging
import Synchronization
import LifecycleTestSupport
import Testing

/// Answers ``ManagerObject``'s requests like the daemon would, and remembers them.
///
/// Accepted events get sequence numbers 1, 2, 3, …; ``refusal`` makes every event fail instead. ``hold()`` keeps
/// `send` waiting until ``release()``, to show that the bus thread does not wait with it.
actor FakeRequests: LifecycleRequests {
    private(set) var sent: [EventRequest] = []
    var refusal: EventRequestError?
    var stored: [String: UnitRecord] = [:]
    private var sequence: UInt64 = 0
    private var isHeld = false
    private var held: [CheckedContinuation<Void, Never>] = []

    func refuse(with error: EventRequestError?) { refusal = error }
    func store(_ record: UnitRecord) { stored[record.unit] = record }
    func hold() { isHeld = true }

    func release() {
        isHeld = false
        for continuation in held { continuation.resume() }
        held.removeAll()
    }

    func send(_ request: EventRequest) async -> Result<UInt64, EventRequestError> {
        sent.append(request)
        if isHeld { await withCheckedContinuation { held.append($0) } }
        if let refusal { return .failure(refusal) }
        sequence += 1
        return .success(sequence)
    }

    func record(of unit: String) -> UnitRecord? { stored[unit] }
    func records() -> [UnitRecord] { stored.values.sorted { $0.unit < $1.unit } }

    var degraded = Degradations()
    func degrade(_ cause: Degradations.Cause, reason: String, since: Milliseconds) {
        degraded.begin(cause, reason: reason, now: since)
    }
    func degradations() -> Degradations { degraded }
}

/// A ``ManagerObject`` over ``FakeRequests`` on a private bus, and a client connection to call it.
struct ManagerFixture {
    let daemon: PrivateBus
    let requests = FakeRequests()
    let object: ManagerObject
    let client: SystemdBus

    init(limits: ManagerObject.CallLimits = ManagerObject.CallLimits()) async throws {
        daemon = try PrivateBus.start()
        object = try await ManagerObject.start(
            on: .address(daemon.address), requests: requests, logger: Logger(label: "test"), limits: limits
        )
        client = try await SystemdBus.connect(.address(daemon.address), description: "client")
    }

    /// Calls `member` of lifecycled's object by its well-known name.
    func call<T: Sendable>(
        _ member: String,
        interface: String? = ManagerInterface.name,
        arguments: @escaping @Sendable (BusMessage) throws(SystemdError) -> Void = { _ in },
        decode: @escaping @Sendable (BusMessage) throws(SystemdError) -> T
    ) async throws(SystemdError) -> T {
        try await client.call(
            destination: ManagerInterface.busName, path: ManagerInterface.objectPath, interface: interface,
            member: member, arguments: arguments, decode: decode
        )
    }

    /// The error a call of `member` ends with; nil when it succeeds.
    func error(
        _ member: String,
        interface: String? = ManagerInterface.name,
        arguments: @escaping @Sendable (BusMessage) throws(SystemdError) -> Void = { _ in }
    ) async -> SystemdError? {
        do {
            let _: [BusValue] = try await client.call(
                destination: ManagerInterface.busName, path: ManagerInterface.objectPath, interface: interface,
                member: member, arguments: arguments
            )
            return nil
        } catch {
            return error
        }
    }

    func stop() async {
        await client.close()
        await object.stop()
        daemon.stop()
    }
}

/// The `lifecyclectl` built beside this test binary (`swift build` builds it with the tests), run as a process.
enum Lifecyclectl {
    static let path: String? = {
        guard let test = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return nil
        }
        let path = URL(fileURLWithPath: test).deletingLastPathComponent().appendingPathComponent("lifecyclectl").path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }()

    struct Outcome: Equatable {
        var status: Int32
        var output: String
        var error: String
    }

    /// Runs `lifecyclectl ARGUMENTS…` to its end, without blocking a thread of the test's executor meanwhile.
    static func run(_ arguments: [String]) async throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(path))
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
        // lifecyclectl writes a line or two: the pipes never fill up before it exits.
        return Outcome(
            status: process.terminationStatus,
            output: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            error: String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        )
    }
}

/// Keeps every message logged through it, for tests of what was logged.
struct RecordingLogHandler: LogHandler {
    final class Entries: Sendable {
        let messages = Mutex<[(level: Logger.Level, message: String)]>([])

        /// The messages logged at `level`, oldest first.
        func messages(at level: Logger.Level) -> [String] {
            messages.withLock { $0.filter { $0.level == level }.map(\.message) }
        }
    }

    let entries: Entries
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        entries.messages.withLock { $0.append((event.level, "\(event.message)")) }
    }
}
