// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Logging

/// A resync in progress.
struct ResyncState {
    let id: Int
    /// Units whose `.Unit` reads failed (unloaded after the listing): no snapshot, and forgotten unless touched.
    var failed: Set<String> = []
    /// Units that sent `PropertiesChanged` during the resync, so are loaded even if the listing missed them.
    var touched: Set<String> = []
    /// Units a check found moved, to be read in full.
    var stale: Set<String> = []
}

extension SystemdUnitSource {
    /// Installs the match rules, each before `Subscribe()` so no signal is missed.
    func addMatches(on connection: BusConnection) async throws(SystemdError) {
        for rule in SystemdNames.matchRules {
            try await connection.addMatch(rule) { [weak self] message in
                self?.assumeIsolated { source in source.handleSignal(message) }
            }
        }
    }

    /// Subscribes, lists the watched units, reads their properties and sends `.initial`.
    ///
    /// Replies and signals are merged into ``units`` in the order they arrive, and PID 1 sends a change's signals
    /// before it answers a later call, so once the last reply is in, each unit's properties are those of one moment.
    /// Signals keep being sent meanwhile (the calls do not block the thread), so the `initial` may hold a unit's
    /// snapshot that is older than a `changed` sent before it; each snapshot carries its state-change time.
    ///
    /// - Parameter full: Read every listed unit. Without it (after `Reloading(false)`, with no signal lost), a unit
    ///   already known is only checked: a reload changes no unit's run state, but a change during it is announced
    ///   by `UnitNew` alone, so a unit whose listed state or `StateChangeTimestampMonotonic` moved is read in full.
    func synchronize(on connection: BusConnection, full: Bool) async throws(SystemdError) {
        resyncCount += 1
        let id = resyncCount
        resync = ResyncState(id: id)
        do throws(SystemdError) {
            try await subscribe(on: connection)
            let listed = try await listUnits(on: connection)
            let (reads, checked) = applyListing(listed, full: full)
            try await readProperties(reads, checked: checked, on: connection, resyncID: id)
            let stale = resync?.stale ?? []
            let rereads = listed.filter { stale.contains($0.name) }.flatMap(Self.fullReads)
            try await readProperties(rereads, checked: [], on: connection, resyncID: id)
            finishResync(id: id, listed: listed)
        } catch {
            if resync?.id == id { resync = nil }
            throw error
        }
    }

    /// Resyncs soon, once, however often it is asked for meanwhile.
    func requestResync() {
        isResyncRequested = true
        guard resyncTask == nil, isEstablished, !isStopped else { return }
        resyncTask = Task(executorPreference: thread) { await self.runRequestedResyncs() }
    }

    /// Resyncs while asked to. A failed resync is tried again after the reconnect policy's back-off: nothing else
    /// would ask before systemd's next reload or owner change, and after an owner change PID 1 has forgotten
    /// `Subscribe()`, so no unit signal comes until a resync succeeds. A lost connection ends the retries (the
    /// reconnect resyncs), and so does ``stop()``.
    private func runRequestedResyncs() async {
        defer {
            resyncTask = nil
            // Asked again while a failing attempt was still winding down (e.g. right after a reconnect).
            if isResyncRequested, isEstablished, !isStopped { requestResync() }
        }
        var failures = 0
        while isResyncRequested, isEstablished, !isStopped, let connection {
            isResyncRequested = false
            let full = isFullReadNeeded
            isFullReadNeeded = false
            do throws(SystemdError) {
                try await synchronize(on: connection, full: full)
                if failures > 0 {
                    logger.notice("Resynced with systemd after failed attempts", metadata: ["attempts": "\(failures + 1)"])
                    failures = 0
                }
            } catch {
                isFullReadNeeded = isFullReadNeeded || full
                // A broken connection is the reconnect's to handle: it resyncs in full.
                guard connection.failure == nil, connection === self.connection, !isStopped else { return }
                failures += 1
                let delay = policy.delay(afterFailures: failures - 1)
                logger.warning("Failed to resync with systemd, trying again", metadata: [
                    "error": "\(error)", "attempt": "\(failures)", "retry_in": "\(delay)",
                ])
                isResyncRequested = true
                await waitBeforeRetry(delay)
            }
        }
    }

