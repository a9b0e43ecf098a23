// SPDX-License-Identifier: Apache-2.0

/// What one run of a unit cost and how it ended: start-up time, duration, CPU time, memory peak, IO, and whether it was
/// OOM-killed or dumped core.
///
/// Every field is optional, and nil means "the host cannot say": no accounting (`CPUAccounting=`, `IOAccounting=`
/// off, cgroup v1), a systemd too old for the value (`MemoryPeak` is v255+), a journal entry PID 1 did not write
/// (it logs resources at debug level for small runs), or a run that never reached the state a value needs. A made-up
/// 0 would read as "used nothing", which is a claim; nil is not.
///
/// The parsers that fill it are pure: ``init(properties:isOneshot:endedMonotonic:)`` (the unit's D-Bus properties at
/// the run's end), ``init(resources:)`` (PID 1's "Consumed …" entry), ``init(entries:)`` (a run's entries),
/// ``OOMKiller/killer(in:)`` and ``CoreDump/init(entry:cursor:)``. Sources are combined with ``merging(_:)``.
public struct RunRecord: Sendable, Hashable, Codable {
    /// Seconds from leaving inactive to becoming active; for a oneshot, which never becomes active (unless
    /// `RemainAfterExit=`), its time activating.
    public var startupSeconds: Double?
    /// Seconds from leaving inactive to the run's end, on PID 1's monotonic clock: a wall clock stepped meanwhile does
    /// not change it.
    public var durationSeconds: Double?
    /// CPU time the run's cgroup used (systemd counts it in nanoseconds).
    public var cpuSeconds: Double?
    /// The most memory the run's cgroup used at once (`memory.peak`), in bytes.
    public var memoryPeakBytes: UInt64?
    /// Bytes the run read from block devices.
    public var ioReadBytes: UInt64?
    /// Bytes the run wrote to block devices.
    public var ioWriteBytes: UInt64?
    /// Who OOM-killed a process of the run; nil when no OOM kill is known (or none was told apart, see
    /// ``OOMKiller/killer(in:)``).
    public var oom: OOMKiller?
    /// The core dump a process of the run left; nil when none is known.
    public var coredump: CoreDump?

    public init(
        startupSeconds: Double? = nil, durationSeconds: Double? = nil, cpuSeconds: Double? = nil, memoryPeakBytes: UInt64? = nil,
        ioReadBytes: UInt64? = nil, ioWriteBytes: UInt64? = nil, oom: OOMKiller? = nil, coredump: CoreDump? = nil
    ) {
        self.startupSeconds = startupSeconds
        self.durationSeconds = durationSeconds
        self.cpuSeconds = cpuSeconds
        self.memoryPeakBytes = memoryPeakBytes
        self.ioReadBytes = ioReadBytes
        self.ioWriteBytes = ioWriteBytes
        self.oom = oom
        self.coredump = coredump
    }

    /// True when the record knows nothing at all.
    public var isEmpty: Bool { self == RunRecord() }

    /// This record with its unknown values taken from `other`: where both know a value, this record's wins.
    ///
    /// The receiver should be the source more surely about this run. PID 1's "Consumed …" entry carries the run's
    /// InvocationID and is written as the run ends; the D-Bus properties are read afterwards and may already count
    /// the next run (systemd resets accounting when a unit starts). So `journalRecord.merging(busRecord)`. A core
    /// dump known to both is merged field by field the same way.
    public func merging(_ other: RunRecord) -> RunRecord {
        RunRecord(
            startupSeconds: startupSeconds ?? other.startupSeconds,
            durationSeconds: durationSeconds ?? other.durationSeconds,
            cpuSeconds: cpuSeconds ?? other.cpuSeconds,
            memoryPeakBytes: memoryPeakBytes ?? other.memoryPeakBytes,
            ioReadBytes: ioReadBytes ?? other.ioReadBytes,
            ioWriteBytes: ioWriteBytes ?? other.ioWriteBytes,
            oom: oom ?? other.oom,
            coredump: coredump.map { $0.merging(other.coredump) } ?? other.coredump
        )
    }

    enum CodingKeys: String, CodingKey {
        case startupSeconds = "startup_seconds"
        case durationSeconds = "duration_seconds"
        case cpuSeconds = "cpu_seconds"
        case memoryPeakBytes = "memory_peak_bytes"
        case ioReadBytes = "io_read_bytes"
        case ioWriteBytes = "io_write_bytes"
        case oom
        case coredump
    }
}
