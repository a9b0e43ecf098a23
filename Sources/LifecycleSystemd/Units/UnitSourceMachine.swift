// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Logging

/// Every decision of the unit source, as a value: what to call, what to read, what to report, when to try again.
///
/// It has no I/O, no clock and no tasks: ``SystemdUnitSource`` feeds it one ``UnitSourceInput`` at a time (systemd's
/// signals parsed into plain values, the answers to its calls, timers) and performs the ``UnitSourceEffect``s it
/// returns, in order. A resync that waits for a reply is a state here (``UnitSourceResync``), not a suspended
/// function, so a signal that comes meanwhile meets one consistent state, and every order of replies and signals can
/// be tested without a bus.
///
/// The rules it keeps:
/// - Connecting follows the order that leaves no gap: the matches, then `Subscribe()` (without which PID 1 sends no
///   unit signals; `AlreadySubscribed` counts as success), then `ListUnitsByPatterns([], patterns)`, skipping
///   `not-found` units, then `Get` of what a snapshot needs beyond the listing, then ``UnitSourceEvent/initial(_:)``.
/// - It never reads the properties of a unit it has not seen loaded, and never reacts to `UnitNew`: reading a unit
///   object loads the unit, which PID 1 announces with `UnitNew` and then garbage-collects, endlessly.
/// - It resyncs after `Reloading(false)` and whenever systemd's bus name gets a new owner, tries a failed resync
///   again with back-off, and connects again with back-off when the connection breaks. After a reload it reads again
///   only units whose state moved: a reload changes no unit's run state.
/// - Every event is sent at once, also while a resync collects: holding signals back could only reorder or lose them,
///   and the consumer tells an older snapshot from a newer one by its state-change time.
struct UnitSourceMachine: Sendable {
    /// The unit globs, as `ListUnitsByPatterns` takes them; empty watches every unit.
    let patterns: [UnitPattern]
    let policy: ReconnectPolicy
    /// The bus, as log messages name it.
    let busName: String

    var phase: UnitSourcePhase = .idle
    /// Watched units known to be loaded, by name.
    var units: [String: WatchedUnit] = [:]
    /// Units removed during a reload, kept until the listing after it says whether they are loaded again.
    var parked: [String: WatchedUnit] = [:]
    /// Between `Reloading(true)` and `Reloading(false)`.
    var isReloading = false
    /// Signals may have been lost since the last resync: the next one reads every unit in full.
    var isFullReadNeeded = false
    /// A resync was asked for while one could not start; it runs as soon as one can.
    var isResyncRequested = false
    var resync: UnitSourceResync?
    /// Numbers resyncs, so that answers name theirs.
    var resyncCount = 0
    /// Numbers connections, so that the news of an old one is ignored.
    var generation = 0

    init(patterns: [UnitPattern], policy: ReconnectPolicy, busName: String) {
        self.patterns = patterns
        self.policy = policy
        self.busName = busName
    }

    mutating func handle(_ input: UnitSourceInput) -> [UnitSourceEffect] {
        var effects: [UnitSourceEffect] = []
        switch input {
        case .start: start(&effects)
        case .stop: stop(&effects)
        case .connected(let generation): connected(generation, &effects)
        case .connectFailed(let generation, let error): connectFailed(generation, error, &effects)
        case .connectionLost(let generation, let error): connectionLost(generation, error, &effects)
        case .subscribed(let id, let error): subscribed(id, error, &effects)
        case .listed(let id, let result): listed(id, result, &effects)
        case .propertyRead(let id, let read, let answer): propertyRead(id, read, answer, &effects)
        case .propertiesRead(let id, let failure): propertiesRead(id, failure: failure, &effects)
        case .propertiesChanged(let unit, let values): propertiesChanged(unit, values, &effects)
        case .unitRemoved(let unit): unitRemoved(unit, &effects)
        case .jobRemoved(let unit, let jobID, let result): jobRemoved(unit, jobID, result, &effects)
        case .reloading(let active): reloading(active, &effects)
        case .nameOwnerChanged(let oldOwner, let newOwner): nameOwnerChanged(oldOwner, newOwner, &effects)
        case .timerFired(let timer): timerFired(timer, &effects)
        }
        return effects
    }

    // MARK: What the driver asks

    /// Whether signals about `name` are reported: an empty pattern list watches every unit, like
    /// `ListUnitsByPatterns`. A unit in ``units`` matched when it came, and the patterns never change. The driver
    /// asks before it parses a unit's `PropertiesChanged`, so signals of units nobody watches cost no parsing.
    func isWatched(_ name: String) -> Bool {
        units[name] != nil || matchesPatterns(name)
    }

    /// Whether `name` matches the patterns (all do when there are none), which never change.
    func matchesPatterns(_ name: String) -> Bool {
        patterns.isEmpty || patterns.contains { $0.matches(name) }
    }

    /// Whether `name` is watched and known to be loaded: only such a unit's definition may be read.
    func isLoaded(_ name: String) -> Bool {
        units[name] != nil
    }

    var isEstablished: Bool { phase.isEstablished }
    var isStopped: Bool { phase == .stopped }
    /// Whether ``SystemdUnitSource/start()`` was called and the source is neither idle again nor stopped.
    var isRunning: Bool { phase != .idle && phase != .stopped }

    // MARK: Helpers

    func log(_ level: Logger.Level, _ message: String, _ metadata: [String: String] = [:]) -> UnitSourceEffect {
        .log(UnitSourceLog(level: level, message: message, metadata: metadata))
    }
}
