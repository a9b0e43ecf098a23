// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Logging

/// Following the timers of the watched services (docs/journal.md, "Timers"). A service's timers are those whose `Unit`
/// names it (the timers in its `TriggeredBy`), which PID 1 never signals (it changes only with a reload, after which
/// the daemon asks again); a
/// timer's elapse moves its `LastTriggerUSec` and `NextElapseUSec*` in one `PropertiesChanged` on the timer's object,
/// which the source's match rule receives anyway: following a timer costs no call and no wake-up between elapses.
extension SystemdUnitSource {
    /// Reads the timers that start `units` and each timer's properties; from then on the timers' changes are reported
    /// (``UnitSourceEvent/timerChanged(_:)``), and those of timers no longer named are not.
    ///
    /// The loaded timers are listed, and each one's `Unit` (the unit it starts, which names it in `TriggeredBy`) read:
    /// one call per timer on the machine, where a `TriggeredBy` of each watched service was one per service, a
    /// thousand calls ahead of READY with a thousand watched units (docs/PERFORMANCE.md, "READY with 1,000 units").
    /// Then the rest of the properties of the timers that start one of `units`: three pipelined rounds.
    ///
    /// - Returns: the timers' snapshots, nil when the bus could not be asked.
    public func timers(of units: [String]) async -> [TimerSnapshot]? {
        guard let connection, machine.isEstablished else { return nil }
        do {
            let services = Set(units.filter { $0.hasSuffix(".service") && machine.isLoaded($0) })
            var named: [String: String] = [:]  // timer → the unit that names it
            if !services.isEmpty {
                let listing = try connection.newMethodCall(
                    destination: SystemdNames.busName, path: SystemdNames.managerPath,
                    interface: SystemdNames.managerInterface, member: "ListUnitsByPatterns"
                )
                try listing.append([String]())  // any state
                try listing.append(["*.timer"])
                let reads = try ListedUnit.readList(from: await connection.call(listing)).filter(\.isLoaded).map {
                    PropertyRead(unit: $0.name, path: $0.path, interface: TimerSnapshot.interface, name: "Unit")
                }
                try await get(reads, on: connection) { read, result in
                    guard case .success(let reply) = result, let unit = try? reply.readVariant(String.self),
                        services.contains(unit)
                    else { return }
                    named[read.unit] = unit
                }
            }
            followedTimers = followedTimers.filter { named[$0.key] != nil }
            var timerReads: [PropertyRead] = []
            for timer in named.keys.sorted() {
                let path = try BusObjectPath.encode(prefix: SystemdNames.unitPathPrefix, externalID: timer).rawValue
                timerReads += TimerSnapshot.used.names.map {
                    PropertyRead(unit: timer, path: path, interface: TimerSnapshot.interface, name: $0)
                }
            }
            try await get(timerReads, on: connection) { read, result in
                guard case .success(let reply) = result else { return }
                var timer = self.followedTimers[read.unit] ?? TimerSnapshot(name: read.unit, unit: named[read.unit] ?? "")
                try? timer.set(read.name, from: reply)
                self.followedTimers[read.unit] = timer
            }
            return named.keys.sorted().compactMap { followedTimers[$0] }
        } catch {
            logger.warning("Failed to read the timers of the watched units", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// A followed timer's `PropertiesChanged` on its `.Timer` interface: merged into its snapshot and reported.
    func timerChanged(_ name: String, _ change: TimerChange) {
        guard var timer = followedTimers[name] else { return }
        change.apply(to: &timer)
        followedTimers[name] = timer
        eventHandler(.timerChanged(timer))
    }
}
