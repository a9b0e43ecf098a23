// SPDX-License-Identifier: Apache-2.0

/// How many sent entries each unit has waiting for the journal, and the most of any one unit: kept as entries are
/// sent, so that ``Outbox/needsEarlyLook(now:)``, asked after every send, costs nothing. Counting every waiting entry
/// at each send was 3 % of lifecycled's instructions in a churn, where hundreds wait between looks
/// (docs/PERFORMANCE.md, "Fewer instructions per run, third round").
struct UnconfirmedTally {
    private var counts: [String: Int] = [:]
    /// The most entries of one unit: only grows between recounts, as entries leave only at a recount.
    private(set) var most = 0

    /// One more entry of `unit` sent.
    mutating func add(_ unit: String) {
        let count = counts[unit, default: 0] + 1
        counts[unit] = count
        most = max(most, count)
    }

    /// Counts `units` (one per waiting entry) afresh, after entries were confirmed, given up or adopted.
    mutating func recount(_ units: some Sequence<String>) {
        counts.removeAll(keepingCapacity: true)
        most = 0
        for unit in units { add(unit) }
    }
}
