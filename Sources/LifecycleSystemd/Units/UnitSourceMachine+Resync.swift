// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Logging

/// A resync: `Subscribe()`, the listing, the reads, then `initial`.
///
/// Replies and signals are merged into ``UnitSourceMachine/units`` in the order they arrive, and PID 1 sends a
/// change's signals before it answers a later call, so once the last reply is in, each unit's properties are those of
/// one moment. Signals keep being sent meanwhile, so the `initial` may hold a unit's snapshot that is older than a
/// `changed` sent before it; each snapshot carries its state-change time.
extension UnitSourceMachine {
    /// Resyncs soon, once, however often it is asked for meanwhile: at once when connected and no resync runs or waits
    /// to be tried again, else when that one is done.
    mutating func requestResync(_ effects: inout [UnitSourceEffect]) {
        isResyncRequested = true
        switch phase {
        case .established, .retryingResync(_, isWaiting: false):
            if resync == nil { beginRequestedResync(&effects) }
        default:
            break
        }
    }

    /// Starts the resync that was asked for, in full if signals may have been lost since the last one.
    mutating func beginRequestedResync(_ effects: inout [UnitSourceEffect]) {
        isResyncRequested = false
        let isFull = isFullReadNeeded
        isFullReadNeeded = false
        beginResync(isFull: isFull, &effects)
    }

    /// - Parameter isFull: Read every listed unit. Without it (after `Reloading(false)`, with no signal lost), a unit
    ///   already known is only checked: a reload changes no unit's run state, but a change during it is announced by
    ///   `UnitNew` alone, so a unit whose listed state or `StateChangeTimestampMonotonic` moved is read in full.
    mutating func beginResync(isFull: Bool, _ effects: inout [UnitSourceEffect]) {
        resyncCount += 1
        resync = UnitSourceResync(id: resyncCount, isFull: isFull)
        effects.append(.subscribe(resync: resyncCount))
    }

    mutating func subscribed(_ id: Int, _ error: SystemdError?, _ effects: inout [UnitSourceEffect]) {
        guard var current = resync, current.id == id, current.step == .subscribing else { return }
        if let error {
            // A second Subscribe() on the same connection: still subscribed.
            guard error.hasBusError(SystemdNames.alreadySubscribed) else {
                resyncFailed(error, &effects)
                return
            }
            effects.append(log(.trace, "Already subscribed"))
        }
        current.step = .listing
        resync = current
        effects.append(.listUnits(resync: id, patterns: patterns.map(\.text)))
    }

    mutating func listed(
        _ id: Int, _ result: Result<[ListedUnit], SystemdError>, _ effects: inout [UnitSourceEffect]
    ) {
        guard var current = resync, current.id == id, current.step == .listing else { return }
        let listed: [ListedUnit]
        switch result {
        case .success(let all): listed = all.filter(\.isLoaded)
        case .failure(let error):
            resyncFailed(error, &effects)
            return
        }
        resync = nil  // not held twice while the units change
        let (reads, checked) = applyListing(listed, isFull: current.isFull)
        current.listed = listed
        current.step = .reading(checked: checked)
        resync = current
        read(reads, of: id, &effects)
    }

    /// Takes each listed unit's state from the listing (in arrival order, like a signal), and says what to `Get`:
    /// everything else, or without `isFull` for a unit already known, only its `StateChangeTimestampMonotonic`.
    ///
    /// - Returns: The reads, and the units that are only checked.
    private mutating func applyListing(
        _ listed: [ListedUnit], isFull: Bool
    ) -> (reads: [PropertyRead], checked: Set<String>) {
        var reads: [PropertyRead] = []
        var checked: Set<String> = []
        for entry in listed {
            let known = units[entry.name] ?? parked[entry.name]
            var watched = known ?? WatchedUnit()
            watched.apply(entry)
            units[entry.name] = watched
            if !isFull, let known, known.isComplete(name: entry.name), known.unit == watched.unit {
                checked.insert(entry.name)
                reads.append(PropertyRead(
                    unit: entry.name, path: entry.path, interface: SystemdNames.unitInterface,
                    name: "StateChangeTimestampMonotonic"
                ))
            } else {
                reads += PropertyRead.fullReads(of: entry)
            }
        }
        return (reads, checked)
    }

