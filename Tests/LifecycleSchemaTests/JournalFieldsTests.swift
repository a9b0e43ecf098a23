// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleSchema
import Testing

/// ``JournalFields`` keeps an entry as one buffer of `NAME=value` fields; what goes in comes out, field for field.
struct JournalFieldsTests {
    static let fields: [(name: String, value: String)] = [
        ("MESSAGE", "two\nlines = and an equals sign"),
        ("EMPTY", ""),
        ("A", "first"),
        ("AB", "prefix of no one"),
        ("A", "second"),
        ("UNICODE", "é ß 漢字"),
    ]

    @Test func keepsEveryFieldInOrder() {
        let journal = JournalFields(Self.fields)
        #expect(journal.count == Self.fields.count)
        #expect(journal.pairs.map { "\($0.name)|\($0.value)" } == Self.fields.map { "\($0.name)|\($0.value)" })
        let sent = journal.fieldRanges.map { String(decoding: journal.bytes[$0], as: UTF8.self) }
        // Each range is the NAME=value that sd_journal_sendv takes.
        #expect(sent == Self.fields.map { "\($0.name)=\($0.value)" })
    }

    @Test func findsTheFirstFieldOfAName() {
        let journal = JournalFields(Self.fields)
        #expect(journal["A"] == "first")
        #expect(journal["AB"] == "prefix of no one")
        #expect(journal["EMPTY"] == "")
        #expect(journal["MESS"] == nil, "a prefix of a name is not the name")
        #expect(journal["MESSAGE"] == "two\nlines = and an equals sign")
    }

    @Test func comparesTheFirstValueOfANameWhereItLies() {
        let journal = JournalFields(Self.fields)
        #expect(journal.hasValue("first", forName: "A"))
        #expect(!journal.hasValue("second", forName: "A"), "only the first field of a name")
        #expect(!journal.hasValue("firs", forName: "A"), "a prefix of the value is not the value")
        #expect(!journal.hasValue("first!", forName: "A"))
        #expect(journal.hasValue("", forName: "EMPTY"))
        #expect(journal.hasValue("é ß 漢字", forName: "UNICODE"))
        #expect(!journal.hasValue("", forName: "MISSING"))
    }

    @Test func appendsValuesWrittenInPlaceAndShrinksWhenFinished() {
        var journal = JournalFields()
        journal.reserveCapacity(fields: 100, bytes: 10_000)
        journal.append(name: "JSON") { $0.append(contentsOf: Array(#"{"a":1}"#.utf8)) }
        journal.append(name: "B", value: "b")
        journal.finish()
        #expect(journal.bytes.capacity < 1_000)
        #expect(journal == JournalFields([(name: "JSON", value: #"{"a":1}"#), (name: "B", value: "b")]))
    }

    /// The coded form a state file holds: made once by ``JournalFields/finish()``, the same bytes as made at each
    /// write, and made again after a field is appended.
    @Test func writesTheSameCodedFormFinishedOrNot() throws {
        var journal = JournalFields(Self.fields)
        var unfinished = JSONWriter()
        journal.writeCoded(to: &unfinished)
        journal.finish()
        var finished = JSONWriter()
        journal.writeCoded(to: &finished)
        #expect(finished.bytes == unfinished.bytes)
        #expect(finished.string.hasPrefix(#"[["MESSAGE","two\nlines = and an equals sign"],["EMPTY",""],"#))
        #expect(try JSONDecoder().decode(JournalFields.self, from: Data(finished.bytes)) == journal)

        journal.append(name: "LATE", value: #"{"quoted":"yes"}"#)
        var appended = JSONWriter()
        journal.writeCoded(to: &appended)
        #expect(appended.string.hasSuffix(#",["LATE","{\"quoted\":\"yes\"}"]]"#))
    }

    /// The coded form is written through a pointer, not with ``JSONWriter``: it is the array of `[name, value]`
    /// pairs the writer makes of the same strings, byte for byte, whatever they hold.
    @Test func codesAsTheWriterWritesAnArrayOfPairs() {
        var control = ""
        for scalar in UInt8(0)..<0x80 { control.unicodeScalars.append(Unicode.Scalar(scalar)) }
        let fields = Self.fields + [
            ("EVERY_ASCII", control), ("QUOTES", String(repeating: #"\"{}"#, count: 300)), ("", "é\\u0000\u{1F600}"),
        ]
        var journal = JournalFields(fields)
        journal.finish()
        var coded = JSONWriter()
        journal.writeCoded(to: &coded)
        var written = JSONWriter()
        written.value(.array(fields.map { .array([.string($0.name), .string($0.value)]) }))
        #expect(coded.string == written.string)
    }
}
