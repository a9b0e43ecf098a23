// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The names of the properties a reader wants from a property map, kept as bytes so that each name in a message is
/// compared where it lies, its length first: most of a map's names match none by length alone.
struct BusPropertyNames: Sendable {
    let names: [String]
    private let utf8Names: [[UInt8]]
    /// By length: the wanted names of that length, one bit each. A unit's signal names about forty properties, of
    /// which a few are wanted; each was compared by length with every wanted name (docs/PERFORMANCE.md, "Fewer
    /// instructions per run, seventh round").
    private let byLength: [UInt64]

    /// One bit per name, all set.
    let all: UInt64

    init(_ names: [String]) {
        precondition(names.count <= 64, "at most 64 properties are read from one map")
        self.names = names
        utf8Names = names.map { Array($0.utf8) }
        var byLength = [UInt64](repeating: 0, count: (utf8Names.map(\.count).max() ?? 0) + 1)
        for (index, name) in utf8Names.enumerated() { byLength[name.count] |= 1 << UInt64(index) }
        self.byLength = byLength
        all = names.count == 64 ? .max : (1 << UInt64(names.count)) - 1
    }

    /// The index in ``names`` of the wanted name equal to `name`, or nil.
    func index(of name: UnsafeRawBufferPointer) -> Int? {
        guard name.count < byLength.count else { return nil }
        var candidates = byLength[name.count]
        while candidates != 0 {
            let index = candidates.trailingZeroBitCount
            let isEqual = name.isEmpty
                || utf8Names[index].withUnsafeBytes { memcmp($0.baseAddress!, name.baseAddress!, name.count) } == 0
            if isEqual { return index }
            candidates &= candidates - 1
        }
        return nil
    }
}
