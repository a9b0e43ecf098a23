// SPDX-License-Identifier: Apache-2.0

/// The units whose changes a recovery applies as they come instead of holding them (docs/architecture.md, "Phases"):
/// watched units the journal holds nothing of (``JournaledUnits``), with no record. Such a unit's listing entry is
/// taken before its first change, as the end of the recovery would take it before the held changes; the recovery's
/// history, catch-up and listing then leave it out.
struct LiveUnits: Sendable {
    /// What the journal named when the recovery began reading it.
    let journaled: JournaledUnits
    /// The units whose listing entry was taken already: their changes are applied as they come until the recovery
    /// ends.
    var listed: Set<String> = []
    /// Set once the recovery's last answer is taken: its listing is queued then, with every unit not live yet, so no
    /// other unit goes live.
    var isClosed = false
}
