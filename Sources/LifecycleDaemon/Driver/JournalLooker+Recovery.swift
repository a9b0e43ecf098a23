// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleCore
import LifecycleStorage
import LifecycleSystemd

/// A recovery's reads of the journal (``JournalRecoveryReader``), on the looks' thread: a slice of PID 1's history
/// reads 5,000 entries, and a day-one history many slices; on the loop, the inputs that came meanwhile (a D-Bus
/// status call, the watchdog's timer) waited for each (docs/architecture.md, "One thread"). The core asks for one
/// read at a time and takes its answer as an input, as it takes a look's; the looks and the reads share the thread,
/// one after the other.
extension JournalLooker {
    /// The answer to `query`, read with the barrier's probe written through `journal`; what the journal names is
    /// handed to `named` as soon as it is read, so that the loop applies the changes of the units it does not name
    /// while the history is read (docs/architecture.md, "Phases").
    func answer(
        _ query: RecoveryQuery, positionFile: JournalPositionFile, journal: JournalSink,
        named: (JournaledUnits) -> Void
    ) -> RecoveryAnswer {
        // Not beside a read's own openings: their pages and the looks' would count together in lifecycled's memory.
        letKeptJournalGo()
        let barriers = JournalBarrierLook(journal: journal, logger: logger)
        let reader = JournalRecoveryReader(logger: logger, positionFile: positionFile)
        return reader.answer(query, lookForBarrier: { barrier in
            barriers.isSeen(
                barrier, fields: JournalProbeEntry.fields(historyBarrier: barrier.number),
                query: JournalProbeEntry.query(historyBarrier: barrier.number, pid: getpid())
            )
        }, named: named)
    }
}
