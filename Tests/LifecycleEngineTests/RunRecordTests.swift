// SPDX-License-Identifier: Apache-2.0

import Foundation
import Testing

@testable import LifecycleEngine

/// A run's record from the unit's property values and from PID 1's "Consumed …" entry, in the form systemd gives
/// them: properties as `Get` returns them (`t`, UINT64_MAX for "[not set]", 0 for a timestamp never set), entry
/// fields as `unit_log_resources()` (`src/core/unit.c`) writes them (decimal `%PRIu64`, a value it has not left out).
struct RunRecordTests {
    typealias ID = RunRecord.MessageID

    /// UINT64_MAX: what systemd's D-Bus properties say for a counter it cannot read (`busctl` shows `[not set]`).
    let notSet = UInt64.max

    func entry(_ id: String, _ time: Milliseconds, _ fields: [String: String] = [:]) -> RunEnding.Entry {
        RunEnding.Entry(messageID: id, time: time, fields: fields)
    }

    @Test("the property values of an ended run, with accounting on: seconds from nanoseconds and microseconds")
    func properties() {
        let record = RunRecord(properties: [
            "CPUUsageNSec": 1_234_567_890, "MemoryPeak": 11_591_680, "IOReadBytes": 4_096, "IOWriteBytes": 8_192,
            "InactiveExitTimestampMonotonic": 5_000_000, "ActiveEnterTimestampMonotonic": 5_250_000,
            "InactiveEnterTimestampMonotonic": 9_000_000,
        ])
        #expect(record.cpuSeconds == 1.23456789)
        #expect(record.memoryPeakBytes == 11_591_680)
        #expect(record.ioReadBytes == 4_096)
        #expect(record.ioWriteBytes == 8_192)
        #expect(record.startupSeconds == 0.25)
        #expect(record.durationSeconds == 4)
        #expect(record.oom == nil && record.coredump == nil)
    }

    @Test("the duration: from leaving inactive to entering it again, or to the end's change when that is still an earlier run's")
    func duration() {
        let ended = RunRecord(properties: [
            "InactiveExitTimestampMonotonic": 5_000_000, "InactiveEnterTimestampMonotonic": 65_500_000,
        ])
        #expect(ended.durationSeconds == 60.5)
        // systemd before 254 keeps a unit activating while a restart is pending: InactiveEnter is the run before's.
        let restartPending: [String: UInt64] = [
            "InactiveExitTimestampMonotonic": 5_000_000, "InactiveEnterTimestampMonotonic": 4_000_000,
        ]
        #expect(RunRecord(properties: restartPending, endedMonotonic: 7_250_000).durationSeconds == 2.25)
        #expect(RunRecord(properties: restartPending).durationSeconds == nil, "no end known: none, never 0")
        #expect(RunRecord(properties: restartPending, endedMonotonic: 4_500_000).durationSeconds == nil)
        #expect(RunRecord(properties: ["InactiveEnterTimestampMonotonic": 9_000_000]).durationSeconds == nil)
        #expect(RunRecord(properties: ["InactiveExitTimestampMonotonic": notSet, "InactiveEnterTimestampMonotonic": 9]).durationSeconds == nil)
    }

    @Test("UINT64_MAX ([not set]) and missing names give nil, never 0; a real 0 stays 0")
    func notSetIsUnknown() {
        let unset = RunRecord(properties: [
            "CPUUsageNSec": notSet, "MemoryPeak": notSet, "IOReadBytes": notSet, "IOWriteBytes": notSet,
            "InactiveExitTimestampMonotonic": notSet, "ActiveEnterTimestampMonotonic": 5_250_000,
        ])
        #expect(unset == RunRecord())
        #expect(unset.isEmpty)
        // v252 has no MemoryPeak: the Get fails and the name is missing.
        let old = RunRecord(properties: ["CPUUsageNSec": 0, "IOReadBytes": 0])
        #expect(old.cpuSeconds == 0)
        #expect(old.ioReadBytes == 0)
        #expect(old.memoryPeakBytes == nil)
        #expect(old.ioWriteBytes == nil)
        #expect(!old.isEmpty)
    }

