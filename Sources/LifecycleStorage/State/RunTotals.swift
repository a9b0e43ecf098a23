// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// What a unit's runs cost over its history, kept in its record for the metrics: a histogram of start-up times, the
/// CPU time of the runs that knew it, OOM kills by who killed, and core dumps. Only what the runs knew is counted:
/// a run that could not say adds nothing, so a host without accounting shows no CPU rather than none used.
///
/// Times are kept in whole microseconds (systemd's resolution), so the state file holds integers only.
public struct RunTotals: Sendable, Equatable, Codable {
    /// The histogram's upper bounds in seconds (`le`), from a quick start to a slow database's.
    public static let startupBounds: [Double] = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]
    /// The sources of an OOM kill, written even at 0 (``OOMKiller``).
    public static let oomSources = ["kernel", "oomd"]

    /// Start-ups per bound of ``startupBounds``, each counted in the first bound it is within (not cumulative);
    /// those above the last bound only in ``startups``.
    public var startupBuckets: [Int]
    public var startups: Int
    public var startupMicroseconds: Int64
    /// The run (its InvocationID) whose start-up is counted already, as its launch or wake carried it: its end does
    /// not count it again. A run's start-up is counted as soon as it is known, so that the first start after an
    /// update shows in the histogram while that run goes on, not only once it stops.
    public var startupCountedFor: String?
    public var cpuMicroseconds: Int64
    public var oomKills: [String: Int]
    public var coredumps: Int

    public init() {
        startupBuckets = Array(repeating: 0, count: Self.startupBounds.count)
        startups = 0
        startupMicroseconds = 0
        cpuMicroseconds = 0
        // Every source at 0 from the start: the file then never holds an empty object.
        oomKills = Dictionary(uniqueKeysWithValues: Self.oomSources.map { ($0, 0) })
        coredumps = 0
    }

    /// True when no run has added anything: the record then leaves the totals out of its file. Asked at every save,
    /// so without making a `RunTotals()` to compare with (an array and a dictionary).
    public var isEmpty: Bool {
        startups == 0 && startupMicroseconds == 0 && cpuMicroseconds == 0 && coredumps == 0
            && startupCountedFor == nil
            && startupBuckets.count == Self.startupBounds.count && startupBuckets.allSatisfy { $0 == 0 }
            && oomKills.count == Self.oomSources.count && Self.oomSources.allSatisfy { oomKills[$0] == 0 }
    }

    /// Adds what one ended run's record knows; its start-up only if it was not counted as the run began.
    public mutating func add(_ run: RunRecord, of invocationID: String?) {
        if let seconds = run.startupSeconds, invocationID == nil || invocationID != startupCountedFor {
            countStartup(seconds)
        }
        if invocationID != nil, invocationID == startupCountedFor { startupCountedFor = nil }
        if let seconds = run.cpuSeconds { cpuMicroseconds += Self.microseconds(seconds) }
        if let oom = run.oom { oomKills[oom.rawValue, default: 0] += 1 }
        if run.coredump != nil { coredumps += 1 }
    }

    /// Adds the start-up of a run that goes on (its launch or wake knows it): its end will not count it again.
    public mutating func addStartup(_ seconds: Double, of invocationID: String) {
        guard invocationID != startupCountedFor else { return }
        countStartup(seconds)
        startupCountedFor = invocationID
    }

    private mutating func countStartup(_ seconds: Double) {
        if let bound = Self.startupBounds.firstIndex(where: { seconds <= $0 }) { startupBuckets[bound] += 1 }
        startups += 1
        startupMicroseconds += Self.microseconds(seconds)
    }

    /// The cumulative count of start-ups within each bound, as a histogram's buckets are written.
    public var cumulativeStartupBuckets: [Int] {
        var total = 0
        return startupBuckets.map { count in
            total += count
            return total
        }
    }

    private static func microseconds(_ seconds: Double) -> Int64 {
        Int64((min(seconds, 1e12) * 1_000_000).rounded())  // a bound no run reaches, far from overflow
    }

    enum CodingKeys: String, CodingKey {
        case startupBuckets = "startup_buckets"
        case startups = "startup_count"
        case startupMicroseconds = "startup_microseconds"
        case startupCountedFor = "startup_counted_for"
        case cpuMicroseconds = "cpu_microseconds"
        case oomKills = "oom_kills"
        case coredumps
    }
}
