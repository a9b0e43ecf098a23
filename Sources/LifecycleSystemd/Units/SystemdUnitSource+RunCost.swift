// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

extension SystemdUnitSource {
    /// The properties of a run's cost: its cgroup's accounting, on the unit's type interface. No change signal
    /// carries them, so they are read when the run has ended, before the next run's start resets them.
    static let runCostNames = ["CPUUsageNSec", "MemoryPeak", "IOReadBytes", "IOWriteBytes"]

    /// How long the reads may take: the cost is worth less than holding up what comes after the run's end (a bus
    /// daemon that stalls would otherwise hold it for sd-bus's 25 s).
    static let runCostTimeout: Duration = .seconds(2)

    /// What the run `invocationID` of `unit` cost, read right after it ended (one round trip, pipelined): CPU time,
    /// memory peak, IO bytes, each nil when systemd says it cannot tell (`[not set]`) or lacks the property
    /// (`MemoryPeak` before v255). Addressed by the run's InvocationID, so a unit collected meanwhile, or one whose
    /// next run began, gives nothing rather than another run's figures.
    ///
    /// - Returns: nil when nothing could be read at all (the unit is gone or not watched, it has no cgroup type
    ///   interface, the bus is down or did not answer in time); else what systemd answered, which may know nothing.
    public func runCost(of unit: String, invocationID: String) async -> RunRecord? {
        guard machine.isLoaded(unit), Self.isInvocationID(invocationID), let connection, machine.isEstablished,
            let interface = SystemdNames.typeInterface(forUnit: unit)
        else { return nil }
        let path = SystemdNames.unitPathPrefix + "/" + invocationID
        let reads = Self.runCostNames.map { PropertyRead(unit: unit, path: path, interface: interface, name: $0) }
        var values: [String: UInt64] = [:]
        do {
            try await get(reads, on: connection, timeout: Self.runCostTimeout) { read, result in
                guard case .success(let reply) = result, let value = try? reply.readVariant(UInt64.self) else { return }
                values[read.name] = value
            }
        } catch {
            return nil
        }
        return values.isEmpty ? nil : RunRecord(properties: values)
    }
}
