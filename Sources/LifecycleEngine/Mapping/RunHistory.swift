// SPDX-License-Identifier: Apache-2.0

/// The runs of units that PID 1's journal records over a stretch of time, grouped by InvocationID: the source for
/// runs that began (and perhaps ended) while lifecycled was not running, which systemd's listing no longer shows.
public struct RunHistory: Sendable, Hashable {
    /// One run: one InvocationID of one unit.
    public struct Run: Sendable, Hashable {
        public var invocationID: String
        /// When the run began: PID 1's "Starting" or "Started" entry, or its first entry about the run.
        public var began: Milliseconds
        /// PID 1's monotonic clock at ``began`` (µs), for a run of the current boot; nil otherwise.
        public var beganMonotonic: UInt64?
        /// ``began`` by the wall clock as it was where the history starts, to compare with recorded times: a clock
        /// stepped since does not move it (``RunEnding/Entry/positionTime``).
        public var beganInOrder: Milliseconds
        /// How it ended, nil when the journal does not say (yet).
        public var ending: RunEnding?

        public init(
            invocationID: String, began: Milliseconds, ending: RunEnding?, beganMonotonic: UInt64? = nil,
            beganInOrder: Milliseconds? = nil
        ) {
            self.invocationID = invocationID
            self.began = began
            self.beganMonotonic = beganMonotonic
            self.beganInOrder = beganInOrder ?? began
            self.ending = ending
        }
    }

    /// The journal fields the history reads.
    public static let fields = RunEnding.fields + ["UNIT", "INVOCATION_ID"]

    /// Each unit's runs, in the order they began.
    public private(set) var runs: [String: [Run]]

    /// Groups PID 1's `entries` (oldest first, with `UNIT` and `INVOCATION_ID` among their fields) into runs; entries
    /// without either field are not about a run and are left out.
    public init(entries: [RunEnding.Entry]) {
        var order: [String: [String]] = [:]
        var byRun: [String: [String: [RunEnding.Entry]]] = [:]
        for entry in entries {
            guard let unit = entry.fields["UNIT"], !unit.isEmpty, let id = entry.fields["INVOCATION_ID"], !id.isEmpty
            else { continue }
            if byRun[unit, default: [:]][id] == nil { order[unit, default: []].append(id) }
            byRun[unit, default: [:]][id, default: []].append(entry)
        }
        runs = [:]
        for (unit, ids) in order {
            runs[unit] = ids.compactMap { id in
                guard let entries = byRun[unit]?[id], let first = entries.first else { return nil }
                let begin = entries.first {
                    $0.messageID == RunEnding.MessageID.unitStarting || $0.messageID == RunEnding.MessageID.unitStarted
                }
                let start = begin ?? first
                return Run(
                    invocationID: id, began: start.time, ending: RunEnding(entries: entries),
                    beganMonotonic: start.monotonicMicroseconds, beganInOrder: start.positionTime
                )
            }
        }
    }

    /// The runs of `unit` after the run `invocationID`. When that run is not in the history (it began before the
    /// history does, or the journal missed its entries, say while journald was stopped), the runs that began after
    /// `recordedUntil`, the time of the last event recorded for the unit (all of them when nil), compared by the clock
    /// as it was where the history starts (``Run/beganInOrder``), so that runs after a step back of the clock count.
    public func runs(of unit: String, after invocationID: String?, recordedUntil: Milliseconds? = nil) -> ArraySlice<Run> {
        let all = runs[unit] ?? []
        if let invocationID, let index = all.firstIndex(where: { $0.invocationID == invocationID }) {
            return all[(index + 1)...]
        }
        guard let recordedUntil else { return all[...] }
        return all.filter { $0.beganInOrder > recordedUntil }[...]
    }

    /// The run `invocationID` of `unit`, nil when the history does not hold it.
    public func run(of unit: String, _ invocationID: String) -> Run? {
        runs[unit]?.first { $0.invocationID == invocationID }
    }

    /// The units the history has runs of.
    public var units: Dictionary<String, [Run]>.Keys { runs.keys }
}
