// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Logging

/// A resync in progress: the snapshots read so far.
struct ResyncState {
    let id: Int
    var snapshots: [String: UnitSnapshot] = [:]
    /// Units that sent `PropertiesChanged` during the resync, so are loaded even if the listing missed them.
    var touched: Set<String> = []
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
    /// Signals keep being handled and sent meanwhile (the calls do not block the thread), so the `initial` may hold
    /// a unit's snapshot that is older than a `changed` sent before it; each snapshot carries its state-change time.
    func synchronize(on connection: BusConnection) async throws(SystemdError) {
        resyncCount += 1
        let id = resyncCount
        resync = ResyncState(id: id)
        do throws(SystemdError) {
            try await subscribe(on: connection)
            let listed = try await listUnits(on: connection)
            try await readProperties(of: listed, on: connection, resyncID: id)
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

    private func runRequestedResyncs() async {
        defer {
            resyncTask = nil
            // Asked again while a failing attempt was still winding down (e.g. right after a reconnect).
            if isResyncRequested, isEstablished, !isStopped { requestResync() }
        }
        while isResyncRequested, isEstablished, !isStopped, let connection {
            isResyncRequested = false
            do throws(SystemdError) {
                try await synchronize(on: connection)
            } catch {
                // A broken connection is handled by the reconnect; otherwise the next owner change asks again.
                logger.warning("Failed to resync with systemd", metadata: ["error": "\(error)"])
                return
            }
        }
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

    /// `GetAll` of the type interface, then of `.Unit`, for every listed unit, pipelined.
    private func readProperties(
        of listed: [ListedUnit],
        on connection: BusConnection,
        resyncID: Int
    ) async throws(SystemdError) {
        var calls: [(unit: String, path: String, interface: String)] = []
        for unit in listed {
            if let typeInterface = SystemdNames.typeInterface(forUnit: unit.name) {
                calls.append((unit.name, unit.path, typeInterface))
            }
            calls.append((unit.name, unit.path, SystemdNames.unitInterface))
        }
        try await connection.callPipelined(count: calls.count) { index throws(SystemdError) in
            let call = try connection.newMethodCall(
                destination: SystemdNames.busName, path: calls[index].path,
                interface: SystemdNames.propertiesInterface, member: "GetAll"
            )
            try call.append(calls[index].interface)
            return call
        } onReply: { index, result in
            self.applyProperties(result, unit: calls[index].unit, interface: calls[index].interface, resyncID: resyncID)
        }
    }

    /// Applies one `GetAll` reply, in arrival order relative to signals.
    private func applyProperties(
        _ result: Result<BusMessage, SystemdError>,
        unit name: String,
        interface: String,
        resyncID: Int
    ) {
        guard resync?.id == resyncID else { return }
        let reply: BusMessage
        switch result {
        case .success(let message):
            reply = message
        case .failure(let error):
            // The unit was unloaded after the listing; the type interface may also be absent.
            logger.debug("Failed to read unit properties", metadata: ["unit": "\(name)", "error": "\(error)"])
            return
        }
        var watched = units[name] ?? WatchedUnit()
        do throws(SystemdError) {
            if interface == SystemdNames.unitInterface {
                var properties = UnitProperties()
                try properties.merge(from: reply)
                watched.unit = properties
            } else {
                var properties = TypeProperties()
                try properties.merge(from: reply)
                watched.type = properties
            }
        } catch {
            logger.warning("Failed to parse unit properties", metadata: ["unit": "\(name)", "error": "\(error)"])
            return
        }
        units[name] = watched
        guard interface == SystemdNames.unitInterface, let snapshot = watched.snapshot(name: name) else { return }
        resync?.snapshots[name] = snapshot
    }

    private func finishResync(id: Int, listed: [ListedUnit]) {
        guard let state = resync, state.id == id else { return }
        resync = nil
        let listedNames = Set(listed.map(\.name))
        units = units.filter { listedNames.contains($0.key) || state.touched.contains($0.key) }
        logger.debug("Resynced with systemd", metadata: ["units": "\(state.snapshots.count)"])
        continuation.yield(.initial(state.snapshots.values.sorted { $0.name < $1.name }))
    }
}
