// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// What a recovery adds for one watched unit (``UnitTracker/reconciliation(_:endings:history:watchedUntil:)``): the
/// end of its stored run, every run PID 1's history shows after it, and the listed run, in that order.
///
/// Given out a few runs at a time (``next(runs:)``), each when its turn comes: a unit that ran 10,000 times before
/// lifecycled was installed would otherwise be 20,000 transitions in memory at once, beside the history they come from
/// (docs/PERFORMANCE.md, "A long history on day one").
public struct UnitReconciliation: Sendable {
    public let unit: String
    /// The end of the stored run, when known: given out first.
    private var storedEnd: MappedTransition?
    /// The runs the history shows after the stored one, not given out yet.
    private var missed: ArraySlice<RunHistory.Run>
    /// The unit in the listing, which can show the end of the last missed run.
    private let snapshot: UnitSnapshot?
    /// The listed run's begin, when neither stored nor in the history: given out last.
    private var listedBegin: MappedTransition?

    init(
        unit: String, storedEnd: MappedTransition?, missed: ArraySlice<RunHistory.Run>, snapshot: UnitSnapshot?,
        listedBegin: MappedTransition?
    ) {
        self.unit = unit
        self.storedEnd = storedEnd
        self.missed = missed
        self.snapshot = snapshot
        self.listedBegin = listedBegin
    }

    /// True when everything was given out.
    public var isDone: Bool { storedEnd == nil && missed.isEmpty && listedBegin == nil }

    /// How many runs begin in what is left.
    public var beginsLeft: Int { missed.count + (listedBegin == nil ? 0 : 1) }

    /// The unit's run in the listing, when it is running.
    public var runningInvocationID: String? {
        guard let snapshot, snapshot.isRunning else { return nil }
        return snapshot.invocationID
    }

    /// The next transitions, in order: the stored run's end, then up to `runs` missed runs (each a begin and, once
    /// over, an end), then, once the missed runs are all out, the listed run's begin.
    public mutating func next(runs: Int) -> [MappedTransition] {
        var transitions: [MappedTransition] = []
        if let storedEnd {
            transitions.append(storedEnd)
            self.storedEnd = nil
        }
        for _ in 0..<runs {
            guard let run = missed.popFirst() else { break }
            var begin = Self.reconciled(unit, .began, run.invocationID, run.began)
            // The mapper compares later snapshots with the begin by the monotonic clock when it can.
            begin.monotonicMicroseconds = run.beganMonotonic ?? 0
            begin.run = RunRecord(startupSeconds: run.record.startupSeconds)
            // The unit's run now, still starting in the listing: its start-up comes once it is active.
            begin.awaitsStartup = snapshot.map { $0.invocationID == run.invocationID && $0.isActivating } ?? false
            transitions.append(begin)
            if let end = Self.end(
                of: run.invocationID, unit: unit, began: run, record: run.record, snapshot: snapshot,
                fromJournal: run.ending
            ) {
                transitions.append(end)
            } else if !missed.isEmpty {
                // Another run followed, yet neither the journal nor the listing shows this one's end. (The last
                // may be the unit's run now: the history is read after the listing and can be the newer.)
                transitions.append(Self.reconciled(unit, .endedUnknown, run.invocationID, run.began))
            }
        }
        if missed.isEmpty, let listedBegin {
            transitions.append(listedBegin)
            self.listedBegin = nil
        }
        return transitions
    }

    /// Everything left, at once.
    public mutating func all() -> [MappedTransition] {
        next(runs: missed.count)
    }

    /// How a run ended: by the listing when it shows the run over after it began (`run`, when the history has it),
    /// else by the journal. With the run's `record` from PID 1's entries, and from the listing's snapshot when it
    /// shows the end.
    static func end(
        of id: String, unit: String, began run: RunHistory.Run?, record: RunRecord, snapshot: UnitSnapshot?,
        fromJournal ending: RunEnding?
    ) -> MappedTransition? {
        var end: MappedTransition?
        if let snapshot, snapshot.invocationID == id, snapshot.isRefusedStart {
            // The run ended before systemd refused the next start: the journal says how, else its end is unknown (a
            // sleep at the refusal at the latest, not a crash).
            end = ending.map { reconciled(unit, $0, id) } ?? reconciled(unit, .endedUnknown, id, snapshot.stateChangeTime)
        } else if let snapshot, snapshot.invocationID == id, snapshot.hasEnded,
            !snapshot.predates(run?.began, monotonic: run?.beganMonotonic)
        {
            end = reconciled(unit, snapshot.endTransition, id, snapshot.stateChangeTime)
            end?.run = snapshot.runRecord
        } else {
            end = ending.map { reconciled(unit, $0, id) }
        }
        guard var end else { return nil }
        end.run = record.merging(end.run)
        return end
    }

    static func reconciled(_ unit: String, _ ending: RunEnding, _ invocationID: String) -> MappedTransition {
        switch ending {
        case .endedCleanly(let time): reconciled(unit, .endedCleanly, invocationID, time)
        case .failed(let details, let time): reconciled(unit, .failed(details), invocationID, time)
        }
    }

    static func reconciled(
        _ unit: String, _ transition: RunTransition, _ invocationID: String, _ time: Milliseconds?
    ) -> MappedTransition {
        MappedTransition(
            unit: unit, transition: transition, invocationID: invocationID, time: time, monotonicMicroseconds: 0,
            isReconciled: true
        )
    }
}