    @Test("a timestamp of 0 is systemd's never: no start-up time")
    func zeroTimestamps() {
        let neverLeftInactive = RunRecord(properties: [
            "InactiveExitTimestampMonotonic": 0, "ActiveEnterTimestampMonotonic": 5_250_000,
        ])
        #expect(neverLeftInactive.startupSeconds == nil)
        let neverActive = RunRecord(properties: [
            "InactiveExitTimestampMonotonic": 5_000_000, "ActiveEnterTimestampMonotonic": 0,
            "InactiveEnterTimestampMonotonic": 7_000_000,
        ])
        #expect(neverActive.startupSeconds == nil)
    }

    @Test("an active-enter time older than the start is an earlier run's: a start that failed has no start-up time")
    func endBeforeStart() {
        let record = RunRecord(properties: [
            "InactiveExitTimestampMonotonic": 80_000_000, "ActiveEnterTimestampMonotonic": 5_250_000,
            "InactiveEnterTimestampMonotonic": 81_000_000,
        ])
        #expect(record.startupSeconds == nil)
    }

    @Test("a oneshot never becomes active: its start-up is its time activating, to inactive or the given end")
    func oneshot() {
        // Type=oneshot without RemainAfterExit: activating → deactivating → inactive; ActiveEnter is 0, or stale.
        let values: [String: UInt64] = [
            "InactiveExitTimestampMonotonic": 10_000_000, "ActiveEnterTimestampMonotonic": 2_000_000,
            "InactiveEnterTimestampMonotonic": 12_500_000,
        ]
        #expect(RunRecord(properties: values, isOneshot: true).startupSeconds == 2.5)
        #expect(RunRecord(properties: values, isOneshot: false).startupSeconds == nil)
        // InactiveEnter still the previous run's: the run's end comes from elsewhere, or there is none.
        var running = values
        running["InactiveEnterTimestampMonotonic"] = 9_000_000
        #expect(RunRecord(properties: running, isOneshot: true, endedMonotonic: 11_000_000).startupSeconds == 1)
        #expect(RunRecord(properties: running, isOneshot: true).startupSeconds == nil)
        #expect(RunRecord(properties: running, isOneshot: true, endedMonotonic: 9_500_000).startupSeconds == nil)
        // With RemainAfterExit= it becomes active, and that is its start-up.
        var remaining = values
        remaining["ActiveEnterTimestampMonotonic"] = 10_750_000
        #expect(RunRecord(properties: remaining, isOneshot: true).startupSeconds == 0.75)
    }

