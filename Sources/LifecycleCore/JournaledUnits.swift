// SPDX-License-Identifier: Apache-2.0

/// The units the journal names when a recovery's history is about to be read (after its tail, so after everything
/// the history ends with): every value of PID 1's `UNIT=` field and of lifecycled's own `LIFECYCLE_UNIT=` field in
/// the journal's files, whatever entry holds it. Each is a superset: a unit in neither has no run in PID 1's history
/// and no dispatch to catch up with, so what the recovery records of it is its listing entry alone, and its live
/// changes need not wait for the history (docs/architecture.md, "Phases").
public struct JournaledUnits: Sendable, Equatable {
    /// Every `UNIT=` value the journal holds: PID 1's run entries name their unit so.
    public var logged: Set<String>
    /// Every `LIFECYCLE_UNIT=` value the journal holds: the units an earlier lifecycled dispatched for.
    public var dispatched: Set<String>

    public init(logged: Set<String>, dispatched: Set<String>) {
        self.logged = logged
        self.dispatched = dispatched
    }

    /// Whether the journal may hold a run or a dispatch of `unit`.
    public func mayHold(_ unit: String) -> Bool {
        logged.contains(unit) || dispatched.contains(unit)
    }
}
