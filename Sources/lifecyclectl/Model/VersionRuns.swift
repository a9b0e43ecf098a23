// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// A unit's runs of one version, as `lifecyclectl show` sums them up: how many runs the journal holds, and the
/// median start-up and CPU time per run, so that a release that starts slower or works harder than the one before
/// shows.
struct VersionRuns: Sendable, Equatable {
    /// The unit's version the run's dispatches carry (`LIFECYCLE_VERSION`, ``UnitRun/version``); nil for runs whose
    /// version lifecycled did not know (runs rebuilt from PID 1's journal on day one, a unit without a version).
    var version: String?
    /// Every run of the version the journal holds, the one going on included.
    var count: Int
    /// The median start-up time over the runs whose record knows it; nil when none does.
    var medianStartupSeconds: Double?
    /// The median CPU time per run over the runs whose record knows it; nil when none does.
    var medianCPUSeconds: Double?

    /// `runs` grouped by version, newest version first.
    ///
    /// The newest version is the one with the newest run: `runs` come newest first (as ``UnitRun/runs(from:)`` gives
    /// them), and each version takes the place of its first run there. So the version running now (or last) leads,
    /// and after a rollback the version rolled back to comes before the one it replaced. Runs without a version are
    /// one group of their own, placed the same way. A run whose record does not know a value is left out of that
    /// value's median only: unknown is never taken as 0.
    static func grouping(_ runs: [UnitRun]) -> [VersionRuns] {
        var order: [String?] = []
        var byVersion: [String?: [UnitRun]] = [:]
        for run in runs {
            if byVersion[run.version] == nil { order.append(run.version) }
            byVersion[run.version, default: []].append(run)
        }
        return order.map { version in
            let runs = byVersion[version] ?? []
            return VersionRuns(
                version: version,
                count: runs.count,
                medianStartupSeconds: median(runs.compactMap(\.record.startupSeconds)),
                medianCPUSeconds: median(runs.compactMap(\.record.cpuSeconds))
            )
        }
    }

    /// The median of `values`: the middle one of an odd count, the mean of the two middle ones of an even count;
    /// nil for none.
    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        guard sorted.count.isMultiple(of: 2) else { return sorted[middle] }
        let (lower, upper) = (sorted[middle - 1], sorted[middle])
        return lower + (upper - lower) / 2
    }
}
