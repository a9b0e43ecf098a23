// SPDX-License-Identifier: Apache-2.0

/// A change in a unit's run, as read from systemd's snapshots (docs/engine-semantics.md §10, "Runs of a systemd unit").
public enum RunTransition: Sendable, Hashable {
    /// A new run (a new InvocationID) reached activating, active or reloading.
    case began
    /// The run ended with Result=success.
    case endedCleanly
    /// The run ended with another Result; the details name what systemd reported.
    case failed(CrashDetails)
    /// The run is over, but no source tells how or exactly when: a unit that PID 1 logs nothing of
    /// (`LogLevelMax=`), a journal that no longer holds the run, or one that is not kept (`Storage=none`). It is a
    /// sleep, never a crash (docs/journal.md, "Runs that are not runs, ends that cannot be known").
    case endedUnknown
    /// The unit's cgroup was frozen.
    case frozen
    /// A frozen unit runs again.
    case thawed

    /// True for the end of a run, clean or failed, known or not.
    public var endsRun: Bool {
        switch self {
        case .endedCleanly, .failed, .endedUnknown: true
        case .began, .frozen, .thawed: false
        }
    }
}

/// What systemd said about a failed run: the fields of a crash notice (docs/journal.md, "Crash notices").
public struct CrashDetails: Sendable, Hashable {
    /// systemd's `Result`: exit-code, signal, core-dump, watchdog, timeout, oom-kill, start-limit-hit, …
    public var result: String
    /// `ExecMainCode`: 1 exited, 2 killed, 3 dumped; nil when no main process exited.
    public var execMainCode: Int32?
    /// `ExecMainStatus`: the exit status or the signal number.
    public var execMainStatus: Int32?
    public var nRestarts: UInt32?

    /// An `ExecMainCode` of 0 says that no main process exited (the start failed before it, say in `ExecCondition=` or
    /// `ExecStartPre=`): then neither code nor status is known, and both stay nil rather than a made-up "0".
    public init(result: String, execMainCode: Int32? = nil, execMainStatus: Int32? = nil, nRestarts: UInt32? = nil) {
        let exited = execMainCode != 0
        self.result = result
        self.execMainCode = exited ? execMainCode : nil
        self.execMainStatus = exited ? execMainStatus : nil
        self.nRestarts = nRestarts
    }

    /// The crash notice's data, named like the fields PID 1 writes to the journal for the same run.
    public var data: [String: JSONValue] {
        var data: [String: JSONValue] = ["unit_result": .string(result)]
        if let execMainCode {
            data["exit_code"] = .string(Self.codeNames[execMainCode] ?? String(execMainCode))
        }
        if let execMainStatus { data["exit_status"] = .int(Int64(execMainStatus)) }
        if let nRestarts { data["n_restarts"] = .int(Int64(nRestarts)) }
        return data
    }

    /// `siginfo` codes as PID 1 spells them in `EXIT_CODE=`.
    private static let codeNames: [Int32: String] = [1: "exited", 2: "killed", 3: "dumped"]

    /// The `siginfo` code of a process that dumped core (`CLD_DUMPED`).
    static let dumpedCode: Int32 = 3

    /// The core dump the failure itself tells of: the main process dumped core (`ExecMainCode` 3, `EXIT_CODE=dumped`;
    /// systemd's Result is then `core-dump`), with the signal that made it. It is known whether or not anything kept
    /// the dump (systemd-coredump, a `core` file, or nothing when `core_pattern` discards it); the kernel said it
    /// dumped. nil otherwise.
    public var coreDump: CoreDump? {
        guard execMainCode == Self.dumpedCode || result == "core-dump" else { return nil }
        return CoreDump(signal: execMainCode == Self.dumpedCode ? execMainStatus : nil)
    }
}

/// One transition of one run, with the time systemd recorded for it.
public struct MappedTransition: Sendable, Hashable {
    public var unit: String
    public var transition: RunTransition
    /// The run's InvocationID (32 hex digits).
    public var invocationID: String
    /// systemd's `StateChangeTimestamp` in milliseconds, or nil when it reported none.
    public var time: Milliseconds?
    /// systemd's `StateChangeTimestampMonotonic` in microseconds (0 when unknown).
    public var monotonicMicroseconds: UInt64
    /// True when the transition happened while lifecycled was not running and was recovered at its start.
    public var isReconciled: Bool
    /// For the end of a run, what the run cost and how it ended, as far as known; for a begin, its start-up when it is
    /// known already (the run is active, or was recovered); empty for any other transition.
    public var run: RunRecord
    /// For a begin: the unit was still activating when the run was seen to begin (`ExecStartPre=`, a `Type=notify`
    /// service before READY=1, a oneshot), so its start-up is not known yet; it is once the unit is active or the run
    /// is over. False for every other transition.
    public var awaitsStartup: Bool
    /// For a begin: the run was seen only over, its begin dated when it left the inactive state
    /// (``SystemdUnitMapper``). False for every other transition.
    public var wasSeenOnlyOver = false

    public init(
        unit: String,
        transition: RunTransition,
        invocationID: String,
        time: Milliseconds?,
        monotonicMicroseconds: UInt64,
        isReconciled: Bool = false,
        run: RunRecord = RunRecord(),
        awaitsStartup: Bool = false
    ) {
        self.unit = unit
        self.transition = transition
        self.invocationID = invocationID
        self.time = time
        self.monotonicMicroseconds = monotonicMicroseconds
        self.isReconciled = isReconciled
        self.run = run
        self.awaitsStartup = awaitsStartup
    }

    /// What is known of the run this transition ends: ``run``, with the core dump a failure itself tells of
    /// (``CrashDetails/coreDump``).
    public var endedRun: RunRecord {
        guard case .failed(let details) = transition, let dump = details.coreDump else { return run }
        return run.merging(RunRecord(coredump: dump))
    }
}
