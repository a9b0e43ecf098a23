// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema

extension UnitSummary {
    /// What the dispatches of one unit on one machine say about it at `now`: the same figures a state file gives
    /// (``init(record:now:calendar:crashLoop:)``), for journals collected from other machines.
    ///
    /// The totals are the engine's data points in the newest launch's, wake's or sleep's payload; a crash notice
    /// counts once more until the next launch counts it (as ``crashes`` does for a state file), and a running unit's
    /// time awake grows from its last launch or wake to `now`. Only the crash notices the journal still holds can make
    /// a crash loop.
    ///
    /// - Parameters:
    ///   - dispatches: the unit's dispatches, in any order, a dispatch sent again among them (it counts once); at
    ///     least one.
    ///   - now: the instant the figures are computed for.
    ///   - crashLoop: when failures make a crash loop.
    init(dispatches: [JournaledDispatch], now: Milliseconds, crashLoop: CrashLoopRule) {
        let ordered = Self.inDispatchOrder(dispatches)
        let lifecycle = ordered.last { LifecycleEvent(rawValue: $0.kind.rawValue) != nil }
        let lastRunDispatch = ordered.last { $0.runState != nil }
        let data = lifecycle?.payload
        func count(_ key: String) -> Int64? {
            guard case .object(let members) = data, case .int(let value) = members[key] else { return nil }
            return value
        }

        unit = ordered.last?.unit ?? ""
        runState = lastRunDispatch?.runState
        failure = runState == .failed ? lastRunDispatch?.failure : nil
        isCrashLooping = crashLoop.isLooping(ordered.filter { $0.kind == .crash }.map(\.time), now: now)
        lastEvent = lifecycle.flatMap { LifecycleEvent(rawValue: $0.kind.rawValue) }
        lastEventTime = lifecycle?.time
        launches = Int(count("lifecycle_totallaunchcount") ?? 0)
        wakes = Int(count("lifecycle_totalwakecount") ?? 0)
        sleeps = Int(count("lifecycle_totalsleepcount") ?? 0)
        crashes = Int(count("lifecycle_totalcrashcount") ?? 0) + (runState == .failed ? 1 : 0)
        var awake = count("lifecycle_totalsecondsawake") ?? 0
        if runState == .running, let began = lifecycle?.time { awake += now.secondsSince(began) }
        totalSecondsAwake = awake
        if case .object(let members) = data, case .string(let first)? = members["lifecycle_firstlaunchdate"] {
            daysSinceLaunch = now.daysSince(TimestampParser.milliseconds(from: first))
        } else {
            daysSinceLaunch = nil
        }
        version = ordered.last { $0.version != nil }?.version
        invocationID = lastRunDispatch?.invocationID
        sequence = ordered.last?.sequence ?? 0
    }

    /// Sorted by sequence number, each number once (the later entry of a dispatch sent again).
    static func inDispatchOrder(_ dispatches: [JournaledDispatch]) -> [JournaledDispatch] {
        var newest: [UInt64: JournaledDispatch] = [:]
        for dispatch in dispatches { newest[dispatch.sequence] = dispatch }
        return newest.values.sorted { $0.sequence < $1.sequence }
    }
}