    /// Waits `delay` on the thread's own timer (never `Task.sleep`: nothing of the source runs on Swift's global
    /// executor); ``stop()`` ends the wait at once.
    private func waitBeforeRetry(_ delay: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let timer = thread.schedule(after: delay) { [weak self] in
                self?.assumeIsolated { source in source.endRetryWait() }
            }
            retryWait = (timer, continuation)
        }
    }

    /// Ends a ``waitBeforeRetry(_:)`` in progress, if any.
    func endRetryWait() {
        guard let (timer, continuation) = retryWait else { return }
        retryWait = nil
        thread.cancel(timer)
        continuation.resume()
    }

    /// Calls `Subscribe()`; `AlreadySubscribed` (a second call on the same connection) is success.
    ///
    /// Wraps `org.freedesktop.systemd1.Manager.Subscribe`.
    private func subscribe(on connection: BusConnection) async throws(SystemdError) {
        let call = try connection.newMethodCall(
            destination: SystemdNames.busName, path: SystemdNames.managerPath,
            interface: SystemdNames.managerInterface, member: "Subscribe"
        )
        do throws(SystemdError) {
            _ = try await connection.call(call)
        } catch where error.hasBusError(SystemdNames.alreadySubscribed) {
            logger.trace("Already subscribed")
        }
    }

    /// The loaded units matching the patterns. It never loads a unit, unlike `ListUnitsByNames` or `GetUnit`.
    ///
    /// Wraps `org.freedesktop.systemd1.Manager.ListUnitsByPatterns`.
    private func listUnits(on connection: BusConnection) async throws(SystemdError) -> [ListedUnit] {
        let call = try connection.newMethodCall(
            destination: SystemdNames.busName, path: SystemdNames.managerPath,
            interface: SystemdNames.managerInterface, member: "ListUnitsByPatterns"
        )
        try call.append([String]())  // any state
        try call.append(patterns.map(\.text))
        let reply = try await connection.call(call)
        return try ListedUnit.readList(from: reply).filter(\.isLoaded)
    }

    /// Takes each listed unit's state from the listing (in arrival order, like a signal), and says what to `Get`:
    /// everything else, or without `full` for a unit already known, only its `StateChangeTimestampMonotonic`.
    ///
    /// - Returns: The reads, and the units that are only checked.
    private func applyListing(_ listed: [ListedUnit], full: Bool) -> (reads: [PropertyRead], checked: Set<String>) {
        var reads: [PropertyRead] = []
        var checked: Set<String> = []
        for entry in listed {
            let known = units[entry.name] ?? parked[entry.name]
            var watched = known ?? WatchedUnit()
            watched.apply(entry)
            units[entry.name] = watched
            if !full, let known, known.isComplete(name: entry.name), known.unit == watched.unit {
                checked.insert(entry.name)
                reads.append(PropertyRead(
                    unit: entry.name, path: entry.path, interface: SystemdNames.unitInterface,
                    name: "StateChangeTimestampMonotonic"
                ))
            } else {
                reads += Self.fullReads(of: entry)
            }
        }
        return (reads, checked)
    }

    /// Sends the snapshots of the listed units as they stand now, after the last reply, and forgets units that are
    /// neither listed nor heard from.
    private func finishResync(id: Int, listed: [ListedUnit]) {
        guard let state = resync, state.id == id else { return }
        resync = nil
        parked = [:]
        let kept = Set(listed.map(\.name)).subtracting(state.failed).union(state.touched)
        units = units.filter { kept.contains($0.key) }
        let snapshots = listed.compactMap { entry -> UnitSnapshot? in
            guard !state.failed.contains(entry.name) else { return nil }
            return units[entry.name]?.snapshot(name: entry.name)
        }
        logger.debug("Resynced with systemd", metadata: ["units": "\(snapshots.count)"])
        deliver(.initial(snapshots.sorted { $0.name < $1.name }))
    }
}
