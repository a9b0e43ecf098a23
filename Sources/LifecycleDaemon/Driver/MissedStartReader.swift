// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import LifecycleSystemd
import Logging

/// Reads what a ``MissedStartQuery`` asks: PID 1's entries of start jobs that ended without a run (`_PID=1` only, so
/// no other sender can forge one), of each unit, from the time its timers ask.
struct MissedStartReader {
    let logger: Logger

    /// The failed start jobs, oldest first; nil when the journal could not be read (logged).
    func failedStarts(for query: MissedStartQuery) -> [FailedStartJob]? {
        let reader = JournalReader(logging: logger)
        var jobs: [FailedStartJob] = []
        do {
            for (unit, since) in query.units.sorted(by: { $0.key < $1.key }) {
                try reader.forEachEntry(
                    matching: ["_PID=1", "MESSAGE_ID=\(FailedStartJob.messageID)", "UNIT=\(unit)"],
                    fields: FailedStartJob.fields, since: UInt64(max(since, 0)) * 1_000
                ) { entry in
                    if let job = FailedStartJob(fields: entry.fields, receivedAt: Milliseconds(entry.realtimeMicroseconds / 1_000)) {
                        jobs.append(job)
                    }
                }
            }
        } catch {
            logger.warning("Failed to read PID 1's journal for failed start jobs", metadata: ["error": "\(error)"])
            return nil
        }
        return jobs.sorted { $0.time < $1.time }
    }
}
