// SPDX-License-Identifier: Apache-2.0

import Foundation
import Glibc
import LifecycleSystemd
import Testing

struct JournalSinkTests {
    @Test("refuses a field journald would drop silently, before sending anything")
    func refusesInvalidNames() {
        let error = #expect(throws: SystemdError.self) {
            try JournalSink().send([(name: "MESSAGE", value: "hello"), (name: "bad-name", value: "x")])
        }
        #expect(error?.errno == EINVAL)
        #expect(error?.message == "'bad-name' is not a valid journal field name")
        let empty = #expect(throws: SystemdError.self) { try JournalSink().send([(name: String, value: String)]()) }
        #expect(empty?.errno == EINVAL)
        let withEquals = #expect(throws: SystemdError.self) { try JournalSink().send([(name: "A=B", value: "c")]) }
        #expect(withEquals?.message == "'A=B' is not a valid journal field name", "a name is checked whole")
    }

    @Test("refuses a field of an entry laid out in one buffer whose name journald would drop")
    func refusesInvalidNamesInABuffer() {
        let bytes = Array("MESSAGE=hello_1=x".utf8)
        let error = #expect(throws: SystemdError.self) { try JournalSink().send(bytes, fields: [0..<13, 13..<17]) }
        #expect(error?.message == "'_1' is not a valid journal field name")
        #expect(throws: SystemdError.self) { try JournalSink().send(bytes, fields: []) }
    }

    @Test(
        "writes an entry with a multi-line and a binary value",
        .enabled(if: FileManager.default.fileExists(atPath: "/run/systemd/journal/socket"), "journald is not running")
    )
    func writesEntry() throws {
        try JournalSink().send([
            (name: "MESSAGE", value: Array("lifecycled test entry\nsecond line".utf8)),
            (name: "PRIORITY", value: Array("7".utf8)),
            (name: "LIFECYCLE_TEST_BINARY", value: [0, 1, 2, 0xff, 0x0a]),
            (name: "SYSLOG_IDENTIFIER", value: Array("lifecycled-tests".utf8)),
        ])
    }
}
