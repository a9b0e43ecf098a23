// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The names of the properties a reader wants from a property map, kept also as C strings so that each name in a
/// message is compared where it lies.
struct BusPropertyNames: Sendable {
    let names: [String]
    private let cNames: [[CChar]]

    /// One bit per name, all set.
    let all: UInt64

    init(_ names: [String]) {
        precondition(names.count <= 64, "at most 64 properties are read from one map")
        self.names = names
        cNames = names.map { Array($0.utf8CString) }
        all = names.count == 64 ? .max : (1 << UInt64(names.count)) - 1
    }

    /// The index in ``names`` of the wanted name equal to `name`, or nil.
    func index(of name: UnsafePointer<CChar>) -> Int? {
        for (index, cName) in cNames.enumerated()
        where cName.withUnsafeBufferPointer({ strcmp($0.baseAddress!, name) }) == 0 {
            return index
        }
        return nil
    }
}
