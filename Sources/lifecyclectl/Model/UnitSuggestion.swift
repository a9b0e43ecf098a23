// SPDX-License-Identifier: Apache-2.0

import LifecycleStorage

/// The tracked unit a mistyped name probably meant, for "did you mean" hints.
enum UnitSuggestion {
    /// The unit of `known` closest to `unit`, when it is at most a few edits away (one edit per three characters
    /// of the name, at most three): `ngnix.service` finds `nginx.service`, `db.service` does not find `dns.service`.
    static func closest(to unit: String, among known: [String]) -> String? {
        let typed = Array(unit.utf8)
        let allowed = min(3, max(1, typed.count / 6))
        let ranked = known.filter { $0 != unit }.map { ($0, EditDistance.between(typed, Array($0.utf8))) }
        guard let best = ranked.min(by: { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }), best.1 <= allowed else {
            return nil
        }
        return best.0
    }
}
