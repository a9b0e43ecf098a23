// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

struct ReplaySessionTests {
    func replay(_ lines: [String], settings: LifecycleSettings = LifecycleSettings(autotrackingEnabled: false)) throws
        -> [JSONValue]
    {
        var session = ReplaySession(calendar: LocalCalendar(timeZone: zone("UTC"))) { _ in settings }
        var output = JSONWriter()
        for line in lines { try session.process(line: Array(line.utf8), into: &output) }
        return try output.string.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    }

    @Test("each dispatch is one output line with unit, event, time and data")
    func dispatchLine() throws {
        let output = try replay([#"{"unit": "a.service", "event": "launch", "time": "2026-03-01T10:00:00.250Z", "version": "1.0", "data": {"k": "v"}}"#])
        #expect(output.count == 1)
        guard case .object(let line) = output.first, case .object(let data) = line["data"] else {
            Issue.record("not an object: \(output)")
            return
        }
        #expect(line["unit"] == .string("a.service"))
        #expect(line["event"] == .string("launch"))
        #expect(line["time"] == .string("2026-03-01T10:00:00.250Z"))
        #expect(data["k"] == .string("v"))
        #expect(data["lifecycle_isfirstlaunch"] == .bool(true))
        #expect(data["lifecycle_firstlaunchdate"] == .string("2026-03-01T10:00:00Z"))
        #expect(Set(line.keys) == ["unit", "event", "time", "data"])
    }

    @Test("refused events become error lines and change nothing")
    func errorLines() throws {
        let output = try replay([
            #"{"unit": "a.service", "event": "wake", "time": "2026-03-01T10:00:00Z"}"#,
            #"{"unit": "a.service", "event": "launch", "time": "2026-03-01T10:00:00Z"}"#,
            #"{"unit": "a.service", "event": "launch", "time": "2026-03-01T10:01:00Z"}"#,
        ])
        #expect(output[0] == .object(["unit": .string("a.service"), "event": .string("wake"), "error": .string("invalidEventOrder")]))
        #expect(output[2] == .object(["unit": .string("a.service"), "event": .string("launch"), "error": .string("invalidEventOrder")]))
        let autotracked = try replay(
            [#"{"unit": "a.service", "event": "sleep", "time": "2026-03-01T10:00:00Z"}"#],
            settings: LifecycleSettings()
        )
        #expect(autotracked == [.object(["unit": .string("a.service"), "event": .string("sleep"), "error": .string("manualTrackNotAllowed")])])
    }

    @Test("new_process starts a new run, so a launch detects the crash")
    func newProcess() throws {
        let output = try replay([
            #"{"unit": "a", "event": "launch", "time": "2026-03-01T10:00:00Z"}"#,
            #"{"unit": "a", "event": "launch", "time": "2026-03-01T11:00:00Z", "new_process": true}"#,
        ])
        #expect(output.count == 2)
        #expect(output[1].objectValue?["data"]?.objectValue?["lifecycle_diddetectcrash"] == .bool(true))
    }

    @Test("observations drive the autotracker, including crash notices")
    func observations() throws {
        let output = try replay([
            #"{"unit": "a", "observe": "started", "time": "2026-03-01T10:00:00Z", "version": "1"}"#,
            #"{"unit": "a", "observe": "failed", "time": "2026-03-01T10:05:00Z", "data": {"result": "signal"}}"#,
            #"{"unit": "a", "observe": "started", "time": "2026-03-01T10:06:00Z", "version": "1"}"#,
            #"{"unit": "b", "observe": "started", "time": "2026-03-01T10:06:00Z"}"#,
        ], settings: LifecycleSettings())
        let events = output.map { $0.objectValue?["event"] }
        #expect(events == [.string("launch"), .string("crash"), .string("launch"), .string("launch")])
        #expect(output[1].objectValue?["data"] == .object(["result": .string("signal"), "autotracked": .bool(true)]))
        #expect(output[2].objectValue?["data"]?.objectValue?["lifecycle_totalcrashcount"] == .int(1))
        #expect(output[3].objectValue?["unit"] == .string("b"))
    }

    @Test("custom data replaces a lifecycle key of the same name in the output")
    func customDataOverride() throws {
        let output = try replay([#"{"unit": "a", "event": "launch", "time": 0, "data": {"lifecycle_launchcount": 99}}"#])
        let data = output.first?.objectValue?["data"]?.objectValue
        #expect(data?["lifecycle_launchcount"] == .int(99))
        #expect(data?["lifecycle_totallaunchcount"] == .int(1))
    }

    @Test("invalid UTF-8 is an error, never silently replaced")
    func invalidUTF8() {
        var session = ReplaySession(calendar: LocalCalendar(timeZone: zone("UTC"))) { _ in LifecycleSettings() }
        var output = JSONWriter()
        let line = Array(#"{"unit": "a"#.utf8) + [0xFF] + Array(#".service", "event": "x", "time": 0}"#.utf8)
        #expect(throws: ReplayInputError("invalid JSON at column 10: invalid UTF-8 in a string")) {
            try session.process(line: line, into: &output)
        }
        #expect(output.bytes.isEmpty)
    }

    @Test("malformed lines are errors that say what is wrong", arguments: [
        ("not json", "invalid JSON at column 1: invalid literal (expected true, false or null)"),
        ("[1]", "expected a JSON object, found an array"),
        (#"{"unit": "a", "time": 0}"#, #"missing "event" or "observe""#),
        (#"{"unit": "a", "event": "launch"}"#, #"missing "time""#),
        (#"{"event": "launch", "time": 0}"#, #"missing "unit""#),
        (#"{"unit": 5, "event": "launch", "time": 0}"#, #""unit" must be a string, found a number"#),
        (#"{"unit": "a", "event": "launch", "time": "yesterday"}"#, #""time" is not an RFC 3339 timestamp with a zone: "yesterday""#),
        (#"{"unit": "a", "event": "launch", "time": 0, "data": [1]}"#, #""data" must be an object, found an array"#),
        (#"{"unit": "a", "event": "launch", "time": 0, "new_process": 1}"#, #""new_process" must be true or false, found a number"#),
        (#"{"unit": "a", "event": "launch", "time": 0, "evnt": 1}"#, #"unknown key "evnt""#),
        (#"{"unit": "a", "observe": "crashed", "time": 0}"#, #""observe" must be started, stopped, failed, frozen or thawed, found "crashed""#),
        (#"{"unit": "a", "event": "launch", "observe": "started", "time": 0}"#, #"a line has either "event" or "observe", not both"#),
        (#"{"unit": "a", "event": "", "time": 0}"#, #""event" is empty"#),
        (#"{"unit": "\#(String(repeating: "u", count: 256))", "event": "launch", "time": 0}"#, #""unit" is longer than 255 bytes"#),
        (#"{"unit": "a\u0001b", "event": "launch", "time": 0}"#, #""unit" contains a control character"#),
    ])
    func malformed(line: String, reason: String) {
        #expect(throws: ReplayInputError(reason)) { try replay([line]) }
    }
}
