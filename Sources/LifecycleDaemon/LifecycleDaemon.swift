// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage
import LifecycleSystemd
import Logging
import ServiceLifecycle
import UnixSignals

/// lifecycled: watches the configured units over sd-bus and records every launch, wake, sleep and crash in their
/// state files and in the journal.
///
/// Events are handled one at a time, in the order systemd sent them, on this actor; the bus thread only decodes and
/// hands them over, so it never waits for disk or journal.
public actor LifecycleDaemon: Service {
    let options: DaemonOptions
    let logger: Logger
    var configuration: LifecycleConfiguration
    var tracker: UnitTracker
    private let store: StateStore
    let journal = JournalSink()
    private let notifier = ServiceNotifier()
    private var versions = VersionReader()
    private var source: SystemdUnitSource?
    private var eventsTask: Task<Void, Never>?
    private var isReloading = false
    private var hasReconciled = false
    /// True once the first listing of the watched units is applied (reconciled and baselined).
    private var hasFirstListing = false
    private var firstListingWaiters: [CheckedContinuation<Void, Never>] = []
    private var statusText = "Starting"
    /// lifecycled's D-Bus interface, nil when it could not be published.
    private var manager: ManagerObject?
    /// Set when the bus connection broke: the interface is published again once the unit source is back.
    private var isManagerStale = false
    /// Set when the bus connection broke or systemd left the bus: from when PID 1's journal is read for the runs whose
    /// signals were lost.
    private var signalsLostSince: UInt64?
    /// Changes that came in after a reconnect, before the listing, each with whether systemd was reloading then:
    /// handled after what the journal says was missed.
    private var changesAfterReconnect: [(snapshot: UnitSnapshot, whileReloading: Bool)] = []
    /// Units whose state file could not be read at start: they start fresh, numbered after their last dispatch.
    let unitsSetAside: Set<String>
    var dispatchCount = 0
    /// Journal entries the journal refused, oldest first; see `LifecycleDaemon+Delivery.swift`.
    var undelivered: [PendingDispatch] = []
    var retryTask: Task<Void, Never>?
    /// Dispatches the journal accepted, oldest first, until they are seen in it; see `LifecycleDaemon+Delivery.swift`.
    var unconfirmed: [SentDispatch] = []
    var confirmationTask: Task<Void, Never>?

    /// Loads the state files; fails when the state directory cannot be read or holds a file from a newer version.
    public init(options: DaemonOptions, configuration: LifecycleConfiguration, logger: Logger) throws {
        self.options = options
        self.logger = logger
        self.configuration = configuration
        self.store = StateStore(directory: options.stateDirectory(configuration))
        let contents = try store.loadAll()
        for warning in contents.warnings {
            logger.warning("\(warning)")
        }
        unitsSetAside = Set(contents.warnings.compactMap { warning in
            switch warning.action {
            case .movedAside, .leftInPlace: warning.unit
            case .removedTemporaryFile, .ignored: nil
            }
        })
        tracker = UnitTracker(
            configuration: configuration,
            timeZone: try configuration.localTimeZone(),
            records: contents.records
        )
        logger.info("Loaded \(contents.records.count) unit state files from \(store.unitsDirectory)")
    }

    public func run() async throws {
        await deliverPendingDispatches()
        try await startSource()
        // Manual events must not overtake what happened while lifecycled was down: first the listing, then the name.
        await firstListing()
        manager = await publishManager(on: options.bus(configuration), logger: logger)
        // READY=1 only now: the state is loaded, the first listing applied and the bus name owned (or given up on).
        notify(.ready, .status(statusText))
        markTrackingStarted(status: statusText)
        logger.info("\(statusText)")
        await withDiscardingTaskGroup { group in
            group.addTask { await self.handleReloadSignals() }
            group.addTask { await self.pingWatchdog() }
            try? await gracefulShutdown()
            group.cancelAll()
        }
        notify(.stopping)
        await manager?.stop()
        await stopSource()
        retryTask?.cancel()
        confirmationTask?.cancel()
        if !undelivered.isEmpty {
            logger.warning("Stopping with \(undelivered.count) dispatches the journal refused; they are sent at the next start")
        }
        logger.info("Stopped after \(dispatchCount) dispatches")
    }

    // MARK: - Events

    private func startSource() async throws {
        let patterns = configuration.watch.map(\.pattern)
        guard !patterns.isEmpty else {
            logger.notice("No units are watched: add patterns to \"watch\" in the configuration")
            report(status: "Watching no units")
            finishFirstListing()
            return
        }
        let source = try SystemdUnitSource(address: options.bus(configuration), patterns: patterns, logger: logger)
        try await source.start()
        self.source = source
        eventsTask = Task { await self.consume(source) }
    }

    private func stopSource() async {
        await source?.stop()
        await eventsTask?.value
        source = nil
        eventsTask = nil
    }

    private func consume(_ source: SystemdUnitSource) async {
        for await event in source.events {
            await handle(event, from: source)
        }
    }

    private func handle(_ event: UnitSourceEvent, from source: SystemdUnitSource) async {
        switch event {
        case .initial(let snapshots):
            isReloading = false
            if !hasReconciled {
                hasReconciled = true
                await reconcile(with: snapshots, from: source)
            } else if let since = signalsLostSince {
                signalsLostSince = nil
                await reconcile(with: snapshots, lostSince: since, from: source)
                let changes = changesAfterReconnect
                changesAfterReconnect = []
                for change in changes {
                    await apply(tracker.transitions(for: change.snapshot, whileReloading: change.whileReloading), from: source)
                }
            }
            await apply(tracker.resync(snapshots, isFirstListing: !hasFirstListing), from: source)
            if isManagerStale {
                // The bus came back (dbus-daemon restarted): the old connection's name and object are gone.
                isManagerStale = false
                await manager?.stop()
                manager = await publishManager(on: options.bus(configuration), logger: logger)
            }
            let watched = snapshots.filter { configuration.isWatched($0.name) }.count
            report(status: "Watching \(watched) loaded units")
            finishFirstListing()
        case .changed(let snapshot) where signalsLostSince != nil:
            changesAfterReconnect.append((snapshot, isReloading))
        case .changed(let snapshot):
            await apply(tracker.transitions(for: snapshot, whileReloading: isReloading), from: source)
        case .reloading(let active):
            isReloading = active
        case .removed, .jobRemoved:
            break
        case .signalsLost:
            logger.notice("systemd left the bus: what happens until it is back is read from its journal")
            markSignalsLost()
        case .connectionLost(let error):
            logger.warning("Lost the bus connection, reconnecting", metadata: ["error": "\(error)"])
            isManagerStale = hasFirstListing
            markSignalsLost()
            notify(.status("Reconnecting to the bus: \(error)"))
        }
    }

    func apply(_ transitions: [MappedTransition], from source: SystemdUnitSource) async {
        for transition in transitions {
            let version = transition.transition == .began ? await version(of: transition.unit, from: source) : nil
            perform(tracker.apply(transition, version: version, now: Self.now()))
        }
    }

    func perform(_ effects: [UnitTracker.Effect]) {
        for effect in effects {
            switch effect {
            case .persist(let record):
                do {
                    try store.save(record)
                } catch {
                    logger.error("Failed to save the state of \(record.unit)", metadata: ["error": "\(error)"])
                }
            case .dispatch(let unit, _, _, _, let sequence, let entry):
                deliver(PendingDispatch(unit: unit, sequence: sequence, fields: entry.fields))
            case .refused(let unit, let event, let error):
                logger.debug("Ignored \(event) of \(unit): \(error)")
            }
        }
    }

    /// The unit's version by its configured source; nil (no update detection) when it cannot be read.
    private func version(of unit: String, from source: SystemdUnitSource) async -> String? {
        let versionSource = configuration.versionSource(for: unit)
        if case .none = versionSource { return nil }
        let details: UnitDetails
        do {
            details = try await source.details(of: unit)
        } catch where error.errno == ENOENT {
            // A short-lived run (a oneshot, a transient unit) is often unloaded before its start is handled: expected.
            logger.debug("No version for \(unit): it is no longer loaded")
            return nil
        } catch {
            logger.warning("Failed to read the version of \(unit)", metadata: ["error": "\(error)"])
            return nil
        }
        let inputs = UnitVersionInputs(
            executablePath: details.mainExecutable,
            fragmentPath: details.fragmentPath,
            dropInPaths: details.dropInPaths,
            environment: details.environment
        )
        do {
            return try versions.version(of: versionSource, inputs: inputs)
        } catch {
            logger.warning("Failed to read the version of \(unit)", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// From now until the next listing, systemd's signals may be lost: that listing is preceded by what PID 1's
    /// journal logged meanwhile, and the changes that arrive before it wait for it.
    private func markSignalsLost() {
        if hasReconciled, signalsLostSince == nil {
            signalsLostSince = UInt64(max(0, Self.now())) * 1_000
        }
    }

    // MARK: - Service manager

    /// Shows `status` in `systemctl status` (once READY=1 was sent; before, it waits for READY=1).
    private func report(status: String) {
        let changed = status != statusText
        statusText = status
        if hasFirstListing, changed { notify(.status(status)) }
    }

    /// Returns once the first listing of the watched units has been applied.
    private func firstListing() async {
        guard !hasFirstListing else { return }
        await withCheckedContinuation { firstListingWaiters.append($0) }
    }

    private func finishFirstListing() {
        guard !hasFirstListing else { return }
        hasFirstListing = true
        for waiter in firstListingWaiters { waiter.resume() }
        firstListingWaiters = []
    }

    private func notify(_ notifications: ServiceNotification...) {
        do {
            _ = try notifier.notify(notifications)
        } catch {
            logger.warning("Failed to notify the service manager", metadata: ["error": "\(error)"])
        }
    }

    /// Pings the watchdog at half its interval, after a round trip through this actor: the ping proves that events
    /// are being handled, not merely that a thread is alive.
    private func pingWatchdog() async {
        guard let interval = try? notifier.watchdogInterval() else { return }
        while true {
            do {
                try await Task.sleep(for: interval / 2)
            } catch {
                return  // cancelled at shutdown
            }
            notify(.watchdog)
        }
    }

    /// SIGHUP reloads the configuration; an invalid one is reported and the previous one kept.
    private func handleReloadSignals() async {
        for await _ in await UnixSignalsSequence(trapping: .sighup) {
            await reloadConfiguration()
        }
    }

    private func reloadConfiguration() async {
        notify(.reloading)
        defer { notify(.ready) }
        let loaded: LifecycleConfiguration
        let zone: TimeZoneRules
        do {
            loaded = try ConfigLoader(path: options.configPath).load()
            zone = try loaded.localTimeZone()
        } catch {
            logger.error("Failed to reload the configuration, keeping the previous one", metadata: ["error": "\(error)"])
            notify(.status("Configuration reload failed: \(error)"))
            return
        }
        let patternsChanged = loaded.patterns != configuration.patterns || options.bus(loaded) != options.bus(configuration)
        configuration = loaded
        tracker.reconfigure(loaded, timeZone: zone)
        logger.notice("Reloaded the configuration", metadata: ["watch": "\(loaded.patterns)"])
        guard patternsChanged else { return }
        await stopSource()
        do {
            try await startSource()
        } catch {
            logger.error("Failed to watch the units of the new configuration", metadata: ["error": "\(error)"])
        }
    }

    static func now() -> Milliseconds {
        Milliseconds((Date().timeIntervalSince1970 * 1_000).rounded(.down))
    }
}
