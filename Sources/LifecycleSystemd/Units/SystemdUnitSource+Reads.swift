// SPDX-License-Identifier: Apache-2.0

import Logging

/// Reading units' properties during a resync: single `Get`s, pipelined, merged as they arrive.
extension SystemdUnitSource {
    /// What a snapshot needs besides the listing (see ``UnitProperties`` for why never `GetAll`).
    static func fullReads(of entry: ListedUnit) -> [PropertyRead] {
        var reads = UnitProperties.readNames.map {
            PropertyRead(unit: entry.name, path: entry.path, interface: SystemdNames.unitInterface, name: $0)
        }
        if let typeInterface = SystemdNames.typeInterface(forUnit: entry.name) {
            reads += TypeProperties.readNames(of: typeInterface).map {
                PropertyRead(unit: entry.name, path: entry.path, interface: typeInterface, name: $0)
            }
        }
        return reads
    }

    /// `Get`s `reads`, pipelined, and applies each reply as it arrives.
    ///
    /// - Parameter checked: Units whose read is a check: a `StateChangeTimestampMonotonic` unlike the known one is
    ///   not applied, and its unit is marked stale, to be read in full.
    func readProperties(
        _ reads: [PropertyRead],
        checked: Set<String>,
        on connection: BusConnection,
        resyncID: Int
    ) async throws(SystemdError) {
        try await get(reads, on: connection) { read, result in
            if checked.contains(read.unit), case .success(let reply) = result, self.resync?.id == resyncID {
                // Unchanged: nothing to apply. Moved (or unreadable): read in full next.
                if (try? reply.readVariant(UInt64.self)) != self.units[read.unit]?.unit.stateChangeTimestampMonotonic {
                    self.resync?.stale.insert(read.unit)
                }
                return
            }
            self.applyProperty(result, read, resyncID: resyncID)
        }
    }

    /// Applies one `Get` reply, in arrival order relative to signals.
    private func applyProperty(_ result: Result<BusMessage, SystemdError>, _ read: PropertyRead, resyncID: Int) {
        guard resync?.id == resyncID, var watched = units[read.unit] else { return }
        let reply: BusMessage
        switch result {
        case .success(let message):
            reply = message
        case .failure(let error):
            // The unit was unloaded after the listing.
            logger.debug("Failed to read a unit property", metadata: [
                "unit": "\(read.unit)", "property": "\(read.name)", "error": "\(error)",
            ])
            if read.interface == SystemdNames.unitInterface { resync?.failed.insert(read.unit) }
            return
        }
        do throws(SystemdError) {
            if read.interface == SystemdNames.unitInterface {
                try watched.unit.set(read.name, from: reply)
            } else {
                try watched.type.set(read.name, from: reply)
            }
        } catch {
            logger.warning("Failed to parse a unit property", metadata: [
                "unit": "\(read.unit)", "property": "\(read.name)", "error": "\(error)",
            ])
            resync?.failed.insert(read.unit)
            return
        }
        units[read.unit] = watched
    }
}
