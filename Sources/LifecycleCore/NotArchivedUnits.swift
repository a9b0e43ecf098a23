// SPDX-License-Identifier: Apache-2.0

/// The units the archive was found not to hold, so that a unit's later inputs do not ask it again: a run's first
/// change asks (a transient unit shows its InvocationID while still `inactive`, before it runs), and the change
/// that begins the run, the unit still unknown, asked a second time, a round trip to the archive for every new
/// name of a churn (docs/PERFORMANCE.md, "One look in the archive a new name").
///
/// Only lifecycled adds to the archive, and a unit leaves this set when it is archived; it leaves too when systemd
/// unloads it, and the set is emptied past ``limit`` names (a unit then asks once more), so that it stays small under
/// a churn of names that never repeat.
struct NotArchivedUnits: Sendable {
    /// The most names kept.
    static let limit = 10_000

    private var units: Set<String> = []

    func contains(_ unit: String) -> Bool {
        units.contains(unit)
    }

    /// The archive was read and holds none of `names`.
    mutating func insert(_ names: [String]) {
        if units.count + names.count > Self.limit { units = [] }
        // More at once (a day-one history's names): not kept, each is asked again if it comes.
        guard names.count <= Self.limit else { return }
        units.formUnion(names)
    }

    /// `unit` was archived, or unloaded: the archive may hold it from now on.
    mutating func forget(_ unit: String) {
        units.remove(unit)
    }
}