    @Test("the daemon gets exactly the properties the record reads")
    func propertyNames() {
        #expect(Set(RunRecord.propertyNames) == [
            "CPUUsageNSec", "MemoryPeak", "IOReadBytes", "IOWriteBytes", "InactiveExitTimestampMonotonic",
            "ActiveEnterTimestampMonotonic", "InactiveEnterTimestampMonotonic",
        ])
        #expect(RunRecord.propertyNames.count == 7)
    }

    @Test("v252's Consumed entry has CPU and IO, and no MEMORY_PEAK")
    func consumedV252() {
        // "web.service: Consumed 1.520s CPU time." (systemd 252, IOAccounting=yes on cgroup v2)
        let consumed = entry(ID.unitResources, 10, [
            "UNIT": "web.service", "INVOCATION_ID": String(repeating: "a", count: 32),
            "CPU_USAGE_NSEC": "1520304000", "IO_METRIC_READ_BYTES": "20480", "IO_METRIC_WRITE_BYTES": "0",
            "IO_METRIC_READ_OPERATIONS": "5", "IO_METRIC_WRITE_OPERATIONS": "0",
            "MESSAGE": "web.service: Consumed 1.520s CPU time.",
        ])
        let record = RunRecord(resources: consumed)
        #expect(record == RunRecord(cpuSeconds: 1.520304, ioReadBytes: 20_480, ioWriteBytes: 0))
        #expect(record?.memoryPeakBytes == nil)
    }

    @Test("a later Consumed entry has MEMORY_PEAK; one without IO accounting has no IO fields")
    func consumedWithMemoryPeak() {
        // "web.service: Consumed 23min 18.023s CPU time over 5d 3h wall clock time, 11M memory peak." (v256+)
        let consumed = entry(ID.unitResources, 10, [
            "CPU_USAGE_NSEC": "1398023942000", "MEMORY_PEAK": "11591680", "MEMORY_SWAP_PEAK": "0",
        ])
        #expect(RunRecord(resources: consumed) == RunRecord(cpuSeconds: 1398.023942, memoryPeakBytes: 11_591_680))
    }

    @Test("garbled, empty, signed, spaced, overflowing and UINT64_MAX values give nil")
    func consumedGarbage() {
        for text in ["", "12x", "-5", "+5", " 5", "1.5", "18446744073709551616", "18446744073709551615"] {
            let record = RunRecord(resourceFields: [
                "CPU_USAGE_NSEC": text, "MEMORY_PEAK": text, "IO_METRIC_READ_BYTES": text,
                "IO_METRIC_WRITE_BYTES": text,
            ])
            #expect(record.isEmpty, "\(text)")
        }
        #expect(RunRecord(resourceFields: ["MEMORY_PEAK": "0042"]).memoryPeakBytes == 42)
    }

    @Test("only the Consumed entry is read as resources")
    func otherEntry() {
        #expect(RunRecord(resources: entry(RunEnding.MessageID.unitSuccess, 1, ["CPU_USAGE_NSEC": "5"])) == nil)
    }

    @Test("a run's entries: the last Consumed entry's resources, and the OOM killer")
    func fromEntries() {
        let record = RunRecord(entries: [
            entry(RunEnding.MessageID.unitStarted, 1),
            entry(ID.unitOutOfMemory, 5),
            entry(RunEnding.MessageID.unitProcessExit, 6, ["EXIT_CODE": "killed", "EXIT_STATUS": "9"]),
            entry(ID.unitFailureResult, 7, ["UNIT_RESULT": "oom-kill"]),
            entry(ID.unitResources, 8, ["CPU_USAGE_NSEC": "2000000000", "MEMORY_PEAK": "536870912"]),
        ])
        #expect(record == RunRecord(cpuSeconds: 2, memoryPeakBytes: 536_870_912, oom: .kernel))
        #expect(RunRecord(entries: [entry(RunEnding.MessageID.unitSuccess, 1)]).isEmpty)
    }

    @Test("merging: the receiver's known values win, the other fills its nils, a core dump field by field")
    func merging() {
        let journal = RunRecord(
            cpuSeconds: 1.5, ioReadBytes: 100, oom: .oomd, coredump: CoreDump(signal: 11, cursor: nil)
        )
        let bus = RunRecord(
            startupSeconds: 0.25, cpuSeconds: 9, memoryPeakBytes: 4_096, ioReadBytes: 999, ioWriteBytes: 7,
            oom: .kernel, coredump: CoreDump(signal: 6, cursor: "s=1;i=2")
        )
        #expect(journal.merging(bus) == RunRecord(
            startupSeconds: 0.25, cpuSeconds: 1.5, memoryPeakBytes: 4_096, ioReadBytes: 100, ioWriteBytes: 7,
            oom: .oomd, coredump: CoreDump(signal: 11, cursor: "s=1;i=2")
        ))
        #expect(bus.merging(journal) == bus)
        #expect(journal.merging(RunRecord()) == journal)
        #expect(RunRecord().merging(journal) == journal)
    }

    @Test("JSON: snake_case keys, unknown values left out, and back")
    func codable() throws {
        let record = RunRecord(
            startupSeconds: 0.5, cpuSeconds: 2, memoryPeakBytes: 1_024, oom: .oomd,
            coredump: CoreDump(signal: 11, cursor: "s=abc")
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(record), as: UTF8.self)
        #expect(text == """
            {"coredump":{"cursor":"s=abc","signal":11},"cpu_seconds":2,"memory_peak_bytes":1024,"oom":"oomd",\
            "startup_seconds":0.5}
            """)
        #expect(try JSONDecoder().decode(RunRecord.self, from: Data(text.utf8)) == record)
        #expect(String(decoding: try encoder.encode(RunRecord()), as: UTF8.self) == "{}")
    }
}
