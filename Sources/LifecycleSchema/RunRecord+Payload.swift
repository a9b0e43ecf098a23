// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// A run's record in a dispatch: payload keys `run_…`, which become the fields `LIFECYCLE_RUN_…`
/// (``DispatchField/run``), each present only when the value is known. Absent means the host could not say, never 0.
extension RunRecord {
    /// The payload keys of the record.
    public enum PayloadKey {
        public static let startupSeconds = "run_startup_seconds"
        public static let durationSeconds = "run_duration_seconds"
        public static let cpuSeconds = "run_cpu_seconds"
        public static let memoryPeakBytes = "run_memory_peak_bytes"
        public static let ioReadBytes = "run_io_read_bytes"
        public static let ioWriteBytes = "run_io_write_bytes"
        public static let oom = "run_oom"
        public static let coredump = "run_coredump"
        public static let coredumpSignal = "run_coredump_signal"
        public static let coredumpCursor = "run_coredump_cursor"
    }

    /// The known values as payload members. Seconds keep microseconds (systemd's resolution), as a number.
    public var payload: [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        if let startupSeconds { members[PayloadKey.startupSeconds] = .double(Self.microseconds(startupSeconds)) }
        if let durationSeconds { members[PayloadKey.durationSeconds] = .double(Self.microseconds(durationSeconds)) }
        if let cpuSeconds { members[PayloadKey.cpuSeconds] = .double(Self.microseconds(cpuSeconds)) }
        if let memoryPeakBytes { members[PayloadKey.memoryPeakBytes] = .int(Int64(clamping: memoryPeakBytes)) }
        if let ioReadBytes { members[PayloadKey.ioReadBytes] = .int(Int64(clamping: ioReadBytes)) }
        if let ioWriteBytes { members[PayloadKey.ioWriteBytes] = .int(Int64(clamping: ioWriteBytes)) }
        if let oom { members[PayloadKey.oom] = .string(oom.rawValue) }
        if let coredump {
            members[PayloadKey.coredump] = .bool(true)
            if let signal = coredump.signal { members[PayloadKey.coredumpSignal] = .int(Int64(signal)) }
            if let cursor = coredump.cursor { members[PayloadKey.coredumpCursor] = .string(cursor) }
        }
        return members
    }

    /// The record a dispatch's journal fields hold (``DispatchField/run``); empty when it holds none.
    public init(journalFields fields: [String: String]) {
        func bytes(_ name: String) -> UInt64? { fields[name].flatMap { UInt64($0) } }
        func seconds(_ name: String) -> Double? {
            fields[name].flatMap { Double($0) }.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        }
        var coredump: CoreDump?
        if fields[DispatchField.runCoredump] == "true" {
            coredump = CoreDump(
                signal: fields[DispatchField.runCoredumpSignal].flatMap { Int32($0) },
                cursor: fields[DispatchField.runCoredumpCursor]
            )
        }
        self.init(
            startupSeconds: seconds(DispatchField.runStartupSeconds),
            durationSeconds: seconds(DispatchField.runDurationSeconds),
            cpuSeconds: seconds(DispatchField.runCPUSeconds),
            memoryPeakBytes: bytes(DispatchField.runMemoryPeakBytes),
            ioReadBytes: bytes(DispatchField.runIOReadBytes),
            ioWriteBytes: bytes(DispatchField.runIOWriteBytes),
            oom: fields[DispatchField.runOOM].flatMap(OOMKiller.init(rawValue:)),
            coredump: coredump
        )
    }

    /// `seconds` rounded to microseconds, so that a value computed from microseconds prints as one.
    private static func microseconds(_ seconds: Double) -> Double {
        (seconds * 1_000_000).rounded() / 1_000_000
    }
}
