// SPDX-License-Identifier: Apache-2.0

/// PID 1's journal entry of a start job that ended without a run: "Dependency failed for …" and its kin
/// (`MESSAGE_ID=be02cf6855d2428ba40df7e9d022f03d`, `JOB_TYPE=start`, `JOB_RESULT=` other than `done`, and an empty
/// `INVOCATION_ID=`, since no run exists). The evidence of a run a timer was due to start while lifecycled was not
/// running (docs/journal.md, "Timers").
public struct FailedStartJob: Sendable, Hashable {
    public static let messageID = "be02cf6855d2428ba40df7e9d022f03d"
    /// The fields the parser reads.
    public static let fields = ["MESSAGE_ID", "UNIT", "JOB_TYPE", "JOB_RESULT", "INVOCATION_ID", "_SOURCE_REALTIME_TIMESTAMP"]

    public var unit: String
    /// When PID 1 logged it (its own clock, `_SOURCE_REALTIME_TIMESTAMP`, else journald's receipt), ms since the epoch.
    public var time: Milliseconds
    /// systemd's job result: `dependency`, `canceled`, `timeout`, …
    public var result: String

    public init(unit: String, time: Milliseconds, result: String) {
        self.unit = unit
        self.time = time
        self.result = result
    }

    /// The failed start job an entry tells of, nil for any other entry (a job `done`, a stop job, a start whose run
    /// began and failed: that one has its run's `INVOCATION_ID`).
    public init?(fields: [String: String], receivedAt: Milliseconds) {
        guard fields["MESSAGE_ID"] == Self.messageID, fields["JOB_TYPE"] == "start", let unit = fields["UNIT"],
            let result = fields["JOB_RESULT"], result != "done", fields["INVOCATION_ID"]?.isEmpty ?? true
        else { return nil }
        let source = fields["_SOURCE_REALTIME_TIMESTAMP"].flatMap { UInt64($0) }.map { Milliseconds($0 / 1_000) }
        self.init(unit: unit, time: source ?? receivedAt, result: result)
    }
}

extension TimerBook {
    /// The elapses of `timer` whose start job failed while lifecycled was away, from PID 1's failed start jobs of its
    /// unit after `since` (the last elapse lifecycled resolved): one miss a job, with the job's result as its cause.
    /// systemd keeps the time of a timer's last elapse only: the first failure after it is that elapse's (due then);
    /// an earlier failure's due time is when PID 1 failed its job, and a failure after the last elapse's is no
    /// elapse's (a start by hand).
    public static func missedWhileAway(
        _ timer: TimerSnapshot, since: Milliseconds, jobs: [FailedStartJob]
    ) -> [(elapse: TimerElapse, cause: String, failedAt: Milliseconds)] {
        let lastTrigger = timer.lastTriggerTime ?? .max
        var missed: [(elapse: TimerElapse, cause: String, failedAt: Milliseconds)] = []
        var isLastElapseTaken = false
        for job in jobs.sorted(by: { $0.time < $1.time }) where job.unit == timer.unit && job.time > since {
            let isAfterLastElapse = job.time >= lastTrigger
            if isAfterLastElapse, isLastElapseTaken { continue }
            isLastElapseTaken = isLastElapseTaken || isAfterLastElapse
            let due = isAfterLastElapse ? lastTrigger : job.time
            missed.append((TimerElapse(timer: timer.name, unit: timer.unit, due: due, dueMonotonic: 0), job.result, job.time))
        }
        return missed
    }
}
