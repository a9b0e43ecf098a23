// SPDX-License-Identifier: Apache-2.0

/// A run's record as PID 1's journal tells it: the source for runs that ended while lifecycled was not running, and
/// for values the D-Bus properties no longer hold once the next run started.
extension RunRecord {
    /// `sd-messages.h` ids of PID 1's entries about what a run cost and how it was killed.
    public enum MessageID {
        /// `SD_MESSAGE_UNIT_RESOURCES`: "Consumed 1.234s CPU time." (v252), "Consumed … CPU time over … wall clock
        /// time, 12M memory peak." (later), written by `unit_log_resources()` (`src/core/unit.c`) as the unit
        /// enters inactive or failed.
        public static let unitResources = "ae8f7b866b0347b9af31fe1c80b127c0"
        /// `SD_MESSAGE_UNIT_OUT_OF_MEMORY`: the kernel's OOM killer killed a process of the unit (``OOMKiller``).
        public static let unitOutOfMemory = "fe6faa94e7774663a0da52717891d8ef"
        /// `SD_MESSAGE_UNIT_OOMD_KILL`: systemd-oomd killed processes of the unit (``OOMKiller``).
        public static let unitOOMDKill = "d989611b15e44c9dbf31e3c81256e4ed"
        /// `SD_MESSAGE_UNIT_FAILURE_RESULT` with `UNIT_RESULT=oom-kill` (the same id as
        /// ``RunEnding/MessageID/unitFailureResult``).
        public static let unitFailureResult = RunEnding.MessageID.unitFailureResult

        /// PID 1's ids above: the entries of a run that ``RunRecord/init(entries:)`` reads.
        public static let all = [unitResources, unitOutOfMemory, unitOOMDKill, unitFailureResult]
    }

    /// The journal fields of PID 1's entries that the record reads (with `UNIT`, `INVOCATION_ID` to group a run).
    public static let fields = [
        "MESSAGE_ID", "UNIT_RESULT", "CPU_USAGE_NSEC", "MEMORY_PEAK", "IO_METRIC_READ_BYTES", "IO_METRIC_WRITE_BYTES",
    ]

    /// The resources PID 1's "Consumed …" entry reports; nil when `entry` is another entry.
    public init?(resources entry: RunEnding.Entry) {
        guard entry.messageID == MessageID.unitResources else { return nil }
        self.init(resourceFields: entry.fields)
    }

    /// The resources in the fields of PID 1's "Consumed …" entry.
    ///
    /// `unit_log_resources()` writes each value it has as a decimal (`%PRIu64`) and leaves out each it has not
    /// (UINT64_MAX inside systemd): `CPU_USAGE_NSEC`; `IO_METRIC_READ_BYTES`, `IO_METRIC_WRITE_BYTES`,
    /// `IO_METRIC_READ_OPERATIONS`, `IO_METRIC_WRITE_OPERATIONS` (cgroup v2 with IO accounting); `IP_METRIC_…`; and
    /// from v255 `MEMORY_PEAK`, `MEMORY_SWAP_PEAK` (v252, Debian 12's, has no memory field). A missing, empty or
    /// garbled value gives nil, and so does UINT64_MAX. The entry says nothing of start-up, OOM or core dumps.
    public init(resourceFields fields: [String: String]) {
        let nanoseconds = fields["CPU_USAGE_NSEC"].flatMap(Self.decimal).flatMap(Self.known)
        self.init(
            cpuSeconds: nanoseconds.map { Double($0) / 1_000_000_000 },
            memoryPeakBytes: fields["MEMORY_PEAK"].flatMap(Self.decimal).flatMap(Self.known),
            ioReadBytes: fields["IO_METRIC_READ_BYTES"].flatMap(Self.decimal).flatMap(Self.known),
            ioWriteBytes: fields["IO_METRIC_WRITE_BYTES"].flatMap(Self.decimal).flatMap(Self.known)
        )
    }

    /// What the entries of one run (all of one InvocationID, oldest first) tell: the resources of its last
    /// "Consumed …" entry, and who OOM-killed it (``OOMKiller/killer(in:)``). Start-up time and core dumps come from
    /// elsewhere (the D-Bus properties; systemd-coredump's entry).
    public init(entries: [RunEnding.Entry]) {
        let resources = entries.last { $0.messageID == MessageID.unitResources }
        self = resources.flatMap { RunRecord(resources: $0) } ?? RunRecord()
        oom = OOMKiller.killer(in: entries)
    }

    /// The value of a decimal journal field: ASCII digits only (no sign, no space), in range; nil otherwise.
    static func decimal(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return UInt64(text)
    }

    /// `value`, or nil for UINT64_MAX: systemd's "[not set]" for a counter it cannot read.
    static func known(_ value: UInt64) -> UInt64? {
        value == .max ? nil : value
    }
}
