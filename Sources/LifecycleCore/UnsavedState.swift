// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// What the state directory did not take: the units whose latest record is not in their state file, and the journal
/// position to keep once they are. Tried again on a timer, sooner at first and then every ``longestDelay``, until a
/// save goes through (docs/architecture.md, "Degrading instead of stopping").
///
/// A retry writes one file first (a probe): a directory still read-only or full costs one failed write a round, not
/// one per unit; once it takes it, every other unit is written as its record stands then.
struct UnsavedState: Sendable {
    /// The first retry, a second after the failure: a full disk freed by a log rotation mends at once.
    static let firstDelay: Milliseconds = 1_000
    /// The back-off doubles up to this. Low, so that the state files catch up within seconds of the directory being
    /// writable again; a round that fails costs a single write attempt, so a fault that lasts days costs nothing
    /// worth saving by waiting longer.
    static let longestDelay: Milliseconds = 5_000

    /// Units whose latest record is not in their state file, and not being written.
    var units: Set<String> = []
    /// Units a retry is writing: the probe, then every other unit once the probe went through.
    var writing: Set<String> = []
    /// Whether the one unit being written is a retry's probe, whose success starts the catch-up.
    var isProbing = false
    /// A journal position not kept yet, kept only after every record is: it promises that the state files hold
    /// every run PID 1 logged before it (``JournalPositionKeeper``).
    var position: JournalPosition?
    /// Whether that position is being written.
    var isWritingPosition = false
    /// The delay of the next retry after a failed one.
    var delay = firstDelay
    /// When the retry is armed for; nil when none is.
    var retryAt: Uptime?

    var isEmpty: Bool { units.isEmpty && writing.isEmpty && position == nil && !isWritingPosition }

    /// A retry fires: the one after it, if this one fails too, comes later.
    mutating func retrying() {
        retryAt = nil
        delay = min(delay * 2, Self.longestDelay)
    }

    /// Everything was written: the next fault starts the back-off again.
    mutating func caughtUp() {
        delay = Self.firstDelay
    }
}
