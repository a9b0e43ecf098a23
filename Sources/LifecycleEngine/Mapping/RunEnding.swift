// SPDX-License-Identifier: Apache-2.0

/// How a run ended, as PID 1's journal tells it (docs/systemd.md, "PID 1's journal entries about a run"): the source
/// for runs that ended while lifecycled was not running.
public enum RunEnding: Sendable, Hashable {
    case endedCleanly(at: Milliseconds)
    case failed(CrashDetails, at: Milliseconds)

    /// One of PID 1's journal entries about a run (read only from `_PID=1`: `UNIT=` is an untrusted field).
    public struct Entry: Sendable, Hashable {
        public var messageID: String
        /// When PID 1 sent the entry, by the wall clock as it was then.
        public var time: Milliseconds
        public var fields: [String: String]
        /// PID 1's monotonic clock when it sent the entry (µs), for an entry of the current boot; nil otherwise.
        public var monotonicMicroseconds: UInt64?
        /// ``time`` by the wall clock as it was at the journal position the entries were read from
        /// (``JournalPosition/wallClock(ofMonotonic:boot:)``): the clock stepping since does not move it. nil when
        /// unknown (no position, or another boot).
        public var positionTime: Milliseconds?

        public init(
            messageID: String, time: Milliseconds, fields: [String: String], monotonicMicroseconds: UInt64? = nil,
            positionTime: Milliseconds? = nil
        ) {
            self.messageID = messageID
            self.time = time
            self.fields = fields
            self.monotonicMicroseconds = monotonicMicroseconds
            self.positionTime = positionTime
        }
    }

    /// `sd-messages.h` ids PID 1 logs when a run ends.
    public enum MessageID {
        /// `SD_MESSAGE_UNIT_STARTING`: "Starting …" (not logged for a quick `Type=simple` start).
        public static let unitStarting = "7d4958e842da4a758f6c1cdc7b36dcc5"
        /// `SD_MESSAGE_UNIT_STARTED`: "Started …" or, for a oneshot, "Finished …" (a start job finished).
        public static let unitStarted = "39f53479d3a045ac8e11786248231fbf"
        /// `SD_MESSAGE_UNIT_FAILED`: "Failed to start …" (a start job failed).
        public static let unitFailed = "be02cf6855d2428ba40df7e9d022f03d"
        /// `SD_MESSAGE_UNIT_SUCCESS`: "Deactivated successfully."
        public static let unitSuccess = "7ad2d189f7e94e70a38c781354912448"
        /// `SD_MESSAGE_UNIT_FAILURE_RESULT`: "Failed with result '…'." with `UNIT_RESULT=`.
        public static let unitFailureResult = "d9b373ed55a64feb8242e02dbe79a49c"
        /// `SD_MESSAGE_UNIT_PROCESS_EXIT`: "Main process exited, code=…, status=…" with `EXIT_CODE=`, `EXIT_STATUS=`.
        public static let unitProcessExit = "98e322203f7a4ed290d09fe03c09fe15"
        /// `SD_MESSAGE_UNIT_STOPPED`: "Stopped …" (a stop job finished).
        public static let unitStopped = "9d1aaa27d60140bd96365438aad20286"
        /// `SD_MESSAGE_UNIT_SKIPPED`: "Skipped due to 'exec-condition'." with `UNIT_RESULT=`: `ExecCondition=` skipped
        /// the start, so the "run" was none.
        public static let unitSkipped = "0e4284a0caca4bfc81c0bb6786972673"

        /// Every id above, and those of what a run cost and who OOM-killed it (``RunRecord/MessageID``): the entries
        /// that tell when a run began, how it ended and what it left.
        public static let all = [
            unitStarting, unitStarted, unitFailed, unitSuccess, unitFailureResult, unitProcessExit, unitStopped,
            unitSkipped, RunRecord.MessageID.unitResources, RunRecord.MessageID.unitOutOfMemory,
            RunRecord.MessageID.unitOOMDKill,
        ]
    }

    /// systemd's Result when `ExecCondition=` skipped a start.
    public static let skippedResult = "exec-condition"
    /// systemd's Result when the start limit refused a start (`StartLimitBurst=`).
    public static let startLimitHitResult = "start-limit-hit"

    /// True when `entries` (all of one InvocationID) say that `ExecCondition=` skipped the start: no run at all.
    public static func isSkipped(_ entries: [Entry]) -> Bool {
        entries.contains { $0.messageID == MessageID.unitSkipped }
    }

    /// The journal fields the decision reads, and the time PID 1 sent the entry (its clock, not journald's).
    public static let fields = [
        "MESSAGE_ID", "UNIT_RESULT", "EXIT_CODE", "EXIT_STATUS", "COMMAND", "_SOURCE_REALTIME_TIMESTAMP",
    ] + RunRecord.fields.filter { $0 != "MESSAGE_ID" && $0 != "UNIT_RESULT" }

    /// Whether `entry` is PID 1's "Main process exited": its process-exit message is also logged for the control
    /// processes (`COMMAND=ExecCondition`, `ExecStartPre`, `ExecStopPost`, …), whose status is not the run's.
    static func isMainProcessExit(_ entry: Entry) -> Bool {
        entry.messageID == MessageID.unitProcessExit && (entry.fields["COMMAND"] ?? "ExecStart") == "ExecStart"
    }

    /// How the run of `entries` (all of one InvocationID, oldest first) ended, or nil when they do not say (the run
    /// may still be going, or the journal no longer holds it).
    public init?(entries: [Entry]) {
        let exit = entries.last(where: Self.isMainProcessExit)
        // A refused restart (its start limit) is logged with the InvocationID of the run before it, which had ended:
        // its "Failed with result 'start-limit-hit'" is not that run's end.
        if let failure = entries.first(where: {
            $0.messageID == MessageID.unitFailureResult && $0.fields["UNIT_RESULT"] != Self.startLimitHitResult
        }) {
            let details = CrashDetails(
                result: failure.fields["UNIT_RESULT"] ?? "failed",
                execMainCode: exit?.fields["EXIT_CODE"].flatMap(Self.code(named:)),
                execMainStatus: exit?.fields["EXIT_STATUS"].flatMap { Int32($0) }
            )
            self = .failed(details, at: failure.time)
        } else if let success = entries.first(where: { $0.messageID == MessageID.unitSuccess || $0.messageID == MessageID.unitStopped }) {
            self = .endedCleanly(at: success.time)
        } else {
            return nil
        }
    }

    private static func code(named name: String) -> Int32? {
        switch name {
        case "exited": 1
        case "killed": 2
        case "dumped": 3
        default: nil
        }
    }
}
