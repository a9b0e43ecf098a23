// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

/// One run of a unit as lifecycled's dispatches in the journal tell it: how it began and how it ended.
struct UnitRun: Sendable, Equatable {
    /// systemd's InvocationID of the run; nil for runs reported by hand (`lifecyclectl launch`), which have none.
    var invocationID: String?
    /// `launch` or `wake`; nil when the journal no longer holds the run's beginning.
    var begin: LifecycleEvent?
    var beganAt: Milliseconds?
    /// `sleep` or `crash`; nil while the run goes on (or when its end is not in the journal).
    var end: String?
    var endedAt: Milliseconds?
    /// systemd's Result: `success` for a run that ended with a sleep, the crash notice's Result for a crash,
    /// ``unknownResult`` for a sleep marked `LIFECYCLE_RUN_END=unknown`.
    var result: String?
    /// The exit status (`7`) or signal (`9/KILL`) of a crashed run, as systemd prints it; nil when unknown.
    var exitStatus: String?
    /// The unit's version at the run's beginning (or end), when lifecycled knew it.
    var version: String?
    /// True when any of the run's dispatches was recovered (`LIFECYCLE_RECONCILED`): lifecycled was not listening.
    var reconciled: Bool
    /// What the run cost and how it ended (start-up, CPU, memory peak, IO, OOM kill, core dump), from its sleep or
    /// crash notice (`LIFECYCLE_RUN_…`): lifecycled records it at the run's end. Empty while the run goes on, and for
    /// an end written before the fields; each value is nil when the host could not say, never 0.
    var record = RunRecord()

    /// The result of a run whose end no source showed (a unit PID 1 logs nothing of, a vacuumed journal): it is over,
    /// but not how or when; ``endedAt`` is the last moment it was known to be going.
    static let unknownResult = "unknown"

    /// Whole seconds from the beginning to the end: the run's own duration on PID 1's monotonic clock
    /// (`LIFECYCLE_RUN_DURATION_SECONDS`) when its end carries it, so that a stepped clock changes nothing; else by the
    /// dispatches' times, where a clock set back gives 0. nil unless the run is over and its end known.
    var durationSeconds: Int64? {
        guard result != Self.unknownResult, endedAt != nil else { return nil }
        if let seconds = record.durationSeconds { return Int64(seconds.rounded(.down)) }
        guard let beganAt, let endedAt else { return nil }
        return max(0, (endedAt - beganAt) / 1_000)
    }

    /// The runs that `dispatches` (of one unit, in any order, possibly with duplicates of a re-sent dispatch)
    /// describe, newest first.
    ///
    /// Dispatches are put in the unit's dispatch order (`LIFECYCLE_SEQUENCE`; one number appears once). A launch or
    /// wake begins a run, a sleep or crash notice ends the run of the same InvocationID; dispatches of one InvocationID
    /// are one run even when a freeze and a thaw (a sleep and a wake) lie in between. Custom events are not part of
    /// runs.
    static func runs(from dispatches: [JournaledDispatch]) -> [UnitRun] {
        var runs: [UnitRun] = []
        for dispatch in UnitSummary.inDispatchOrder(dispatches) {
            switch dispatch.kind {
            case .launch, .wake: begin(dispatch, in: &runs)
            case .sleep, .crash: end(dispatch, in: &runs)
            case .custom, .missed: continue
            }
        }
        return runs.reversed()
    }

    /// A launch or wake: a new run, or a thaw of the last run (same InvocationID), which goes on.
    private static func begin(_ dispatch: JournaledDispatch, in runs: inout [UnitRun]) {
        let id = dispatch.invocationID
        if id != nil, let last = runs.indices.last, runs[last].invocationID == id {
            runs[last].end = nil
            runs[last].endedAt = nil
            runs[last].result = nil
            // The freeze's sleep ended no run: what it carried is forgotten, the run's start-up stays.
            runs[last].record = RunRecord(startupSeconds: runs[last].record.startupSeconds)
            runs[last].reconciled = runs[last].reconciled || dispatch.isReconciled
            return
        }
        var run = UnitRun(
            invocationID: id,
            begin: LifecycleEvent(rawValue: dispatch.kind.rawValue),
            beganAt: dispatch.time,
            version: dispatch.version,
            reconciled: dispatch.isReconciled
        )
        // A launch or wake carries the run's start-up when the run was active already: shown while it goes on. The
        // rest of the record is its end's.
        run.record = RunRecord(startupSeconds: finite(dispatch.run).startupSeconds)
        runs.append(run)
    }

    /// A sleep or crash notice: the end of the last run when it has the same InvocationID, else of a run whose
    /// beginning the journal no longer holds.
    private static func end(_ dispatch: JournaledDispatch, in runs: inout [UnitRun]) {
        let id = dispatch.invocationID
        if runs.last?.invocationID != id || runs.isEmpty {
            runs.append(UnitRun(invocationID: id, version: dispatch.version, reconciled: false))
        }
        let last = runs.count - 1
        runs[last].end = dispatch.kind.rawValue
        runs[last].endedAt = dispatch.time
        runs[last].reconciled = runs[last].reconciled || dispatch.isReconciled
        runs[last].record = finite(dispatch.run).merging(runs[last].record)
        guard let failure = dispatch.failure else {
            runs[last].result = dispatch.isEndUnknown ? unknownResult : "success"
            return
        }
        runs[last].result = failure.result
        runs[last].exitStatus = failure.statusText
    }

    /// `record` without times that are no number of seconds: the journal's text `inf` or `1e999` reads as infinity,
    /// which no table or JSON document can show, so it counts as unknown.
    private static func finite(_ record: RunRecord) -> RunRecord {
        var record = record
        if record.startupSeconds?.isFinite == false { record.startupSeconds = nil }
        if record.cpuSeconds?.isFinite == false { record.cpuSeconds = nil }
        if record.durationSeconds.map({ !$0.isFinite || $0 > 1e15 }) == true { record.durationSeconds = nil }
        return record
    }
}
