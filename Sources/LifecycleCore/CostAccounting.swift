// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// What lifecycled learned of whether systemd can tell what a run cost: per unit, and for the whole host.
///
/// A run's cost (CPU time, memory peak, IO bytes) is one round trip to PID 1 after the run's end; no change signal
/// carries it. A host whose cgroups account nothing (cgroup v1 without accounting, most containers) answers
/// `[not set]` for every unit, and a churn of transient units is all new names: asking each new name once would be a
/// round trip a run. So after ``emptyUnitsToLearn`` units answered without any cost, and none ever answered with
/// one, the host is taken to account nothing, and only one end in ``probeInterval`` is asked, so that a host that
/// starts accounting is noticed. One cost answered ends the learning for good: a host that accounts is asked at every
/// end (a unit that alone accounts nothing is still not asked again). A reload may turn accounting on or off, so it
/// starts the learning over (docs/PERFORMANCE.md, "A run's cost, learned once per host").
struct CostAccounting: Sendable, Equatable {
    /// How many units must answer without any cost, with none answering one, before the host is taken to account
    /// nothing: more than one, so that one unit with its accounting off does not decide for the host.
    static let emptyUnitsToLearn = 3
    /// While the host is taken to account nothing, one end in this many is asked anyway.
    static let probeInterval = 64

    enum Host: Sendable, Equatable {
        /// Not known yet: how many units answered without any cost so far.
        case learning(emptyUnits: Int)
        /// A unit answered with a cost: every end is asked.
        case accounts
        /// Units answered without any cost, and none with one: how many ends were not asked since the last.
        case accountsNothing(endsSinceProbe: Int)
    }

    private(set) var host = Host.learning(emptyUnits: 0)
    /// Units whose cost systemd answered without knowing any of it: not asked again until they are unloaded or
    /// systemd reloads.
    private(set) var unitsWithoutCost: Set<String> = []

    /// Whether the end of a run of `unit` is worth reading the run's cost for; counts the end toward the next probe
    /// when it is not.
    mutating func readsCost(ofEndOf unit: String) -> Bool {
        guard !unitsWithoutCost.contains(unit) else { return false }
        guard case .accountsNothing(let skipped) = host else { return true }
        if skipped + 1 >= Self.probeInterval {
            host = .accountsNothing(endsSinceProbe: 0)
            return true
        }
        host = .accountsNothing(endsSinceProbe: skipped + 1)
        return false
    }

    /// What systemd answered for a run of `unit`: nil when it could not be read at all (which teaches nothing),
    /// else what systemd knew of it, which may be nothing.
    mutating func took(_ cost: RunRecord?, of unit: String) {
        guard let cost else { return }
        guard cost.isEmpty else {
            host = .accounts
            return
        }
        unitsWithoutCost.insert(unit)
        if case .learning(let empty) = host {
            host = empty + 1 >= Self.emptyUnitsToLearn ? .accountsNothing(endsSinceProbe: 0) : .learning(emptyUnits: empty + 1)
        }
    }

    /// systemd unloaded `unit`: loaded again, it may account differently, and names that never come back must not
    /// pile up here.
    mutating func unloaded(_ unit: String) {
        unitsWithoutCost.remove(unit)
    }

    /// systemd reloaded: its configuration (`DefaultCPUAccounting=`, a unit's `CPUAccounting=`) may have changed.
    mutating func reloaded() {
        self = CostAccounting()
    }
}
