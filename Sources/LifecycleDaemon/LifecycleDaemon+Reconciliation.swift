// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSystemd
import Logging

extension LifecycleDaemon {
    /// At start, records what happened to watched units while lifecycled was not running: from systemd's listing,
    /// and for runs no longer listed from PID 1's own journal entries for their InvocationID.
    func reconcile(with snapshots: [UnitSnapshot], from source: SystemdUnitSource) async {
        var endings: [String: RunEnding] = [:]
        for (unit, invocationID) in tracker.runsToLookUp(in: snapshots) {
            endings[unit] = ending(of: unit, invocationID: invocationID)
        }
        let transitions = tracker.reconcile(snapshots, endings: endings)
        if !transitions.isEmpty {
            logger.notice("Recovering \(transitions.count) transitions that happened while lifecycled was not running")
        }
        await apply(transitions, from: source)
    }

    /// How a run ended according to PID 1's journal (trusted entries only: `_PID=1`); nil when it does not say.
    /// The user manager logs under other field names, so this looks only at the system manager's runs.
    private func ending(of unit: String, invocationID: String) -> RunEnding? {
        guard options.bus(configuration) == .system else { return nil }
        do {
            let entries = try JournalReader().entries(
                matching: ["_PID=1", "UNIT=\(unit)", "INVOCATION_ID=\(invocationID)"],
                fields: RunEnding.fields
            )
            return RunEnding(entries: entries.compactMap { entry in
                entry.fields["MESSAGE_ID"].map {
                    RunEnding.Entry(messageID: $0, time: Milliseconds(entry.realtimeMicroseconds / 1_000), fields: entry.fields)
                }
            })
        } catch {
            logger.warning("Failed to read the journal about \(unit)", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
