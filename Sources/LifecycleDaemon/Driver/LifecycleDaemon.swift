// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage
import LifecycleSystemd
import Logging
import ServiceLifecycle
import UnixSignals

/// lifecycled's one loop: takes every input in turn (systemd's signals, D-Bus calls, SIGHUP, timers, SIGTERM), hands
/// it to the pure ``DaemonCore`` and performs the effects it returns, in order. The loop is the only code that
/// touches the core; an effect with an answer feeds it back before the next effect runs, so no input is ever handled
/// between two halves of a transition.
public actor LifecycleDaemon: Service {
    let options: DaemonOptions
    let logger: Logger
    var core: DaemonCore
    let store: StateStore
    private let lock: StateDirectoryLock
    let journal = JournalSink()
    let notifier = ServiceNotifier()
    var versions = VersionReader()
    private let inputs: AsyncStream<DaemonInput>
    let input: AsyncStream<DaemonInput>.Continuation
    var source: SystemdUnitSource?
    var sourceTask: Task<Void, Never>?
    var manager: ManagerObject?
    var timers: [DaemonTimer: Task<Void, Never>] = [:]
    var replies: [ReplyToken: CheckedContinuation<Result<UInt64, EventRequestError>, Never>] = [:]
    var lastReplyID: UInt64 = 0
    /// Why the last metrics write failed; nil while writes work.
    var metricsFailure: String?

    /// Locks the state directory and loads its state files; fails when another lifecycled uses the directory, when
    /// it cannot be read, or when it holds a file from a newer version.
    public init(options: DaemonOptions, configuration: LifecycleConfiguration, logger: Logger) throws {
        self.options = options
        self.logger = logger
        self.store = StateStore(directory: options.stateDirectory(configuration))
        self.lock = try StateDirectoryLock(directory: store.directory)
        let contents = try store.loadAll()
        for warning in contents.warnings {
            logger.warning("\(warning)")
        }
        let setAside = Set(contents.warnings.compactMap { warning in
            switch warning.action {
            case .movedAside, .leftInPlace: warning.unit
            case .removedTemporaryFile, .ignored: nil
            }
        })
        let tracker = UnitTracker(configuration: configuration, timeZone: try configuration.localTimeZone(), records: contents.records)
        // Only root's entries are trusted (`_UID=0`), and only root may read the whole journal; the user manager logs
        // its runs under other field names.
        let isRoot = getuid() == 0
        core = DaemonCore(
            tracker: tracker, unitsSetAside: setAside, readsJournal: isRoot,
            readsManagerJournal: options.bus(configuration) == .system
        )
        (inputs, input) = AsyncStream.makeStream(of: DaemonInput.self, bufferingPolicy: .unbounded)
        logger.info("Loaded \(contents.records.count) unit state files from \(store.unitsDirectory)")
    }

    public func run() async throws {
        input.yield(.start)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await self.forwardReloadSignals() }
            group.addTask { await self.pingWatchdog() }
            group.addTask {
                try? await gracefulShutdown()
                self.input.yield(.stop)
            }
            for await next in inputs {
                guard try await handle(next) else { break }
            }
            group.cancelAll()
        }
        await manager?.stop()
        await stopSource()
        for timer in timers.values { timer.cancel() }
    }

    /// Hands one input to the core and performs its effects; an answer goes back to the core at once and its own
    /// effects run before the rest.
    ///
    /// - Returns: false once the core says the loop is done.
    private func handle(_ next: DaemonInput) async throws -> Bool {
        var pending = core.handle(next, now: Self.now())
        var index = 0
        while index < pending.count {
            let effect = pending[index]
            index += 1
            if effect == .exit { return false }
            if let answer = try await perform(effect) {
                pending.insert(contentsOf: core.handle(answer, now: Self.now()), at: index)
            }
        }
        return true
    }

    /// Feeds systemd's unit events into the loop, translated into inputs.
    func forward(_ source: SystemdUnitSource) async {
        for await event in source.events {
            switch event {
            case .initial(let snapshots): input.yield(.listing(snapshots))
            case .changed(let snapshot): input.yield(.changed(snapshot))
            case .reloading(let active): input.yield(.reloading(active))
            case .signalsLost: input.yield(.signalsLost)
            case .connectionLost(let error): input.yield(.connectionLost("\(error)"))
            case .removed, .jobRemoved: break
            }
        }
    }

    /// SIGHUP reads the configuration again; the core takes it or keeps the previous one.
    private func forwardReloadSignals() async {
        for await _ in await UnixSignalsSequence(trapping: .sighup) {
            let result: Result<ReloadedConfiguration, ConfigurationReloadError>
            do {
                let loaded = try ConfigLoader(path: options.configPath).load()
                result = .success(ReloadedConfiguration(configuration: loaded, timeZone: try loaded.localTimeZone()))
            } catch {
                result = .failure(ConfigurationReloadError("\(error)"))
            }
            input.yield(.reloaded(result))
        }
    }

    /// Pings the watchdog at half its interval, through the loop: the ping proves that inputs are being handled, not
    /// merely that a thread is alive.
    private func pingWatchdog() async {
        guard let interval = try? notifier.watchdogInterval() else { return }
        while true {
            do {
                try await Task.sleep(for: interval / 2)
            } catch {
                return  // cancelled at shutdown
            }
            input.yield(.timer(.watchdog))
        }
    }

    static func now() -> Milliseconds {
        Milliseconds((Date().timeIntervalSince1970 * 1_000).rounded(.down))
    }
}
