// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

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
    /// systemd's Result: `success` for a run that ended with a sleep, the crash notice's Result for a crash.
    var result: String?
    /// The exit status (`7`) or signal (`9/KILL`) of a crashed run, as systemd prints it; nil when unknown.
    var exitStatus: String?
    /// The unit's version at the run's beginning (or end), when lifecycled knew it.
    var version: String?
    /// True when any of the run's dispatches was recovered (`LIFECYCLE_RECONCILED`): lifecycled was not listening.
    var reconciled: Bool

    /// Whole seconds from the beginning to the end; nil unless both are known. A clock set back gives 0.
    var durationSeconds: Int64? {
        guard let beganAt, let endedAt else { return nil }
        return max(0, (endedAt - beganAt) / 1_000)
    }

    /// The runs that `dispatches` (one dictionary of `LIFECYCLE_*` journal fields per dispatch, in any order, possibly
    /// with duplicates of a re-sent dispatch) describe, newest first.
    ///
    /// Dispatches are put in the unit's dispatch order (`LIFECYCLE_SEQUENCE`; one number appears once). A launch or
    /// wake begins a run, a sleep or crash notice ends the open run of the same InvocationID; dispatches of one
    /// InvocationID are one run even when a freeze and a thaw (a sleep and a wake) lie in between. Custom events are
    /// not part of runs.
    static func runs(from dispatches: [[String: String]]) -> [UnitRun] {
        var seen = Set<String>()
        let ordered = dispatches
            .filter { fields in fields["LIFECYCLE_SEQUENCE"].map { seen.insert($0).inserted } ?? true }
            .sorted { (UInt64($0["LIFECYCLE_SEQUENCE"] ?? "") ?? 0) < (UInt64($1["LIFECYCLE_SEQUENCE"] ?? "") ?? 0) }
        var runs: [UnitRun] = []
        var open: Int?
        for fields in ordered {
            let id = fields["LIFECYCLE_INVOCATION_ID"]
            let time = fields["LIFECYCLE_TIME"].flatMap(TimestampParser.milliseconds(from:))
            let reconciled = fields["LIFECYCLE_RECONCILED"] == "true"
            switch fields["LIFECYCLE_EVENT"] {
            case "launch", "wake":
                if let index = open, id != nil, runs[index].invocationID == id {
                    // A thaw within the run: the run goes on.
                    runs[index].end = nil
                    runs[index].endedAt = nil
                    runs[index].result = nil
                    runs[index].reconciled = runs[index].reconciled || reconciled
                    continue
                }
                let event = LifecycleEvent(rawValue: fields["LIFECYCLE_EVENT"] ?? "")
                runs.append(
                    UnitRun(
                        invocationID: id, begin: event, beganAt: time, version: fields["LIFECYCLE_VERSION"],
                        reconciled: reconciled
                    )
                )
                open = runs.count - 1
            case "sleep", "crash":
                let index: Int
                if let current = open, runs[current].invocationID == id {
                    index = current
                } else {
                    runs.append(UnitRun(invocationID: id, version: fields["LIFECYCLE_VERSION"], reconciled: false))
                    index = runs.count - 1
                    open = index
                }
                runs[index].end = fields["LIFECYCLE_EVENT"]
                runs[index].endedAt = time
                runs[index].reconciled = runs[index].reconciled || reconciled
                if runs[index].end == "crash" {
                    let failure = RunFailure(
                        result: fields["LIFECYCLE_UNIT_RESULT"] ?? "unknown",
                        exitCode: fields["LIFECYCLE_EXIT_CODE"],
                        exitStatus: fields["LIFECYCLE_EXIT_STATUS"].flatMap { Int64($0) },
                        time: time ?? 0
                    )
                    runs[index].result = failure.result
                    runs[index].exitStatus = failure.statusText
                } else {
                    runs[index].result = "success"
                }
            default:
                continue
            }
        }
        return runs.reversed()
    }
}
