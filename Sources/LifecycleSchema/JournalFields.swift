// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// A journal entry's fields in the order they are sent, as a state file keeps a dispatch that may not have reached the
/// journal yet: sent again, the entry is the entry sent first, field for field.
///
/// The fields lie one after the other in one buffer, each as `NAME=value`, the form `sd_journal_sendv` takes: an
/// entry of forty fields costs two allocations instead of eighty strings, and is sent without being copied. Each
/// dispatch is held this way from the moment it is built until the journal confirms it, for every unit at once after
/// a start; as strings, their allocations scattered the daemon's long-lived memory over a heap several times its size
/// (docs/PERFORMANCE.md, resident memory).
///
/// Coded as an array of `[name, value]` pairs. A state file of an earlier build holds a JSON object instead; it is
/// read with its fields in name order.
public struct JournalFields: Sendable, Equatable, Codable, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    /// Every field as `NAME=value`, one after the other, without separators.
    public private(set) var bytes: [UInt8] = []
    /// Two per field: the offset of its `=` in `bytes`, and its end.
    private var marks: [UInt32] = []
    /// The coded form (``writeCoded(to:)``), made once the fields are complete (``finish()``): a pending dispatch is
    /// written into its unit's state file at every save until the journal confirms it, and escaping its forty-odd
    /// names and values, its payload's quotes above all, each time was a third of a save (docs/PERFORMANCE.md,
    /// "State files written from bytes made once").
    private var coded: [UInt8]?

    public init() {}

    public init(_ fields: [(name: String, value: String)]) {
        let size = fields.reduce(0) { $0 + $1.name.utf8.count + 1 + $1.value.utf8.count }
        reserveCapacity(fields: fields.count, bytes: size)
        for field in fields {
            append(name: field.name, value: field.value)
        }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { (name: $0.0, value: $0.1) })
    }

    public mutating func reserveCapacity(fields: Int, bytes count: Int) {
        bytes.reserveCapacity(count)
        marks.reserveCapacity(2 * fields)
    }

    public mutating func append(name: String, value: String) {
        append(name: name) { $0.append(contentsOf: value.utf8) }
    }

    /// Appends a field whose value `writeValue` appends to the buffer.
    public mutating func append(name: String, writeValue: (inout [UInt8]) -> Void) {
        coded = nil
        bytes.append(contentsOf: name.utf8)
        appendValue(writeValue)
    }

    /// Appends a field whose name is the UTF-8 `name`, and whose value `writeValue` appends to the buffer.
    public mutating func append(name: UnsafeBufferPointer<UInt8>, writeValue: (inout [UInt8]) -> Void) {
        coded = nil
        bytes.append(contentsOf: name)
        appendValue(writeValue)
    }

    /// The `=` and the value after a field's name.
    private mutating func appendValue(_ writeValue: (inout [UInt8]) -> Void) {
        marks.append(UInt32(bytes.count))
        bytes.append(UInt8(ascii: "="))
        writeValue(&bytes)
        marks.append(UInt32(bytes.count))
    }

    /// The fields are complete: gives back the capacity the buffers grew beyond their contents, and makes the coded
    /// form. A pending dispatch is kept, and saved, until the journal confirms it.
    public mutating func finish() {
        Self.shrink(&bytes)
        Self.shrink(&marks)
        var made = [UInt8](unsafeUninitializedCapacity: codedCapacity) { buffer, count in
            count = writeCoded(to: buffer.baseAddress!)
        }
        Self.shrink(&made)
        coded = made
    }

    /// Writes the coded form, compact: an array of `[name, value]` pairs.
    public func writeCoded(to json: inout JSONWriter) {
        if let coded {
            json.append(json: coded)
        } else {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: codedCapacity) { buffer in
                let count = writeCoded(to: buffer.baseAddress!)
                json.append(json: UnsafeBufferPointer(start: buffer.baseAddress, count: count))
            }
        }
    }

    /// The most bytes the coded form takes: every byte escaped as a control character, and each field's brackets,
    /// comma and quotes.
    private var codedCapacity: Int { 2 + 8 * count + JSONWriter.escapedCapacity(bytes.count) }

    /// Writes the coded form at `destination`, which has room for ``codedCapacity`` bytes, each name and value escaped
    /// where it lies; returns how many bytes it wrote. Written through a pointer, not appended piece by piece to a
    /// ``JSONWriter``, whose appends of two pieces for each of forty-odd fields cost twice the escaping
    /// (docs/PERFORMANCE.md, "Fewer instructions per run, fifth round").
    private func writeCoded(to destination: UnsafeMutablePointer<UInt8>) -> Int {
        var out = destination
        func put(_ byte: UInt8) {
            out.pointee = byte
            out += 1
        }
        func putQuoted(_ utf8: UnsafeBufferPointer<UInt8>) {
            put(UInt8(ascii: "\""))
            out += JSONWriter.writeEscaped(utf8, to: out)
            put(UInt8(ascii: "\""))
        }
        put(UInt8(ascii: "["))
        bytes.withUnsafeBufferPointer { bytes in
            for index in 0..<count {
                let ranges = ranges(of: index)
                if index > 0 { put(UInt8(ascii: ",")) }
                put(UInt8(ascii: "["))
                putQuoted(UnsafeBufferPointer(rebasing: bytes[ranges.name]))
                put(UInt8(ascii: ","))
                putQuoted(UnsafeBufferPointer(rebasing: bytes[ranges.value]))
                put(UInt8(ascii: "]"))
            }
        }
        put(UInt8(ascii: "]"))
        return out - destination
    }

    /// Equal fields, whether or not either has its coded form yet.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.bytes == rhs.bytes && lhs.marks == rhs.marks
    }

    /// Copies `array` into a buffer of its size (`Array(array[...])` would keep the old buffer).
    private static func shrink<Element: BitwiseCopyable>(_ array: inout [Element]) {
        guard array.capacity > array.count else { return }
        array = array.withUnsafeBufferPointer { old in
            Array(unsafeUninitializedCapacity: old.count) { new, count in
                _ = new.initialize(fromContentsOf: old)
                count = old.count
            }
        }
    }

    /// The number of fields.
    public var count: Int { marks.count / 2 }

    /// Where field `index` lies in ``bytes``: its name, its value, and the whole `NAME=value`.
    public func ranges(of index: Int) -> (name: Range<Int>, value: Range<Int>, field: Range<Int>) {
        let start = index == 0 ? 0 : Int(marks[2 * index - 1])
        let separator = Int(marks[2 * index])
        let end = Int(marks[2 * index + 1])
        return (start..<separator, (separator + 1)..<end, start..<end)
    }

    /// Where each whole `NAME=value` lies in ``bytes``.
    public var fieldRanges: [Range<Int>] { (0..<count).map { ranges(of: $0).field } }

    public var fields: [Field] {
        (0..<count).map { index in
            let ranges = ranges(of: index)
            return Field(name: text(ranges.name), value: text(ranges.value))
        }
    }

    /// The fields as `sd_journal_sendv` takes them.
    public var pairs: [(name: String, value: String)] { fields.map { ($0.name, $0.value) } }

    /// The value of the first field named `name`.
    public subscript(name: String) -> String? {
        valueRange(of: name).map(text)
    }

    /// Whether the first field named `name` holds `value`, compared where it lies: no string is made for it. A run's
    /// dispatches are found among a unit's pending ones by their `LIFECYCLE_SEQUENCE` this way.
    public func hasValue(_ value: String, forName name: String) -> Bool {
        guard let range = valueRange(of: name) else { return false }
        return bytes(in: range, equal: value)
    }

    /// Where the value of the first field named `name` lies in ``bytes``.
    private func valueRange(of name: String) -> Range<Int>? {
        for index in 0..<count {
            let ranges = ranges(of: index)
            if bytes(in: ranges.name, equal: name) { return ranges.value }
        }
        return nil
    }

    private func bytes(in range: Range<Int>, equal text: String) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in
            utf8.count == range.count
                && bytes.withUnsafeBufferPointer { UnsafeBufferPointer(rebasing: $0[range]).elementsEqual(utf8) }
        }
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: bytes[range], as: UTF8.self)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let pairs = try? container.decode([[String]].self) {
            let fields = try pairs.map { pair in
                guard pair.count == 2 else {
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: "expected [name, value] pairs, found \(pair.count) strings"
                    )
                }
                return (name: pair[0], value: pair[1])
            }
            self.init(fields)
        } else {
            let object = try container.decode([String: String].self)
            self.init(object.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
        }
        // Read from a state file: a pending dispatch, saved again until the journal confirms it.
        finish()
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(fields.map { [$0.name, $0.value] })
    }
}
