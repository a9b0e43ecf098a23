// SPDX-License-Identifier: Apache-2.0

import Foundation
import Glibc
import LifecycleDaemon
import LifecycleStorage
import LifecycleSystemd
import Logging
import Synchronization
import Testing

/// A private `dbus-daemon --session` for one test, listening on a socket in its own temporary directory.
///
/// The daemon is spawned directly (`posix_spawn`) so that this type alone reaps it; only its pid is ever signalled.
/// A copy of the `LifecycleSystemdTests` helper of the same name (test targets cannot share sources).
final class PrivateBus: Sendable {
    /// The daemon binary, if installed.
    static let daemonPath: String? = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static var isAvailable: Bool { daemonPath != nil }

    /// The directory holding the socket; removed by ``stop()``.
    let directory: String
    private let state = Mutex<(pid: pid_t, address: String)>((0, ""))

    private init(directory: String) {
        self.directory = directory
    }

    /// Starts a daemon in a new temporary directory.
    static func start() throws -> PrivateBus {
        var template = Array("/tmp/lifecycled-bus-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw PrivateBusError.setup("mkdtemp", errno) }
        let path = template.dropLast().map { UInt8(bitPattern: $0) }
        let bus = PrivateBus(directory: String(decoding: path, as: UTF8.self))
        try bus.launch()
        return bus
    }

    var socketPath: String { directory + "/bus" }

    /// The address the daemon printed, e.g. `unix:path=/tmp/…/bus,guid=…`. The guid pins this daemon instance:
    /// sd-bus refuses a server with another guid, so use ``socketAddress`` to reach a restarted daemon.
    var address: String { state.withLock { $0.address } }

    /// The address without a guid, valid across restarts on the same socket.
    var socketAddress: String { "unix:path=\(socketPath)" }

    /// Starts (again) a daemon on the same socket path, e.g. after ``kill()``.
    func launch() throws {
        guard let daemonPath = Self.daemonPath else { throw PrivateBusError.missingDaemon }
        unlink(socketPath)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw PrivateBusError.setup("pipe", errno) }
        // Keep other tests' children from inheriting the pipe (dup2 gives the daemon its own stdout).
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        defer { close(fds[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [
            daemonPath, "--session", "--print-address=1", "--nofork", "--nopidfile",
            "--address=unix:path=\(socketPath)",
        ]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var envp: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { envp.forEach { free($0) } }
        // Test runner threads block most signals and children inherit that mask: unblock and reset them, or the
        // daemon ignores our SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaultSignals, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, daemonPath, &actions, &attributes, &argv, &envp)
        close(fds[1])
        guard rc == 0 else { throw PrivateBusError.setup("posix_spawn", rc) }
        state.withLock { $0.pid = pid }
        // The daemon prints its address once it listens.
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !output.contains(UInt8(ascii: "\n")) {
            let count = read(fds[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                kill()
                throw PrivateBusError.noAddress
            }
            output.append(contentsOf: buffer[0..<count])
        }
        let line = String(decoding: output, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        guard line.hasPrefix("unix:") else {
            kill()
            throw PrivateBusError.noAddress
        }
        state.withLock { $0.address = line }
    }

    /// Terminates the daemon (only our pid) and reaps it.
    func kill() {
        let pid = state.withLock { state -> pid_t in
            defer { state.pid = 0 }
            return state.pid
        }
        guard pid > 0 else { return }
        Glibc.kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Terminates the daemon and removes the directory.
    func stop() {
        kill()
        unlink(socketPath)
        rmdir(directory)
    }

    deinit {
        stop()
    }
}

enum PrivateBusError: Error {
    case missingDaemon
    case noAddress
    case setup(String, Int32)
}

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
}

/// A ``ManagerObject`` over ``FakeRequests`` on a private bus, and a client connection to call it.
struct ManagerFixture {
    let daemon: PrivateBus
    let requests = FakeRequests()
    let object: ManagerObject
    let client: SystemdBus

    init() async throws {
        daemon = try PrivateBus.start()
        object = try await ManagerObject.start(
            on: .address(daemon.address), requests: requests, logger: Logger(label: "test")
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
