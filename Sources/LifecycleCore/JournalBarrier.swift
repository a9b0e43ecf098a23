// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// A probe lifecycled writes to the journal before it reads what PID 1 logged, and looks for until the journal shows
/// it: PID 1's word on what happened, not journald's receive clock, decides what the read may take as complete.
///
/// PID 1 logs an event before it sends the change or listing that shows it, and journald takes the entries of its
/// socket in order; so once the journal shows a probe that lifecycled wrote after that change or listing, it shows
/// PID 1's entries too, or never will (a unit PID 1 logs nothing of). Until then a stalled journald is only slow: the
/// read is tried again, on a timer, for up to ``patience``. Two reads wait for one:
/// - how a run ended, when no signal showed its end (a crash is not taken for an end nobody saw);
/// - PID 1's history at a recovery (lifecycled's start, a loss of signals), so that a run PID 1 logged before the
///   listing but journald wrote after the history's end is not lost between the two (docs/journal.md, "Where
///   recovery resumes").
public struct JournalBarrier: Sendable, Equatable {
    /// The probe's number, among the barriers of this process.
    public var number: UInt64
    /// Whether to write the probe before this read (the first read of the run's end), or only to look for it.
    public var write: Bool

    public init(number: UInt64, write: Bool) {
        self.number = number
        self.write = write
    }

    /// How long after the first read the journal is given to show the barrier; then the end is taken as unknown.
    static let patience: Milliseconds = 20_000

    /// The wait before read `reads + 1`: 10 ms, doubling, at most a second. journald writes a probe within a few
    /// milliseconds when it keeps up, and the first read, at once after the probe, seldom finds it: a first wait of
    /// 100 ms was a tenth of READY with 1,000 units (docs/PERFORMANCE.md, "READY with 1,000 units"). A stalled
    /// journald costs a few more reads, each a look for one entry.
    static func delay(afterReads reads: Int) -> Milliseconds {
        min(1_000, 10 << min(max(reads - 1, 0), 7))
    }

    /// How many reads fit in ``patience``.
    static let readLimit: Int = {
        var reads = 1
        var waited: Milliseconds = 0
        while waited + delay(afterReads: reads) <= patience {
            waited += delay(afterReads: reads)
            reads += 1
        }
        return reads
    }()
}
