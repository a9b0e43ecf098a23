// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// What the journal is asked about a run that just failed, before its crash notice is recorded: what no D-Bus
/// property tells (``DaemonEffect/readRunJournal(_:)``).
///
/// - Who OOM-killed it: PID 1 logs the kernel's or systemd-oomd's kill (``OOMKiller``) before the change that shows
///   the Result `oom-kill`, so once the journal shows a probe written after that change (``JournalBarrier``), it
///   shows PID 1's message too, or never will.
/// - Its core dump: systemd-coredump logs it when it has processed the dump, which can be after PID 1 saw the process
///   die; the entry is waited for only while the host hands dumps to systemd-coredump (``CoreDump/isCollectedBySystemd(corePattern:)``).
public struct RunJournalQuery: Sendable, Equatable {
    public var run: UnitRunID
    /// Look for PID 1's message of who OOM-killed the run, behind this probe; nil when the run was no OOM kill.
    public var barrier: JournalBarrier?
    /// Look for systemd-coredump's entry of a crash of the unit within this span (``CoreDump/span(began:ended:)``); nil
    /// when the run dumped no core.
    public var coreDumpSpan: ClosedRange<Milliseconds>?

    public init(run: UnitRunID, barrier: JournalBarrier?, coreDumpSpan: ClosedRange<Milliseconds>?) {
        self.run = run
        self.barrier = barrier
        self.coreDumpSpan = coreDumpSpan
    }
}

/// What the journal answered to a ``RunJournalQuery``.
public struct RunJournalFindings: Sendable, Equatable {
    /// Who OOM-killed the run, as PID 1 logged it; nil when its entries name no killer (yet).
    public var oom: OOMKiller?
    /// Whether the journal showed the query's barrier (false when it asked for none).
    public var barrierSeen: Bool
    /// systemd-coredump's entry of the run's core dump; nil when none was asked for.
    public var coreDump: CoreDumpLookup?

    public init(oom: OOMKiller? = nil, barrierSeen: Bool = false, coreDump: CoreDumpLookup? = nil) {
        self.oom = oom
        self.barrierSeen = barrierSeen
        self.coreDump = coreDump
    }
}

/// Where systemd-coredump's entry of a run's core dump stands.
public enum CoreDumpLookup: Sendable, Equatable {
    /// The entry, with its signal and cursor.
    case found(CoreDump)
    /// Not in the journal yet: systemd-coredump may still be processing the dump.
    case pending
    /// None will come: the host does not hand dumps to systemd-coredump, or the journal cannot be read.
    case unavailable
}
