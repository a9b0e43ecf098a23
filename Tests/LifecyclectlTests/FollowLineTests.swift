// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

@testable import lifecyclectl

/// The lines of `lifecyclectl follow`.
struct FollowLineTests {
    static let fields = [
        "LIFECYCLE_UNIT": "web.service", "LIFECYCLE_EVENT": "launch", "LIFECYCLE_TIME": "2026-03-01T10:00:00.000Z",
        "LIFECYCLE_SEQUENCE": "12", "LIFECYCLE_INVOCATION_ID": "aaaa", "LIFECYCLE_PAYLOAD": "{\"lifecycle_launchcount\":3}",
        "MESSAGE": "web.service: launch #12 (crash detected, 3 crashes in total)",
    ]

    @Test("text: the time and the dispatch's message, marked when recovered")
    func text() {
        #expect(FollowLine.text(Fixtures.journaled(Self.fields)) == "2026-03-01T10:00:00.000Z web.service: launch #12 (crash detected, 3 crashes in total)")
        var recovered = Self.fields
        recovered["LIFECYCLE_RECONCILED"] = "true"
        #expect(FollowLine.text(Fixtures.journaled(recovered)).hasSuffix(" (recovered)"))
    }

    @Test("JSON: one object a line, with typed values and the payload as an object")
    func json() throws {
        let line = FollowLine.json(Fixtures.journaled(Self.fields))
        #expect(!line.contains("\n"))
        guard case .object(let object) = try JSONParser.parse(line) else {
            Issue.record("not an object: \(line)")
            return
        }
        #expect(object["sequence"] == .int(12))
        #expect(object["reconciled"] == .bool(false))
        #expect(object["unit"] == .string("web.service"))
        #expect(object["payload"] == .object(["lifecycle_launchcount": .int(3)]))
    }
}
