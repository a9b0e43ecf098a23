// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Logging

/// Following the timers of the watched services (docs/journal.md, "Timers"). A service names its timers in
/// `TriggeredBy`, which PID 1 never signals (it changes only with a reload, after which the daemon asks again); a
/// timer's elapse moves its `LastTriggerUSec` and `NextElapseUSec*` in one `PropertiesChanged` on the timer's object,
/// which the source's match rule receives anyway: following a timer costs no call and no wake-up between elapses.
extension SystemdUnitSource {
    /// Reads the timers that start `units` (their `TriggeredBy` that end in `.timer`) and each timer's properties,
    /// two pipelined rounds; from then on the timers' changes are reported (``UnitSourceEvent/timerChanged(_:)``),
    /// and those of timers no longer named are not.
    ///
    /// - Returns: the timers' snapshots, nil when the bus could not be asked.
    public func timers(of units: [String]) async -> [TimerSnapshot]? {
        guard let connection, machine.isEstablished else { return nil }
        do {
            var reads: [PropertyRead] = []
            for unit in units where unit.hasSuffix(".service") && machine.isLoaded(unit) {
                let path = try BusObjectPath.encode(prefix: SystemdNames.unitPathPrefix, externalID: unit).rawValue
                reads.append(PropertyRead(unit: unit, path: path, interface: SystemdNames.unitInterface, name: "TriggeredBy"))
            }
            var named: [String: String] = [:]  // timer → the unit that names it
            try await get(reads, on: connection) { read, result in
                guard case .success(let reply) = result,
                    let triggers = try? reply.readContainer(.variant, "as", { variant throws(SystemdError) in try variant.readStrings() })
                else { return }
                for timer in triggers where timer.hasSuffix(".timer") { named[timer] = read.unit }
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
