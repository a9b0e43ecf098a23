// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Writes JSON objects and arrays laid out as Foundation's `JSONEncoder` lays them out: compact (`{"a":1}`), or with
/// `.prettyPrinted` (two spaces per level, one member or element per line, `" : "` between a key and its value).
/// Strings and numbers come from the engine's ``JSONWriter``. The caller writes keys in the order it wants them
/// (sorted, for records).
public struct JSONLayoutWriter {
    public enum Layout: Sendable { case compact, pretty }

    private var json: JSONWriter
    private let layout: Layout
    /// Per open object or array: whether it has no member or element yet.
    private var isEmpty: [Bool] = []

    public init(_ layout: Layout, reservingCapacity capacity: Int = 1024) {
        self.layout = layout
        json = JSONWriter(reservingCapacity: capacity)
    }

    public var bytes: [UInt8] { json.bytes }

    public mutating func beginObject() { open("{") }
    public mutating func endObject() { close("}") }
    public mutating func beginArray() { open("[") }
    public mutating func endArray() { close("]") }

    /// Starts an object's member: the separator, the line break and indentation when pretty, and the key. Its value
    /// comes next.
    ///
    /// A key the code names is copied as it is: a state file's forty-odd keys need no escape, and looking for one in
    /// each, at every save, cost more than writing them (docs/PERFORMANCE.md, "Fewer instructions per run, seventh
    /// round").
    public mutating func key(_ name: StaticString) {
        assert(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount).allSatisfy {
            $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
        }, "a key written as it is needs no escape")
        startItem()
        json.byte(UInt8(ascii: "\""))
        json.raw(name)
        json.byte(UInt8(ascii: "\""))
        separateValue()
    }

    /// Starts an object's member whose key comes from data (a unit's, a result's name), escaped.
    public mutating func key(named name: String) {
        startItem()
        json.string(name)
        separateValue()
    }

    private mutating func separateValue() {
        switch layout {
        case .compact: json.byte(UInt8(ascii: ":"))
        case .pretty: json.raw(" : ")
        }
    }

    /// Starts an array's element: the separator, and the line break and indentation when pretty. The element comes
    /// next.
    public mutating func element() { startItem() }

    public mutating func string(_ value: String) { json.string(value) }
    public mutating func string(utf8: UnsafeBufferPointer<UInt8>) { json.string(utf8: utf8) }
    public mutating func integer(_ value: Int64) { json.integer(value) }
    public mutating func unsigned(_ value: UInt64) { json.unsigned(value) }
    public mutating func bool(_ value: Bool) { value ? json.raw("true") : json.raw("false") }
    public mutating func newline() { json.byte(UInt8(ascii: "\n")) }

    /// A value written compactly, on the current line, whatever the layout: `body` writes it with the engine's writer.
    public mutating func compact(_ body: (inout JSONWriter) -> Void) { body(&json) }

    /// An object member with a plain value; nothing for an absent one, as `Codable`'s `encodeIfPresent` writes.
    public mutating func member(_ key: StaticString, _ value: Int64?) {
        guard let value else { return }
        self.key(key)
        integer(value)
    }

    public mutating func member(_ key: StaticString, _ value: String?) {
        guard let value else { return }
        self.key(key)
        string(value)
    }

    public mutating func member(_ key: StaticString, _ value: Bool) {
        self.key(key)
        bool(value)
    }

    /// An object member whose value is an array of integers.
    public mutating func member(_ key: StaticString, integers: some Sequence<Int64>) {
        self.key(key)
        beginArray()
        for value in integers {
            element()
            integer(value)
        }
        endArray()
    }

    /// An object member whose value is an object of counts, its keys in sorted (UTF-8) order, as `Codable` writes a
    /// dictionary with `.sortedKeys`.
    public mutating func member(_ key: StaticString, counts: [String: Int]) {
        self.key(key)
        beginObject()
        for (name, count) in counts.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes($1.key.utf8) }) {
            self.key(named: name)
            integer(Int64(count))
        }
        endObject()
    }

    private mutating func open(_ bracket: StaticString) {
        json.raw(bracket)
        isEmpty.append(true)
    }

    private mutating func close(_ bracket: StaticString) {
        let wasEmpty = isEmpty.removeLast()
        if !wasEmpty, layout == .pretty { json.lineBreak(indent: 2 * isEmpty.count) }
        json.raw(bracket)
    }

    private mutating func startItem() {
        if isEmpty[isEmpty.count - 1] {
            isEmpty[isEmpty.count - 1] = false
        } else {
            json.byte(UInt8(ascii: ","))
        }
        if layout == .pretty { json.lineBreak(indent: 2 * isEmpty.count) }
    }
}
