// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// The watched units systemd has unloaded, and since when: once one has been gone for `archive_after_minutes`, its
/// record moves to the archive, and memory, the metrics and `lifecyclectl status` keep only units that exist or
/// existed lately.
///
/// A unit is gone from its `UnitRemoved` (or from a listing that lacks it) until systemd shows it again. A reload
/// removes every unit and shows it again at once, so only an absence that lasts counts.
struct GoneUnits: Sendable, Equatable {
    /// When each unit was last seen going.
    private(set) var since: [String: Uptime] = [:]
    /// The units gone for `archive_after_minutes` whose records are still held, waiting for what the archive needs
    /// (their dispatches in the journal, a journal position read after they went): as good as archived, so the
    /// metrics no longer show them. Under a churn of names that never repeat, thousands wait at once, and a metrics
    /// file of all of them took tens of MB to write (docs/PERFORMANCE.md, "Memory under name churn").
    private(set) var withheld: Set<String> = []
    /// When the timer that archives them is armed for; nil when it is not armed.
    var armedAt: Uptime?

    /// How long after being archived is due the archive is looked at again when something stood in the way (a
    /// dispatch of the unit not yet in the journal, a journal position not yet past it).
    static let retryInterval: Milliseconds = 5_000
    /// The shortest wait of the timer: units that go together are archived together.
    static let batchDelay: Milliseconds = 1_000
    /// How many records archived make memory worth giving back, and how often at most: giving back everything also
    /// drops the code pages, which a churn then faults in again, so that waits a minute while units keep going; the
    /// heap's free pages alone go back at each archiving round (``trimInterval``), so that what a churn freed does not
    /// stay resident until the minute is over (docs/PERFORMANCE.md, "Memory under name churn").
    static let releaseThreshold = 100
    static let releaseInterval: Milliseconds = 60_000
    static let trimInterval: Milliseconds = 5_000
    /// When memory was last given back after archiving, and how many records were archived since; the same for the
    /// heap alone.
    var releasedAt: Uptime?
    var archivedSinceRelease = 0
    var trimmedAt: Uptime?
    var archivedSinceTrim = 0

    /// What archiving `count` records at `now` gives back, and notes that it does: everything (``DaemonEffect/releaseMemory``)
    /// once enough were archived, at most once per ``releaseInterval`` while units keep going, and at once when none is
    /// left to wait; otherwise the heap's free pages (``DaemonEffect/trimHeap``) once enough were archived since they
    /// last went back, at most once per ``trimInterval``; nil when neither is due.
    mutating func memoryRelease(archiving count: Int, at now: Uptime) -> DaemonEffect? {
        archivedSinceRelease += count
        archivedSinceTrim += count
        let isQuiet = since.isEmpty
        let isDue = releasedAt.map { now - $0 >= Self.releaseInterval } ?? true
        if archivedSinceRelease >= Self.releaseThreshold, isDue || isQuiet {
            releasedAt = now
            archivedSinceRelease = 0
            trimmedAt = now
            archivedSinceTrim = 0
            return .releaseMemory
        }
        let isTrimDue = trimmedAt.map { now - $0 >= Self.trimInterval } ?? true
        guard archivedSinceTrim >= Self.releaseThreshold, isTrimDue else { return nil }
        trimmedAt = now
        archivedSinceTrim = 0
        return .trimHeap
    }

    var isEmpty: Bool { since.isEmpty }

    /// `unit` went at `now`; an earlier going that was not followed by a return is kept.
    mutating func went(_ unit: String, at now: Uptime) {
        if since[unit] == nil { since[unit] = now }
    }

    /// `unit` is loaded again, or archived.
    ///
    /// - Returns: whether the metrics had left it out (``withheld``): they show it again.
    @discardableResult
    mutating func returned(_ unit: String) -> Bool {
        since.removeValue(forKey: unit)
        return withheld.remove(unit) != nil
    }

    /// `units` are due but wait; returns whether any of them was not withheld before (the metrics then change).
    mutating func withhold(_ units: [String]) -> Bool {
        var isNew = false
        for unit in units where withheld.insert(unit).inserted { isNew = true }
        return isNew
    }

    /// The units gone for at least `minutes` at `now`, in name order.
    func due(at now: Uptime, after minutes: Int) -> [String] {
        let limit = now - Milliseconds(minutes) * 60_000
        return since.filter { $0.value <= limit }.keys.sorted()
    }

    /// Whether `unit` went before `time`.
    func went(_ unit: String, before time: Uptime) -> Bool {
        since[unit].map { $0 < time } ?? false
    }

    /// When the next unit is due, nil when none is gone.
    func nextDue(after minutes: Int) -> Uptime? {
        since.values.min().map { $0 + Milliseconds(minutes) * 60_000 }
    }
}
