// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import LifecycleSystemd
import Logging

/// lifecycled's one loop: takes every input in turn (systemd's signals, D-Bus calls, SIGHUP, timers, SIGTERM), hands
/// it to the pure ``DaemonCore`` and performs the effects it returns, in order (``DaemonLoop``). The loop is the only
/// code that changes the core, and it never suspends: an answer given at once goes back before the next effect, and
/// an effect that waits for the bus is performed by a task of its own whose answer comes back as an input
/// (``performOnBus(_:)``). So no input is ever handled between two halves of a transition.
///
/// Everything runs on one thread, ``thread``: this actor, the unit source and the D-Bus interface all have it as their
/// executor, and timers and Unix signals are sources of its poll loop. Only the looks at the journal and a recovery's
/// reads of it run beside it, on a thread of their own (``JournalLooker``). Nothing runs on Swift's global executor,
/// whose first job would arm a once-a-second libdispatch timer for the life of the process.
public actor LifecycleDaemon {
    let options: DaemonOptions
    let logger: Logger
    var core: DaemonCore
    let store: StateStore
    /// Writes the records; the store itself only loads them, at start.
    let stateFiles: StateFileWriter
    private let lock: StateDirectoryLock
    let journal = JournalSink()
    let notifier = ServiceNotifier()
    var versions = VersionReader()
    /// Inputs that came while another was handled, in order (``take(_:)``). Rarely more than one: an Array.
    private var waitingInputs: [DaemonInput] = []
    private var isHandling = false
    /// Set once the core said the loop is done: inputs that still come are ignored.
    private(set) var isLoopDone = false
    /// ``run()``, waiting for the loop to be done.
    private var loopDone: CheckedContinuation<Void, Never>?
    var source: SystemdUnitSource?
    var manager: ManagerObject?
    var timers: [DaemonTimer: BusTimerID] = [:]
    /// D-Bus calls waiting for the core's reply.
    var replies: [ReplyToken: CheckedContinuation<Result<UInt64, EventRequestError>, Never>] = [:]
    var lastReplyID: UInt64 = 0
    /// Why the last metrics write failed; nil while writes work.
    var metricsFailure: String?
    /// The metrics file whose leftover temporary files were removed (at its first write).
    var metricsLeftoversChecked: String?
    /// Effects waiting for the bus, in order, and the task that performs them (``performOnBus(_:)``).
    var busEffects: [DaemonEffect] = []
    var isPerformingOnBus = false
    var busWorker: Task<Void, Never>?
    /// The size each archive shard compacted in this process was left at (``UnitArchive/needsCompaction(size:lastCompacted:)``).
    var compactedShards: [String: Int] = [:]
    /// Why the first subscription to systemd failed: ``run()`` stops and throws it.
    var startFailure: (any Error)?
    /// Looks for dispatches in the journal off the loop; started at the first look (``JournalLooker``).
    var looker: JournalLooker?
    /// The thread of the loop, its bus connections, timers and signals.
    public nonisolated let thread: BusThread
    private nonisolated let ownsThread: Bool

    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        thread.asUnownedSerialExecutor()
    }

    /// Locks the state directory and loads its state files; fails when another lifecycled uses the directory, when
    /// it cannot be read, or when it holds a file from a newer version. A directory that cannot be created or
    /// written is no failure: the core reports it and tracks on (``StateDirectoryProblem``).
    ///
    /// - Parameter thread: the loop's thread, shared with the caller; nil to start one.
    public init(
        options: DaemonOptions, configuration: LifecycleConfiguration, logger: Logger, thread: BusThread? = nil
    ) throws {
        self.options = options
        self.logger = logger
        let store = StateStore(directory: options.stateDirectory(configuration))
        self.store = store
        let lock = try StateDirectoryLock(directory: store.directory)
        self.lock = lock
        let problem = lock.writeProblem
        if lock.lockedPath == nil {
            logger.warning("Cannot lock the state directory \(store.directory): nothing keeps a second lifecycled off it")
        }
        // A directory that cannot be written is loaded without changing anything: corrupt files stay in place, and
        // their units are rebuilt from the journal as when they are moved aside.
        let contents = try StateStore(directory: store.directory, readOnly: problem != nil).loadAll()
        self.stateFiles = StateFileWriter(store: store)
        for warning in contents.warnings {
            logger.warning("\(warning)")
        }
        let setAside = Set(contents.warnings.compactMap { warning in
            switch warning.action {
            case .movedAside, .leftInPlace: warning.unit
            case .removedTemporaryFile, .ignored: nil
            }
        })
        let tracker = UnitTracker(
            configuration: configuration, timeZone: try configuration.localTimeZone(), records: contents.records
        )
        // Only root's entries are trusted (`_UID=0`), and only root may read the whole journal; the user manager logs
        // its runs under other field names.
        let isRoot = getuid() == 0
        core = DaemonCore(
            tracker: tracker, unitsSetAside: setAside, readsJournal: isRoot,
            readsManagerJournal: options.bus(configuration) == .system, stateDirectoryProblem: problem
        )
        self.thread = try BusThread.shared(thread, orNew: "lifecycled")
        ownsThread = thread == nil
        logger.info("Loaded \(contents.records.count) unit state files from \(store.unitsDirectory)")
    }

    /// Runs until SIGTERM or SIGINT. SIGHUP reloads the configuration. The signals reach the loop through its thread
    /// (``BusThread/watchSignals(_:handler:)``).
    public func run() async throws {
        try thread.watchSignals([SIGHUP, SIGTERM, SIGINT]) { [unowned self] signal in
            self.assumeIsolated { $0.received(signal) }
        }
        if let interval = try? notifier.watchdogInterval() { pingWatchdog(every: interval / 2) }
        take(.start)
        if !isLoopDone { await withCheckedContinuation { loopDone = $0 } }
        // Calls that came after SIGTERM, behind it in the inputs: answered rather than left to their callers' timeout,
        // and before the D-Bus interface stops, which waits for the answers to the calls it received.
        for continuation in replies.values { continuation.resume(returning: .failure(.stopping)) }
        replies = [:]
        // The source first: closing its connection fails the call the bus effects may be waiting for, whose answer
        // the loop no longer takes, and they stop there (``performOnBus(_:)``); again after them, in case they were
        // subscribing anew.
        await stopSource()
        await busWorker?.value
        await stopSource()
        await manager?.stop()
        for timer in timers.values { thread.cancel(timer) }
        if let startFailure { throw startFailure }
    }

    /// Ends the loop's thread when the daemon started it; call it after ``run()`` returned, from outside the thread.
    public nonisolated func close() async {
        // The looks' thread first: its looker is asked for on the loop's.
        if let lookerThread = await looker?.thread, lookerThread !== thread { await lookerThread.shutdown() }
        if ownsThread { await thread.shutdown() }
    }

    /// Takes every input of the loop, where it comes from: on the loop's thread, in a job or a callback of
    /// `sd_bus_process` (a unit's change), a timer or a Unix signal; from the looks' thread through a hop to the
    /// actor. Each is handed to the core and its effects performed (``DaemonLoop``) at once, without suspending, so the
    /// actor is never re-entered in the middle of an input; one that comes while another is handled (a D-Bus answer
    /// given at once, say) waits for it, and they are taken in the order they came.
    ///
    /// Taken where they come, rather than through an `AsyncStream` the loop awaited: each input then cost a yield, a
    /// job, two task switches and a turn of the thread's loop, about 9 % of lifecycled's instructions per run in a
    /// churn, and a unit's change waited behind them (docs/PERFORMANCE.md, "Fewer instructions per run, third
    /// round").
    func take(_ input: DaemonInput) {
        guard !isLoopDone else { return }
        waitingInputs.append(input)
        guard !isHandling else { return }
        isHandling = true
        defer { isHandling = false }
        while !isLoopDone, !waitingInputs.isEmpty {
            let next = waitingInputs.removeFirst()
            let goesOn = DaemonLoop.run(
                next, handle: { core.handle($0, now: Self.now(), uptime: Self.uptime()) }, perform: { perform($0) }
            )
            if !goesOn { finishLoop() }
        }
    }

    /// The core said the loop is done: what still waits, or comes, is not taken, and ``run()`` goes on to stop.
    private func finishLoop() {
        isLoopDone = true
        waitingInputs = []
        loopDone?.resume()
        loopDone = nil
    }

    /// SIGHUP reads the configuration again (the core takes it or keeps the previous one); SIGTERM and SIGINT stop.
    private func received(_ signal: Int32) {
        guard signal == SIGHUP else {
            take(.stop)
            return
        }
        let result: Result<ReloadedConfiguration, ConfigurationReloadError>
        do {
            let loaded = try ConfigLoader(path: options.configPath).load()
            result = .success(ReloadedConfiguration(configuration: loaded, timeZone: try loaded.localTimeZone()))
        } catch {
            result = .failure(ConfigurationReloadError("\(error)"))
        }
        take(.reloaded(result))
    }

    /// Pings the watchdog at half its interval, through the loop: the ping proves that inputs are being handled, not
    /// merely that a thread is alive; and the core withholds it while its work has waited too long for an answer
    /// (``DaemonCore/stallLimit``).
    private func pingWatchdog(every period: Duration) {
        thread.schedule(after: period) { [unowned self] in
            self.assumeIsolated { daemon in
                daemon.take(.timer(.watchdog))
                daemon.pingWatchdog(every: period)
            }
        }
    }

    /// The wall clock in ms since the epoch (`CLOCK_REALTIME`).
    static func now() -> Milliseconds {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Milliseconds(time.tv_sec) * 1_000 + Milliseconds(time.tv_nsec) / 1_000_000
    }

    /// The monotonic clock (`CLOCK_MONOTONIC`, the bus thread's timers' clock), which times what waits.
    static func uptime() -> Uptime {
        Uptime(milliseconds: Int64(BusThread.monotonicMicroseconds() / 1_000))
    }
}
