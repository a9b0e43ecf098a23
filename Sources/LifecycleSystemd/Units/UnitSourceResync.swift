// SPDX-License-Identifier: Apache-2.0

/// A resync in progress: subscribe, list, read, then send `initial`. Each call's answer names the resync it belongs
/// to, so the answers of one given up (a broken connection, a stop) are told apart from the current one's.
struct UnitSourceResync: Sendable, Hashable {
    /// What the resync waits for.
    enum Step: Sendable, Hashable {
        case subscribing
        case listing
        /// The listing's reads. A read of a unit in `checked` is a check: its `StateChangeTimestampMonotonic` is
        /// compared with the known one, not applied.
        case reading(checked: Set<String>)
        /// Full reads of the units a check found moved.
        case rereading
    }

    let id: Int
    /// Read every listed unit in full; else a unit already known is only checked.
    let isFull: Bool
    var step: Step = .subscribing
    /// The loaded units of the listing, once it is in.
    var listed: [ListedUnit] = []
    /// Units whose `.Unit` reads failed (unloaded after the listing): no snapshot, and forgotten unless touched.
    var failed: Set<String> = []
    /// Units that sent `PropertiesChanged` during the resync, so are loaded even if the listing missed them.
    var touched: Set<String> = []
    /// Units a check found moved, to be read in full.
    var stale: Set<String> = []
}
