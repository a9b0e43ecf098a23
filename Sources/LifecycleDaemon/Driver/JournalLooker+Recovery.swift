// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleCore
import LifecycleStorage
import LifecycleSystemd

/// A recovery's reads of the journal (``JournalRecoveryReader``), on the looks' thread: a slice of PID 1's history
/// reads 10,000 entries, and a day-one history many slices; on the loop, the inputs that came meanwhile (a D-Bus
/// status call, the watchdog's timer) waited for each (docs/architecture.md, "One thread"). The core asks for one
/// read at a time and takes its answer as an input, as it takes a look's; the looks and the reads share the thread,
/// one after the other.
extension JournalLooker {
    /// The answer to `query`, read with the barrier's probe written through `journal`.
    func answer(_ query: RecoveryQuery, positionFile: JournalPositionFile, journal: JournalSink) -> RecoveryAnswer {
        let barriers = JournalBarrierLook(journal: journal, logger: logger)
        return JournalRecoveryReader(logger: logger, positionFile: positionFile).answer(query) { barrier in
            barriers.isSeen(
                barrier, fields: JournalProbeEntry.fields(historyBarrier: barrier.number),
                query: JournalProbeEntry.query(historyBarrier: barrier.number, pid: getpid())
            )
        }
    }
}
