// SPDX-License-Identifier: Apache-2.0

/// The Levenshtein distance, for "did you mean" hints on configuration keys and unit names.
public enum EditDistance {
    /// The number of single-byte insertions, deletions and substitutions that turn `a` into `b`. Names are short,
    /// so the quadratic table is cheap.
    public static func between(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
