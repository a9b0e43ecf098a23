// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// What one timer of a unit did over the unit's history, kept in the unit's record for `lifecyclectl timers` and the
/// metrics: its elapses by what became of them (a run, a miss by cause, a skip, an elapse merged into the run going
/// on), how late its runs began, and its schedule as systemd last showed it (docs/journal.md, "Timers").
///
/// Times are whole microseconds (lateness) or milliseconds since the epoch (schedule), so the state file holds
/// integers only.
public struct TimerTotals: Sendable, Equatable, Codable {
    /// The lateness histogram's upper bounds in seconds (`le`): on time, within a typical accuracy, up to an hour.
    public static let latenessBounds: [Double] = [0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600]
    /// How many recent latenesses are kept for the median `lifecyclectl timers` shows.
    public static let recentLimit = 20

    /// What became of the last elapse.
    public enum Outcome: String, Sendable, Codable, CaseIterable {
        case ran, missed, skipped, coalesced
    }

    public var runs: Int = 0
    /// Misses by cause (systemd's job result).
    public var missed: [String: Int] = [:]
    public var skipped: Int = 0
    public var coalesced: Int = 0
    /// Runs per bound of ``latenessBounds``, each counted in the first bound it is within (not cumulative).
    public var latenessBuckets: [Int] = Array(repeating: 0, count: latenessBounds.count)
    public var latenessMicroseconds: Int64 = 0
    public var maxLatenessMicroseconds: Int64 = 0
    /// The latenesses of the last ``recentLimit`` runs, oldest first.
    public var recentLatenessMicroseconds: [Int64] = []
    public var lastOutcome: Outcome?
    /// The cause of the last elapse when it was missed.
    public var lastCause: String?
    /// `LastTriggerUSec` and the next elapse (ms since the epoch) as systemd last showed them; nil for never, none.
    public var lastTrigger: Milliseconds?
    public var nextElapse: Milliseconds?
    /// When lifecycled last resolved an elapse (the run's begin, the failed job's removal): PID 1's failed start
    /// jobs after it are what a later start reads for misses while it was away.
    public var lastResolved: Milliseconds?

    public init() {}

    public var missedCount: Int { missed.values.reduce(0, +) }

    /// A run the timer started, `seconds` late, that began `at` (nil: not known).
    public mutating func countRun(latenessSeconds seconds: Double, at began: Milliseconds? = nil) {
        if let began { lastResolved = max(lastResolved ?? began, began) }
        let microseconds = Int64((min(max(seconds, 0), 1e12) * 1_000_000).rounded())
        runs += 1
        if let bound = Self.latenessBounds.firstIndex(where: { seconds <= $0 }) { latenessBuckets[bound] += 1 }
        latenessMicroseconds += microseconds
        maxLatenessMicroseconds = max(maxLatenessMicroseconds, microseconds)
        recentLatenessMicroseconds.append(microseconds)
        if recentLatenessMicroseconds.count > Self.recentLimit {
            recentLatenessMicroseconds.removeFirst(recentLatenessMicroseconds.count - Self.recentLimit)
        }
        lastOutcome = .ran
        lastCause = nil
    }

    /// An elapse whose run never began, for `cause`.
    public mutating func countMissed(cause: String) {
        missed[cause, default: 0] += 1
        lastOutcome = .missed
        lastCause = cause
    }

    /// An elapse that began no run and missed none (``TimerJobOutcome/skipped(_:)``, ``TimerJobOutcome/coalesced(_:)``).
    public mutating func count(_ outcome: Outcome) {
        switch outcome {
        case .skipped: skipped += 1
        case .coalesced: coalesced += 1
        case .ran, .missed: return
        }
        lastOutcome = outcome
        lastCause = nil
    }

    /// The median lateness of the recent runs in seconds, nil before the first.
    public var medianLatenessSeconds: Double? {
        guard !recentLatenessMicroseconds.isEmpty else { return nil }
        let sorted = recentLatenessMicroseconds.sorted()
        let middle = sorted.count / 2
        let median = sorted.count % 2 == 1 ? Double(sorted[middle]) : Double(sorted[middle - 1] + sorted[middle]) / 2
        return median / 1_000_000
    }

    /// The cumulative count of runs within each bound, as a histogram's buckets are written.
    public var cumulativeLatenessBuckets: [Int] {
        var total = 0
        return latenessBuckets.map { count in
            total += count
            return total
        }
    }

    enum CodingKeys: String, CodingKey {
        case runs, missed, skipped, coalesced
        case latenessBuckets = "lateness_buckets"
        case latenessMicroseconds = "lateness_microseconds"
        case maxLatenessMicroseconds = "lateness_max_microseconds"
        case recentLatenessMicroseconds = "lateness_recent_microseconds"
        case lastOutcome = "last_outcome"
        case lastCause = "last_cause"
        case lastTrigger = "last_trigger"
        case nextElapse = "next_elapse"
        case lastResolved = "last_resolved"
    }

