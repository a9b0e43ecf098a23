// SPDX-License-Identifier: Apache-2.0

/// Finds the known key an unknown one was probably meant to be, for "did you mean" hints.
enum KeySuggestion {
    /// The known key that differs from `key` only in case and separators (`sessionTimeout`, `Session-Timeout`), or
    /// else is at most two edits away; nil when nothing is that close.
    static func closest(to key: String, among known: [String]) -> String? {
        let normalized = normalize(key)
        if let exact = known.first(where: { normalize($0) == normalized }) { return exact }
        let candidates = known.map { ($0, EditDistance.between(normalized, normalize($0))) }
        guard let best = candidates.min(by: { $0.1 < $1.1 }), best.1 <= 2, normalized.count > 3 else { return nil }
        return best.0
    }

    private static func normalize(_ key: String) -> [UInt8] {
        key.lowercased().utf8.filter { $0 != UInt8(ascii: "_") && $0 != UInt8(ascii: "-") }
    }
}