    /// Asks for `reads`, or goes straight on when there are none.
    private mutating func read(_ reads: [PropertyRead], of id: Int, _ effects: inout [UnitSourceEffect]) {
        if reads.isEmpty {
            propertiesRead(id, failure: nil, &effects)
        } else {
            effects.append(.readProperties(resync: id, reads))
        }
    }

    /// A batch's replies are all in: the full reads of units a check found moved follow the listing's, then the
    /// resync is done.
    mutating func propertiesRead(_ id: Int, failure: SystemdError?, _ effects: inout [UnitSourceEffect]) {
        guard var current = resync, current.id == id else { return }
        if let failure {
            resyncFailed(failure, &effects)
            return
        }
        switch current.step {
        case .reading:
            current.step = .rereading
            resync = current
            let rereads = current.listed.filter { current.stale.contains($0.name) }.flatMap(PropertyRead.fullReads)
            read(rereads, of: id, &effects)
        case .rereading:
            finishResync(current, &effects)
        case .subscribing, .listing:
            break
        }
    }

    /// Sends the snapshots of the listed units as they stand now, after the last reply, and forgets units that are
    /// neither listed nor heard from.
    private mutating func finishResync(_ finished: UnitSourceResync, _ effects: inout [UnitSourceEffect]) {
        resync = nil
        parked = [:]
        let kept = Set(finished.listed.map(\.name)).subtracting(finished.failed).union(finished.touched)
        units = units.filter { kept.contains($0.key) }
        let snapshots = finished.listed.compactMap { entry -> UnitSnapshot? in
            guard !finished.failed.contains(entry.name) else { return nil }
            return units[entry.name]?.snapshot(name: entry.name)
        }
        effects.append(log(.debug, "Resynced with systemd", ["units": "\(snapshots.count)"]))
        effects.append(.deliver(.initial(snapshots.sorted { $0.name < $1.name })))
        switch phase {
        case .establishing(let attempt):
            established(attempt, &effects)
        case .retryingResync(let failures, isWaiting: false):
            effects.append(log(.notice, "Resynced with systemd after failed attempts", ["attempts": "\(failures + 1)"]))
            phase = .established
            if isResyncRequested { beginRequestedResync(&effects) }
        default:
            if isResyncRequested { beginRequestedResync(&effects) }
        }
    }

    /// A resync failed while the connection stands. The first one of a connection is the connection attempt's;
    /// a requested one is tried again after the reconnect policy's back-off: nothing else would ask before systemd's
    /// next reload or owner change, and after an owner change PID 1 has forgotten `Subscribe()`, so no unit signal
    /// comes until a resync succeeds. A broken connection ends the retries (the reconnect resyncs), and so does a stop.
    private mutating func resyncFailed(_ error: SystemdError, _ effects: inout [UnitSourceEffect]) {
        guard let failed = resync else { return }
        resync = nil
        let failures: Int
        switch phase {
        case .establishing(let attempt):
            attemptFailed(attempt, error, &effects)
            return
        case .established: failures = 1
        case .retryingResync(let before, isWaiting: false): failures = before + 1
        default: return
        }
        isFullReadNeeded = isFullReadNeeded || failed.isFull
        isResyncRequested = true
        let delay = policy.delay(afterFailures: failures - 1)
        effects.append(log(.warning, "Failed to resync with systemd, trying again", [
            "error": "\(error)", "attempt": "\(failures)", "retry_in": "\(delay)",
        ]))
        phase = .retryingResync(failures: failures, isWaiting: true)
        effects.append(.armTimer(.resyncRetry, after: delay))
    }
}
