// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

extension SystemdUnitSource {
    /// The properties of a run's cost: its cgroup's accounting, on the unit's type interface. No change signal
    /// carries them, so they are read when the run has ended, before the next run's start resets them.
    static let runCostNames = ["CPUUsageNSec", "MemoryPeak", "IOReadBytes", "IOWriteBytes"]

    /// What the run `invocationID` of `unit` cost, read right after it ended (one round trip, pipelined): CPU time,
    /// memory peak, IO bytes, each nil when systemd cannot say. Addressed by the run's InvocationID, so a unit
    /// collected meanwhile, or one whose next run began, gives nothing rather than another run's figures. A
    /// property the running systemd lacks (`MemoryPeak` before v255) is unknown; so is all of it when the unit is
    /// not watched, has no cgroup type interface, or the bus is down.
    public func runCost(of unit: String, invocationID: String) async -> RunRecord {
        guard machine.isLoaded(unit), Self.isInvocationID(invocationID), let connection, machine.isEstablished,
            let interface = SystemdNames.typeInterface(forUnit: unit)
        else { return RunRecord() }
        let path = SystemdNames.unitPathPrefix + "/" + invocationID
        let reads = Self.runCostNames.map { PropertyRead(unit: unit, path: path, interface: interface, name: $0) }
        var values: [String: UInt64] = [:]
        do {
            try await get(reads, on: connection) { read, result in
                guard case .success(let reply) = result, let value = try? reply.readVariant(UInt64.self) else { return }
                values[read.name] = value
            }
        } catch {
            return RunRecord()
        }
        return RunRecord(properties: values)
    }
}
