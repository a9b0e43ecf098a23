// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The names of the properties a reader wants from a property map, kept as bytes so that each name in a message is
/// compared where it lies, its length first: most of a map's names match none by length alone.
struct BusPropertyNames: Sendable {
    let names: [String]
    private let utf8Names: [[UInt8]]

    /// One bit per name, all set.
    let all: UInt64

    init(_ names: [String]) {
        precondition(names.count <= 64, "at most 64 properties are read from one map")
        self.names = names
        utf8Names = names.map { Array($0.utf8) }
        all = names.count == 64 ? .max : (1 << UInt64(names.count)) - 1
    }

    /// The index in ``names`` of the wanted name equal to `name`, or nil.
    func index(of name: UnsafeRawBufferPointer) -> Int? {
        for (index, wanted) in utf8Names.enumerated() where wanted.count == name.count {
            let isEqual = wanted.isEmpty
                || wanted.withUnsafeBytes { memcmp($0.baseAddress!, name.baseAddress!, name.count) } == 0
            if isEqual { return index }
        }
        return nil
    }
}
