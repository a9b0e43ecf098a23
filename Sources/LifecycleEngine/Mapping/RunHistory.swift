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
        /// What PID 1's entries tell of what it cost and how it ended (``RunRecord/init(entries:)``), and its
        /// start-up: from "Starting" to "Started" (for a oneshot, "Finished"), when both are there.
        public var record = RunRecord()

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
        var builder = Builder()
        for entry in entries { builder.add(entry) }
        self = builder.finish()
    }

    init(runs: [String: [Run]]) {
        self.runs = runs
    }

    /// Builds a history one entry at a time, keeping only what decides a run (its first entry, and the first and the
    /// last entry of each kind, without the fields that name the run), so that a journal of any length is read in
    /// memory for its runs, not its entries.
    public struct Builder: Sendable, Equatable {
        private var order: [String: [String]] = [:]
        private var byRun: [String: [String: [RunEnding.Entry]]] = [:]
        /// Each unit's last run given out by ``takeDecided()``, put first among the unit's runs the next time: a
        /// unit's missed runs are those after its record's run, found by InvocationID
        /// (``RunHistory/runs(of:after:recordedUntil:)``), and a run from an earlier slice is not among a later
        /// slice's entries; without it the runs would be told apart by the wall clock, which may have stepped back
        /// between them.
        private var lastGiven: [String: Run] = [:]
        /// The runs the last ``takeDecided()`` gave out: an entry of theirs that comes after (PID 1's "Consumed …"
        /// after "Deactivated successfully") is left out, or it would make the run a second time.
        private var given: Set<String> = []

        public init() {}

        private static let namingFields: Set<String> = [
            "UNIT", "INVOCATION_ID", "MESSAGE_ID", "_SOURCE_REALTIME_TIMESTAMP", "_SOURCE_MONOTONIC_TIMESTAMP", "_BOOT_ID",
        ]

        /// Takes one of PID 1's entries that came after the history's end (``SlicedHistory``): only a skip
        /// (`ExecCondition=`) of a run the history holds begun. That start is no run, and what is recorded after the end
        /// (the signals) sees it only being checked and then skipped, which begins nothing: without the skip, the
        /// history would give it out as a run begun.
        public mutating func addPastEnd(_ entry: RunEnding.Entry) {
            guard entry.messageID == RunEnding.MessageID.unitSkipped, let unit = entry.fields["UNIT"],
                let id = entry.fields["INVOCATION_ID"], byRun[unit]?[id] != nil
            else { return }
            add(entry)
        }

        /// Takes one of PID 1's entries, oldest first.
        public mutating func add(_ entry: RunEnding.Entry) {
            guard let unit = entry.fields["UNIT"], !unit.isEmpty, let id = entry.fields["INVOCATION_ID"], !id.isEmpty,
                !given.contains(id)
            else { return }
            // The run is the key; the id and the time are the entry's own properties. A new dictionary, not the
            // entry's with keys removed: that would keep its whole capacity for each kept entry.
            var kept = entry
            let fields = entry.fields.filter { !Self.namingFields.contains($0.key) }
            // Most kept entries have no field left: the shared empty dictionary then, not an allocation each.
            kept.fields = fields.isEmpty ? [:] : fields
            if byRun[unit]?[id] == nil { order[unit, default: []].append(id) }
            byRun[unit, default: [:]][id, default: []].keepFirstAndLast(kept)
        }

        /// Seconds from PID 1's "Starting" to its "Started" (or a oneshot's "Finished") entry of one run, by its
        /// monotonic clock when both have it (the wall clock may step), else by the entries' times; nil without both.
        static func startupSeconds(_ entries: [RunEnding.Entry]) -> Double? {
            guard let starting = entries.first(where: { $0.messageID == RunEnding.MessageID.unitStarting }),
                let started = entries.first(where: { $0.messageID == RunEnding.MessageID.unitStarted })
            else { return nil }
            if let from = starting.monotonicMicroseconds, let to = started.monotonicMicroseconds {
                return to >= from ? Double(to - from) / 1_000_000 : nil
            }
            return started.time >= starting.time ? Double(started.time - starting.time) / 1_000 : nil
        }

        /// Seconds from the run's first entry (`begin`: its "Starting", else the first there is) to the entry that ended
        /// it, by PID 1's monotonic clock (the wall clock may step); nil without both, or for a run not over.
        static func durationSeconds(from begin: RunEnding.Entry, _ entries: [RunEnding.Entry]) -> Double? {
            let endings = [RunEnding.MessageID.unitFailureResult, RunEnding.MessageID.unitSuccess, RunEnding.MessageID.unitStopped]
            guard let end = entries.first(where: { endings.contains($0.messageID) }),
                let from = begin.monotonicMicroseconds, let to = end.monotonicMicroseconds, to >= from
            else { return nil }
            return Double(to - from) / 1_000_000
        }

        /// The runs taken, the builder left empty. Each run's entries are let go as soon as the run is made, so
        /// that a long history is not held twice, as entries and as runs.
        public mutating func finish() -> RunHistory {
            take(keepingOpen: false)
        }

        /// The runs taken so far, but each unit's last run while its entries do not say it is over: that one stays
        /// in the builder, to be decided with the entries still to come. A history read in slices gives out each
        /// slice's runs this way, so that a run whose entries a slice's end cuts in two (a start that a condition
        /// will skip, a "Starting" whose "Started" is in the next slice) is decided on all of them.
        public mutating func takeDecided() -> RunHistory {
            take(keepingOpen: true)
        }

        private mutating func take(keepingOpen: Bool) -> RunHistory {
            var runs: [String: [Run]] = [:]
            given = []
            var openOrder: [String: [String]] = [:]
            var openRuns: [String: [String: [RunEnding.Entry]]] = [:]
            for (unit, ids) in order {
                // One allocation of the final size: an array grown run by run holds the old and the new storage at
                // each doubling, megabytes for a unit with thousands of runs.
                var made: [Run] = []
                made.reserveCapacity(ids.count + 1)
                if let anchor = lastGiven[unit] { made.append(anchor) }
                for id in ids {
                    guard let entries = byRun[unit]?.removeValue(forKey: id) else { continue }
                    if keepingOpen, id == ids.last, !RunEnding.isSkipped(entries), RunEnding(entries: entries) == nil {
                        openOrder[unit] = [id]
                        openRuns[unit] = [id: entries]
                    } else {
                        if keepingOpen { given.insert(id) }
                        if let run = Self.run(id, entries) { made.append(run) }
                    }
                }
                runs[unit] = made
                lastGiven[unit] = keepingOpen ? made.last : nil
            }
            order = openOrder
            byRun = openRuns
            if !keepingOpen { lastGiven = [:] }
            return RunHistory(runs: runs)
        }

        /// The run `id` from its kept entries; nil for a start that ExecCondition= skipped, which is no run.
        private static func run(_ id: String, _ entries: [RunEnding.Entry]) -> Run? {
            guard let first = entries.first, !RunEnding.isSkipped(entries) else { return nil }
            let begin = entries.first {
                $0.messageID == RunEnding.MessageID.unitStarting || $0.messageID == RunEnding.MessageID.unitStarted
            }
            let start = begin ?? first
            var run = Run(
                invocationID: id, began: start.time, ending: RunEnding(entries: entries),
                beganMonotonic: start.monotonicMicroseconds, beganInOrder: start.positionTime
            )
            run.record = RunRecord(entries: entries)
            run.record.startupSeconds = startupSeconds(entries)
            run.record.durationSeconds = durationSeconds(from: start, entries)
            return run
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

    /// From when systemd-coredump's entries are needed to find the dumps of the runs whose main process dumped core
    /// (their ending says so: ``CrashDetails/coreDump``), to their end; nil when no run did.
    public var coreDumpSpan: ClosedRange<Milliseconds>? {
        let spans = runs.values.joined().compactMap(Self.coreDumpSpan)
        guard let first = spans.map(\.lowerBound).min(), let last = spans.map(\.upperBound).max() else { return nil }
        return first...last
    }

    /// Gives each run whose main process dumped core the entry of systemd-coredump that recorded its dump: of
    /// `dumps` (systemd-coredump's entries, oldest first, with their cursors), the first not given yet of the run's
    /// unit whose crash lies within the run (``CoreDump/span(began:ended:)``). Runs are served in the order they
    /// began, so two runs that share a second (a restart within it) take their dumps in order. systemd-coredump's
    /// entries are not PID 1's, so the history's own read has none of them.
    public mutating func addCoreDumps(_ dumps: [(entry: RunEnding.Entry, cursor: String?)], bus: BusKind = .system) {
        guard !dumps.isEmpty else { return }
        var taken = Set<Int>()
        for unit in runs.keys.sorted() {
            for index in runs[unit]!.indices {
                guard let span = Self.coreDumpSpan(runs[unit]![index]) else { continue }
                let found = dumps.indices.first { candidate in
                    !taken.contains(candidate) && CoreDump.isCrash(dumps[candidate].entry, of: unit, bus: bus, within: span)
                }
                guard let found, let dump = CoreDump(entry: dumps[found].entry, cursor: dumps[found].cursor) else { continue }
                taken.insert(found)
                runs[unit]![index].record.coredump = dump.merging(runs[unit]![index].record.coredump)
            }
        }
    }

    /// Where the crash of `run` lies, when its main process dumped core and no dump was given it yet.
    private static func coreDumpSpan(_ run: Run) -> ClosedRange<Milliseconds>? {
        guard case .failed(let details, let ended)? = run.ending, details.coreDump != nil, run.record.coredump == nil
        else { return nil }
        return CoreDump.span(began: run.began, ended: ended)
    }
}

extension [RunEnding.Entry] {
    /// Appends `entry`, or, when the run already has two entries of its kind, replaces the later one: what a run's
    /// entries decide reads the first and the last of a kind only (``RunEnding/init(entries:)``). A process's exit is
    /// of the kind of its command (the main process's, or a control process's).
    fileprivate mutating func keepFirstAndLast(_ entry: RunEnding.Entry) {
        let same = indices.filter {
            self[$0].messageID == entry.messageID && self[$0].fields["COMMAND"] == entry.fields["COMMAND"]
        }
        if same.count >= 2 {
            self[same[same.count - 1]] = entry
        } else {
            append(entry)
        }
    }
}
