// SPDX-License-Identifier: Apache-2.0

/// The names of the journal fields of lifecycled's entries (docs/journal.md, "Fields"): the one place they are
/// spelled. The daemon writes them (``DispatchJournalEntry``) and everything that reads them back, lifecycled's own
/// recovery as much as `lifecyclectl`, does so through ``JournaledDispatch``.
public enum DispatchField {
    public static let unit = "LIFECYCLE_UNIT"
    /// `launch`, `wake`, `sleep`, `crash`, or a custom event's name.
    public static let event = "LIFECYCLE_EVENT"
    /// When the event happened: RFC 3339 UTC with milliseconds.
    public static let time = "LIFECYCLE_TIME"
    public static let invocationID = "LIFECYCLE_INVOCATION_ID"
    /// The unit's dispatch number: one per dispatch, the same when a dispatch is sent again.
    public static let sequence = "LIFECYCLE_SEQUENCE"
    /// The unit's stored version after the event.
    public static let version = "LIFECYCLE_VERSION"
    /// Every payload key and value as one JSON object.
    public static let payload = "LIFECYCLE_PAYLOAD"
    /// `true` when the autotracker sent the dispatch (a payload key of the crash notice and the autotracked events).
    public static let autotracked = "LIFECYCLE_AUTOTRACKED"
    /// `true` when lifecycled recorded the dispatch after the fact, from PID 1's journal.
    public static let reconciled = "LIFECYCLE_RECONCILED"
    /// `unknown` on a sleep whose run ended in a way no source showed.
    public static let runEnd = "LIFECYCLE_RUN_END"
    /// A crash notice's systemd Result, exit code (`exited`, `killed`, `dumped`) and exit status or signal number.
    public static let unitResult = "LIFECYCLE_UNIT_RESULT"
    public static let exitCode = "LIFECYCLE_EXIT_CODE"
    public static let exitStatus = "LIFECYCLE_EXIT_STATUS"
    /// The record of the run a sleep or crash notice ends (``RunRecord``), each field present only when known:
    /// seconds from leaving inactive to becoming active (a oneshot: its time activating), the run's duration on
    /// PID 1's monotonic clock, CPU seconds, memory peak and IO bytes, who OOM-killed it (`kernel` or `oomd`), and a
    /// core dump (`true`, with the cursor of systemd-coredump's entry).
    public static let runStartupSeconds = "LIFECYCLE_RUN_STARTUP_SECONDS"
    public static let runDurationSeconds = "LIFECYCLE_RUN_DURATION_SECONDS"
    public static let runCPUSeconds = "LIFECYCLE_RUN_CPU_SECONDS"
    public static let runMemoryPeakBytes = "LIFECYCLE_RUN_MEMORY_PEAK_BYTES"
    public static let runIOReadBytes = "LIFECYCLE_RUN_IO_READ_BYTES"
    public static let runIOWriteBytes = "LIFECYCLE_RUN_IO_WRITE_BYTES"
    public static let runOOM = "LIFECYCLE_RUN_OOM"
    public static let runCoredump = "LIFECYCLE_RUN_COREDUMP"
    public static let runCoredumpSignal = "LIFECYCLE_RUN_COREDUMP_SIGNAL"
    public static let runCoredumpCursor = "LIFECYCLE_RUN_COREDUMP_CURSOR"
    /// The run record's fields.
    public static let run = [
        runStartupSeconds, runDurationSeconds, runCPUSeconds, runMemoryPeakBytes, runIOReadBytes, runIOWriteBytes, runOOM, runCoredump,
        runCoredumpSignal, runCoredumpCursor,
    ]
    /// On a launch or wake a timer started, and on a `missed` dispatch: the timer unit, when it elapsed (RFC 3339
    /// UTC with milliseconds) and, on the run's begin, the begin less that due time in seconds.
    public static let timer = "LIFECYCLE_TIMER"
    public static let timerDueTime = "LIFECYCLE_TIMER_DUE_TIME"
    public static let timerLatenessSeconds = "LIFECYCLE_TIMER_LATENESS_SECONDS"
    /// On a `missed` dispatch: why the due run never began, systemd's job result (`dependency`, `canceled`, …).
    public static let missedCause = "LIFECYCLE_MISSED_CAUSE"
    /// The label of lifecycled's journal probes (not a dispatch).
    public static let probe = "LIFECYCLE_PROBE"

    /// journald's own fields that tell the machines of a collected journal apart.
    public static let hostname = "_HOSTNAME"
    public static let machineID = "_MACHINE_ID"
    public static let message = "MESSAGE"
    public static let messageID = "MESSAGE_ID"

    /// The value of ``runEnd`` for a run whose end no source showed.
    public static let unknownRunEnd = "unknown"

    /// The payload keys lifecycled adds to a dispatch, whose fields are ``reconciled`` and ``runEnd``.
    public enum PayloadKey {
        public static let reconciled = "reconciled"
        public static let runEnd = "run_end"
        public static let timer = "timer"
        public static let timerDueTime = "timer_due_time"
        public static let timerLatenessSeconds = "timer_lateness_seconds"
        public static let missedCause = "missed_cause"
        public static let autotracked = "autotracked"
    }

    /// `LIFECYCLE_EVENT` of a due run that never began (``DispatchKind/missed``).
    public static let missedEvent = "missed"

    /// The fields that always come first in a dispatch; a payload key that maps onto one of them is left out of the
    /// per-key fields (it is still in ``payload``), so that a custom key `unit` or `event` can never add a second
    /// value to the field that `journalctl LIFECYCLE_UNIT=…` matches on.
    public static let reserved: Set<String> = [unit, event, time, invocationID, sequence, version, payload]
}
