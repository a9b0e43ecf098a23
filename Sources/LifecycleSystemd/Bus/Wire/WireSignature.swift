// SPDX-License-Identifier: Apache-2.0

/// A D-Bus type signature as it lies in a message, for skipping values of any type (``WireReader``).
struct WireSignature {
    let codes: UnsafeRawBufferPointer

    init(_ codes: UnsafeRawBufferPointer) {
        self.codes = codes
    }

    /// The type code at `index`, or nil past the end.
    subscript(index: Int) -> UInt8? {
        index < codes.count ? codes[index] : nil
    }

    /// The index after the complete type that starts at `index`.
    func end(ofTypeAt index: Int, depth: Int = 0) throws(SystemdError) -> Int {
        guard depth < WireReader.maximumDepth else { throw WireReader.malformed("a signature nested too deep") }
        guard let code = self[index] else { throw WireReader.malformed("a signature that ends early") }
        switch code {
        case UInt8(ascii: "a"):
            return try end(ofTypeAt: index + 1, depth: depth + 1)
        case UInt8(ascii: "("), UInt8(ascii: "{"):
            let close = code == UInt8(ascii: "(") ? UInt8(ascii: ")") : UInt8(ascii: "}")
            var field = index + 1
            while self[field] != close {
                guard self[field] != nil else { throw WireReader.malformed("a signature that ends early") }
                field = try end(ofTypeAt: field, depth: depth + 1)
            }
            return field + 1
        default:
            return index + 1
        }
    }

    /// The alignment of the type that starts at `index`, as the wire format pads before it.
    func alignment(at index: Int) throws(SystemdError) -> Int {
        guard let code = self[index] else { throw WireReader.malformed("a signature that ends early") }
        switch code {
        case UInt8(ascii: "y"), UInt8(ascii: "g"), UInt8(ascii: "v"): return 1
        case UInt8(ascii: "n"), UInt8(ascii: "q"): return 2
        case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): return 8
        default: return 4
        }
    }
}
