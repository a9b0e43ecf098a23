// SPDX-License-Identifier: Apache-2.0

/// systemd's signals were lost while a recovery read PID 1's journal (docs/architecture.md, "Phases"). The recovery's
/// history ends at its barrier, written before the loss, so what PID 1 did from the loss on is read as a recovery of
/// its own once the history is recorded, before the listing and the changes held are taken: a run that began or ended
/// while the signals were lost is recorded in its place, not after newer ones.
struct RecoveryGap: Sendable, Equatable {
    /// When the loss was noticed (µs since the epoch): the gap's history is read from a margin before it.
    var since: UInt64
    /// Whether the source listed the units since the loss: the gap can be read at once; otherwise it waits for the
    /// listing, as after a loss while tracking.
    var isListed = false
}