    /// Empty collections are left out, as the record leaves out its own.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        runs = try container.decode(Int.self, forKey: .runs)
        missed = try container.decodeIfPresent([String: Int].self, forKey: .missed) ?? [:]
        skipped = try container.decode(Int.self, forKey: .skipped)
        coalesced = try container.decode(Int.self, forKey: .coalesced)
        latenessBuckets = try container.decode([Int].self, forKey: .latenessBuckets)
        latenessMicroseconds = try container.decode(Int64.self, forKey: .latenessMicroseconds)
        maxLatenessMicroseconds = try container.decode(Int64.self, forKey: .maxLatenessMicroseconds)
        recentLatenessMicroseconds = try container.decodeIfPresent([Int64].self, forKey: .recentLatenessMicroseconds) ?? []
        lastOutcome = try container.decodeIfPresent(Outcome.self, forKey: .lastOutcome)
        lastCause = try container.decodeIfPresent(String.self, forKey: .lastCause)
        lastTrigger = try container.decodeIfPresent(Milliseconds.self, forKey: .lastTrigger)
        nextElapse = try container.decodeIfPresent(Milliseconds.self, forKey: .nextElapse)
        lastResolved = try container.decodeIfPresent(Milliseconds.self, forKey: .lastResolved)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(runs, forKey: .runs)
        if !missed.isEmpty { try container.encode(missed, forKey: .missed) }
        try container.encode(skipped, forKey: .skipped)
        try container.encode(coalesced, forKey: .coalesced)
        try container.encode(latenessBuckets, forKey: .latenessBuckets)
        try container.encode(latenessMicroseconds, forKey: .latenessMicroseconds)
        try container.encode(maxLatenessMicroseconds, forKey: .maxLatenessMicroseconds)
        if !recentLatenessMicroseconds.isEmpty {
            try container.encode(recentLatenessMicroseconds, forKey: .recentLatenessMicroseconds)
        }
        try container.encodeIfPresent(lastOutcome, forKey: .lastOutcome)
        try container.encodeIfPresent(lastCause, forKey: .lastCause)
        try container.encodeIfPresent(lastTrigger, forKey: .lastTrigger)
        try container.encodeIfPresent(nextElapse, forKey: .nextElapse)
        try container.encodeIfPresent(lastResolved, forKey: .lastResolved)
    }
}

extension TimerTotals {
    /// Writes the totals as their `Codable` form gives them, keys in sorted order.
    func write(to writer: inout JSONLayoutWriter) {
        writer.beginObject()
        writer.member("coalesced", Int64(coalesced))
        writer.member("last_cause", lastCause)
        writer.member("last_outcome", lastOutcome?.rawValue)
        writer.member("last_resolved", lastResolved)
        writer.member("last_trigger", lastTrigger)
        writer.member("lateness_buckets", integers: latenessBuckets.lazy.map { Int64($0) })
        writer.member("lateness_max_microseconds", maxLatenessMicroseconds)
        writer.member("lateness_microseconds", latenessMicroseconds)
        if !recentLatenessMicroseconds.isEmpty {
            writer.member("lateness_recent_microseconds", integers: recentLatenessMicroseconds)
        }
        if !missed.isEmpty { writer.member("missed", counts: missed) }
        writer.member("next_elapse", nextElapse)
        writer.member("runs", Int64(runs))
        writer.member("skipped", Int64(skipped))
        writer.endObject()
    }

    /// Reads the totals from one member of a state file's `timers` object, as their `Codable` form does.
    init(stateFile totals: StateFileObject) throws(StateFileDecoder.Corruption) {
        self.init()
        runs = Int(clamping: try totals.int("runs"))
        skipped = Int(clamping: try totals.int("skipped"))
        coalesced = Int(clamping: try totals.int("coalesced"))
        if let counts = try totals.optionalObject("missed") {
            for key in counts.members.keys { missed[key] = Int(clamping: try counts.int(key)) }
        }
        latenessBuckets = try Self.integers(totals, "lateness_buckets").map { Int(clamping: $0) }
        guard latenessBuckets.count == Self.latenessBounds.count else {
            throw StateFileDecoder.Corruption(reason: "\(totals.keyPath("lateness_buckets")): expected "
                + "\(Self.latenessBounds.count) counts, found \(latenessBuckets.count)")
        }
        latenessMicroseconds = try totals.int("lateness_microseconds")
        maxLatenessMicroseconds = try totals.int("lateness_max_microseconds")
        recentLatenessMicroseconds = try Self.integers(totals, "lateness_recent_microseconds")
        lastOutcome = try totals.optionalString("last_outcome").flatMap(Outcome.init(rawValue:))
        lastCause = try totals.optionalString("last_cause")
        lastTrigger = try totals.optionalInt("last_trigger")
        nextElapse = try totals.optionalInt("next_elapse")
        lastResolved = try totals.optionalInt("last_resolved")
    }

    private static func integers(_ object: StateFileObject, _ key: String) throws(StateFileDecoder.Corruption) -> [Int64] {
        var values: [Int64] = []
        for (index, item) in (try object.optionalArray(key) ?? []).enumerated() {
            guard case .int(let value) = item else {
                throw StateFileDecoder.Corruption(
                    reason: "\(object.keyPath(key))[\(index)]: expected an integer, found \(item.typeName)"
                )
            }
            values.append(value)
        }
        return values
    }
}
