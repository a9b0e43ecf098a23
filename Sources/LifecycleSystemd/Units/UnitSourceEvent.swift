// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// What a ``SystemdUnitSource`` reports, in the order it learned it.
public enum UnitSourceEvent: Sendable, Hashable {
    /// The state of every watched, loaded unit, read with `ListUnitsByPatterns` and `Get`. Sent after connecting
    /// and after every resync (a reconnect, `Reloading(false)`, systemd's bus name changing owner). It replaces what
    /// came before: a unit missing from it is no longer loaded. Signals keep flowing while a resync collects, so a
    /// ``changed(_:)`` sent before the `initial` may be newer than the unit's snapshot in it: compare their
    /// `stateChangeTimestampMonotonic`.
    case initial([UnitSnapshot])
    /// A unit's `org.freedesktop.systemd1.Unit` properties changed; the snapshot also carries the type interface's
    /// values (`Result`, `NRestarts`, `ExecMain*`), which systemd sends just before. Duplicates are forwarded as they
    /// come (systemd repeats a snapshot when only `Job` changes).
    case changed(UnitSnapshot)
    /// The manager's `Reloading` signal: true when a daemon-reload or daemon-reexec begins, false when it ends.
    /// Everything in between is systemd re-announcing its units, not units changing state.
    case reloading(Bool)
    /// The manager's `UnitRemoved`: the unit was unloaded (garbage-collected, or re-announced during a reload).
    case removed(String)
    /// The manager's `JobRemoved` for a watched unit: a job finished with `done`, `canceled`, `timeout`, `failed`,
    /// `dependency` or `skipped`. A failed restart job after a crash means systemd gave up. `unitResult` is the unit's
    /// `Result` as the source knew it then (PID 1 sends the unit's pending change before `JobRemoved`).
    case jobRemoved(unit: String, jobID: UInt32, result: String, unitResult: String?)
    /// A followed timer's `org.freedesktop.systemd1.Timer` properties changed (an elapse moves `LastTriggerUSec`
    /// and `NextElapseUSec*` at once); the snapshot holds every property, merged with what was read before
    /// (``SystemdUnitSource/timers(of:)``).
    case timerChanged(TimerSnapshot)
    /// The bus connection broke. The source reconnects with back-off and sends ``initial(_:)`` when it is back.
    case connectionLost(SystemdError)
    /// systemd left the bus (its bus name lost its owner, as in a `daemon-reexec` or when it hits a bus limit): its
    /// signals are lost until it is back, and the source sends ``initial(_:)`` when it is.
    case signalsLost
}
