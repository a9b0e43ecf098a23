// SPDX-License-Identifier: Apache-2.0

import Foundation
import Glibc
import Synchronization

/// A private `dbus-daemon --session` for one test, listening on a socket in its own temporary directory.
///
/// The daemon is spawned directly (`posix_spawn`) so that this type alone reaps it; only its pid is ever signalled.
/// Tests that need it skip themselves when ``isAvailable`` is false.
public final class PrivateBus: Sendable {
    /// The daemon binary, if installed.
    public static let daemonPath: String? = ["/usr/bin/dbus-daemon", "/bin/dbus-daemon"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    public static var isAvailable: Bool { daemonPath != nil }

    /// The directory holding the socket; removed by ``stop()``.
    public let directory: String
    private let state = Mutex<(pid: pid_t, address: String)>((0, ""))

    private init(directory: String) {
        self.directory = directory
    }

    /// Starts a daemon in a new temporary directory.
    public static func start() throws -> PrivateBus {
        var template = Array("/tmp/lifecycled-bus-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw PrivateBusError.setup("mkdtemp", errno) }
        let path = template.dropLast().map { UInt8(bitPattern: $0) }
        let bus = PrivateBus(directory: String(decoding: path, as: UTF8.self))
        try bus.launch()
        return bus
    }

    public var socketPath: String { directory + "/bus" }

    /// The address the daemon printed, e.g. `unix:path=/tmp/…/bus,guid=…`. The guid pins this daemon instance:
    /// sd-bus refuses a server with another guid, so use ``socketAddress`` to reach a restarted daemon.
    public var address: String { state.withLock { $0.address } }

    /// The address without a guid, valid across restarts on the same socket.
    public var socketAddress: String { "unix:path=\(socketPath)" }

    /// Starts (again) a daemon on the same socket path, e.g. after ``kill()``.
    public func launch() throws {
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
    public func kill() {
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
    public func stop() {
        kill()
        unlink(socketPath)
        rmdir(directory)
    }

    deinit {
        stop()
    }
}

public enum PrivateBusError: Error {
    case missingDaemon
    case noAddress
    case setup(String, Int32)
}
