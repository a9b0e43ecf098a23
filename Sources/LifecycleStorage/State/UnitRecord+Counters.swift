// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The record's lifetime counters beyond the engine's own, as status and metrics report them.
extension UnitRecord {
    /// True when the last run ended without a sleep: a crash notice ended it, and the engine, which counts a crash
    /// only at the next launch, has not counted it yet.
    public var lastRunFailed: Bool {
        runEnded && (state.lastEvent == .launch || state.lastEvent == .wake)
    }

    /// Lifetime crashes: the engine's total, plus the last run when it failed (a unit stopped by its failure may
    /// never launch again to have it counted).
    public var crashCount: Int {
        state.totalCrashCount + (lastRunFailed ? 1 : 0)
    }

    /// Counts an update when the engine recorded a new one since `previous`: its update time moved.
    public mutating func countUpdate(since previous: UnitState) {
        if let update = state.update, update != previous.update { updateCount += 1 }
    }
}
