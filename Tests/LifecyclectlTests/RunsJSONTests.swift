// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

@testable import lifecyclectl

/// `lifecyclectl runs --json`: each run's record, `null` wherever it is unknown.
struct RunsJSONTests {
    private func firstRun(_ runs: [UnitRun]) throws -> [String: JSONValue] {
        let document = try JSONParser.parse(Array(RunsJSON.render(unit: "app.service", runs: runs).utf8))
        guard case .array(let list)? = document.objectValue?["runs"] else { return try #require(nil) }
        return try #require(list.first?.objectValue)
    }

    @Test("a run's known values are numbers, the killer a string, the core dump an object")
    func known() throws {
        let run = RunsTableTests.run(
            "crash",
            [
                "LIFECYCLE_UNIT_RESULT": "core-dump", "LIFECYCLE_RUN_STARTUP_SECONDS": "1.02",
                "LIFECYCLE_RUN_CPU_SECONDS": "0.23", "LIFECYCLE_RUN_MEMORY_PEAK_BYTES": "12950000",
                "LIFECYCLE_RUN_IO_READ_BYTES": "1536", "LIFECYCLE_RUN_IO_WRITE_BYTES": "0", "LIFECYCLE_RUN_OOM": "oomd",
                "LIFECYCLE_RUN_COREDUMP": "true", "LIFECYCLE_RUN_COREDUMP_SIGNAL": "11",
                "LIFECYCLE_RUN_COREDUMP_CURSOR": "s=1;i=2",
            ]
        )
        let object = try firstRun([run])
        #expect(object["startup_seconds"] == .double(1.02))
        #expect(object["cpu_seconds"] == .double(0.23))
        #expect(object["memory_peak_bytes"] == .int(12_950_000))
        #expect(object["io_read_bytes"] == .int(1_536))
        #expect(object["io_write_bytes"] == .int(0))
        #expect(object["oom"] == .string("oomd"))
        #expect(object["coredump"] == .object(["signal": .int(11), "cursor": .string("s=1;i=2")]))
        let text = RunsJSON.render(unit: "app.service", runs: [run])
        #expect(text.contains(#""coredump":{"cursor":"s=1;i=2","signal":11},"cpu_seconds":0.23,"#))
    }

    @Test("unknown values are null, never 0: a run without a record, a running run, a core dump without a signal")
    func unknown() throws {
        let keys = [
            "cpu_seconds", "io_read_bytes", "io_write_bytes", "memory_peak_bytes", "oom", "startup_seconds",
        ]
        let ended = try firstRun([RunsTableTests.run("sleep")])
        let running = try firstRun(
            UnitRun.runs(from: Fixtures.journaled([["LIFECYCLE_SEQUENCE": "1", "LIFECYCLE_EVENT": "launch"]]))
        )
        for object in [ended, running] {
            for key in keys + ["coredump"] { #expect(object[key] == .null, "\(key)") }
        }
        let dump = try firstRun([RunsTableTests.run("crash", ["LIFECYCLE_RUN_COREDUMP": "true"])])
        #expect(dump["coredump"] == .object(["signal": .null, "cursor": .null]))
    }

    @Test("every run has the same keys, the record's among them")
    func keys() throws {
        let object = try firstRun([RunsTableTests.measured])
        #expect(
            object.keys.sorted() == [
                "began_at", "begin", "coredump", "cpu_seconds", "duration_seconds", "end", "ended_at", "exit_status",
                "invocation_id", "io_read_bytes", "io_write_bytes", "memory_peak_bytes", "oom", "reconciled", "result",
                "startup_seconds", "version",
            ]
        )
    }
}
