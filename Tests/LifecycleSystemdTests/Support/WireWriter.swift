// SPDX-License-Identifier: Apache-2.0

/// Writes D-Bus messages byte by byte, in either byte order, for the tests of what reads them in place
/// (`WireReader`, `WireMessage`, `WireFramer`). Offsets are the message's: a body starts 8-aligned, so one written
/// on its own aligns as it would in the message.
struct WireWriter {
    var bytes: [UInt8] = []
    let isBigEndian: Bool

    init(bigEndian: Bool = false) {
        isBigEndian = bigEndian
    }

    mutating func pad(_ alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func uint32(_ value: UInt32) {
        pad(4)
        withUnsafeBytes(of: isBigEndian ? value.bigEndian : value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func uint64(_ value: UInt64) {
        pad(8)
        withUnsafeBytes(of: isBigEndian ? value.bigEndian : value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ text: String) {
        uint32(UInt32(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }

    mutating func signature(_ text: String) {
        byte(UInt8(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }

    /// An array: its length, the padding to its elements, and what `elements` writes.
    mutating func array(alignment: Int, _ elements: (inout WireWriter) -> Void) {
        uint32(0)
        let lengthAt = bytes.count - 4
        pad(alignment)
        let start = bytes.count
        elements(&self)
        let length = UInt32(bytes.count - start)
        withUnsafeBytes(of: isBigEndian ? length.bigEndian : length.littleEndian) {
            bytes.replaceSubrange(lengthAt..<(lengthAt + 4), with: $0)
        }
    }

    /// A structure or dictionary entry.
    mutating func structure(_ fields: (inout WireWriter) -> Void) {
        pad(8)
        fields(&self)
    }

    mutating func variant(_ contents: String, _ value: (inout WireWriter) -> Void) {
        signature(contents)
        value(&self)
    }

    /// One entry of an `a{sv}`.
    mutating func property(_ name: String, _ contents: String, _ value: (inout WireWriter) -> Void) {
        structure { entry in
            entry.string(name)
            entry.variant(contents, value)
        }
    }

    /// A whole message: the fixed header, the header fields given, and the body `body` writes.
    static func message(
        type: UInt8 = 4, bigEndian: Bool = false, serial: UInt32 = 7,
        path: String?, interface: String?, member: String?, sender: String? = ":1.1", signature: String,
        body: (inout WireWriter) -> Void
    ) -> [UInt8] {
        var contents = WireWriter(bigEndian: bigEndian)
        body(&contents)
        var header = WireWriter(bigEndian: bigEndian)
        header.bytes = [UInt8(ascii: bigEndian ? "B" : "l"), type, 0, 1]
        header.uint32(UInt32(contents.bytes.count))
        header.uint32(serial)
        header.array(alignment: 8) { fields in
            func field(_ code: UInt8, _ type: String, _ value: String?) {
                guard let value else { return }
                fields.structure { field in
                    field.byte(code)
                    field.signature(type)
                    if type == "g" { field.signature(value) } else { field.string(value) }
                }
            }
            field(1, "o", path)
            field(2, "s", interface)
            field(3, "s", member)
            field(7, "s", sender)
            // A field of a code not known yet, of a container type: skipped.
            fields.structure { field in
                field.byte(42)
                field.signature("(ai)")
                field.structure { inner in inner.array(alignment: 4) { $0.uint32(1); $0.uint32(2) } }
            }
            field(8, "g", signature.isEmpty ? nil : signature)
        }
        header.pad(8)
        return header.bytes + contents.bytes
    }
}
