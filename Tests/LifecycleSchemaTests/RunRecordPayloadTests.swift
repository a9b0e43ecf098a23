// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSchema
import Testing

/// A run's record on its sleep or crash notice: written as LIFECYCLE_RUN_* fields and read back.
struct RunRecordPayloadTests {
    private func journaled(_ record: RunRecord) -> (fields: [String: String], read: JournaledDispatch?) {
        let dispatch = Dispatch(name: "crash", time: 1_772_452_800_000, lifecycle: nil, customData: record.payload)
        let entry = DispatchJournalEntry(
            unit: "web.service", dispatch: dispatch, invocationID: nil, sequence: 3, kind: .crash
        )
        let fields = Dictionary(entry.fields.map { ($0.name, $0.value) }) { first, _ in first }
        return (fields, JournaledDispatch(fields: fields))
    }

    @Test("every known value becomes its field and reads back the same")
    func roundTrip() {
        let record = RunRecord(
            startupSeconds: 1.002345, durationSeconds: 61.5, cpuSeconds: 0.5, memoryPeakBytes: 12_345_678, ioReadBytes: 4_096,
            ioWriteBytes: 0, oom: .kernel, coredump: CoreDump(signal: 11, cursor: "s=abc;i=1")
        )
        let (fields, read) = journaled(record)
        #expect(fields["LIFECYCLE_RUN_STARTUP_SECONDS"] == "1.002345")
        #expect(fields["LIFECYCLE_RUN_DURATION_SECONDS"] == "61.5")
        #expect(fields["LIFECYCLE_RUN_CPU_SECONDS"] == "0.5")
        #expect(fields["LIFECYCLE_RUN_MEMORY_PEAK_BYTES"] == "12345678")
        #expect(fields["LIFECYCLE_RUN_IO_WRITE_BYTES"] == "0")
        #expect(fields["LIFECYCLE_RUN_OOM"] == "kernel")
        #expect(fields["LIFECYCLE_RUN_COREDUMP"] == "true")
        #expect(fields["LIFECYCLE_RUN_COREDUMP_CURSOR"] == "s=abc;i=1")
        #expect(read?.run == record)
    }

    @Test("an unknown value has no field, never 0, and reads back unknown")
    func unknown() {
        let (fields, read) = journaled(RunRecord(startupSeconds: 0.25))
        #expect(fields.keys.filter { $0.hasPrefix("LIFECYCLE_RUN_") }.sorted() == ["LIFECYCLE_RUN_STARTUP_SECONDS"])
        #expect(read?.run == RunRecord(startupSeconds: 0.25))
        #expect(read?.run.cpuSeconds == nil && read?.run.memoryPeakBytes == nil)
        #expect(journaled(RunRecord()).read?.run.isEmpty == true)
    }

    @Test("a value that is no finite, non-negative number reads back unknown")
    func garbage() {
        let fields = [
            "LIFECYCLE_RUN_STARTUP_SECONDS": "inf", "LIFECYCLE_RUN_CPU_SECONDS": "-1",
            "LIFECYCLE_RUN_MEMORY_PEAK_BYTES": "12M", "LIFECYCLE_RUN_OOM": "user",
        ]
        #expect(RunRecord(journalFields: fields).isEmpty)
        #expect(RunRecord(journalFields: ["LIFECYCLE_RUN_STARTUP_SECONDS": "1e999"]).startupSeconds == nil)
    }
}
