// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// The rules that resolve each elapse of a timer into a run, a miss, a skip or a coalesced elapse, as tables of what
/// systemd sends (timer snapshots, run begins and ends, jobs) and what the book decides (docs/journal.md, "Timers").
struct TimerBookTests {
    /// One thing systemd says, in the order it says it.
    enum Step {
        /// The timer's LastTriggerUSec at `second` (wall clock) and the same on PID 1's monotonic clock.
        case trigger(Int)
        case job(UInt32)
        case began(Int, monotonic: Double? = nil)
        case ended(Int)
        case removed(UInt32, String, unitResult: String? = nil)
    }

    /// What the book decided at a step.
    enum Decision: Equatable {
        case ran(due: Int, lateness: Double)
        case missed(due: Int, cause: String)
        case skipped(due: Int)
        case coalesced(due: Int)
        /// The run's change came before the elapse's.
        case ranBefore(due: Int, lateness: Double)
    }

    static let base: Milliseconds = 1_772_359_200_000
    /// PID 1's monotonic clock is the wall clock less this many seconds.
    static let boot = 1_772_300_000

    static func timer(triggeredAt second: Int?) -> TimerSnapshot {
        TimerSnapshot(
            name: "backup.timer", unit: "backup.service",
            lastTrigger: second.map { UInt64(base + Milliseconds($0) * 1_000) * 1_000 } ?? 0,
            lastTriggerMonotonic: second.map { UInt64(Int(base / 1_000) + $0 - boot) * 1_000_000 } ?? 0,
            accuracy: 1_000_000
        )
    }

    static func monotonic(_ second: Double) -> UInt64 { UInt64((Double(Int(base / 1_000) - boot) + second) * 1_000_000) }

    func decide(_ steps: [Step]) -> [Decision] {
        var book = TimerBook()
        book.take(Self.timer(triggeredAt: nil))
        var decisions: [Decision] = []
        let seconds = { (ms: Milliseconds) in Int((ms - Self.base) / 1_000) }
        for step in steps {
            switch step {
            case .trigger(let second):
                if case .claimed(let run)? = book.take(Self.timer(triggeredAt: second)) {
                    decisions.append(.ranBefore(due: seconds(run.elapse.due), lateness: run.latenessSeconds))
                }
            case .job(let id): book.noteJob(id, of: "backup.service")
            case .began(let second, let monotonic):
                let time = Self.base + Milliseconds(second) * 1_000
                if let run = book.runBegan(
                    unit: "backup.service", time: time, monotonic: Self.monotonic(monotonic ?? Double(second))
                ) {
                    decisions.append(.ran(due: seconds(run.elapse.due), lateness: run.latenessSeconds))
                }
            case .ended(let second): book.runEnded(unit: "backup.service", monotonic: Self.monotonic(Double(second)))
            case .removed(let id, let result, let unitResult):
                switch book.jobRemoved(id, of: "backup.service", result: result, unitResult: unitResult) {
                case .missed(let elapse, let cause)?: decisions.append(.missed(due: seconds(elapse.due), cause: cause))
                case .skipped(let elapse)?: decisions.append(.skipped(due: seconds(elapse.due)))
                case .coalesced(let elapse)?: decisions.append(.coalesced(due: seconds(elapse.due)))
                case nil: break
                }
            }
        }
        return decisions
    }

    static let cases: [(String, [Step], [Decision])] = [
        ("a run that begins at once is the elapse's, on time",
         [.trigger(10), .job(7), .began(10), .removed(7, "done")], [.ran(due: 10, lateness: 0)]),
        ("a start job queued behind a slow dependency is late by its wait",
         [.trigger(10), .job(7), .began(13, monotonic: 13.25), .removed(7, "done")], [.ran(due: 10, lateness: 3.25)]),
        ("a failed dependency: the job's result is the miss's cause",
         [.trigger(10), .job(7), .removed(7, "dependency")], [.missed(due: 10, cause: "dependency")]),
        ("a start refused by the start limit: the failed job takes the unit's Result",
         [.trigger(10), .job(7), .removed(7, "failed", unitResult: "start-limit-hit")],
         [.missed(due: 10, cause: "start-limit-hit")]),
        ("a failed job of a unit whose Result says nothing more stays failed",
         [.trigger(10), .removed(7, "failed", unitResult: "success")], [.missed(due: 10, cause: "failed")]),
        ("a canceled start job is missed, once",
         [.trigger(10), .job(7), .removed(7, "canceled"), .removed(7, "canceled")],
         [.missed(due: 10, cause: "canceled")]),
        ("a condition skipped the start: done, no run going",
         [.trigger(10), .began(10), .ended(11), .trigger(20), .removed(8, "done")],
         [.ran(due: 10, lateness: 0), .skipped(due: 20)]),
        ("an elapse while the previous run goes on merges into it",
         [.trigger(10), .began(10), .trigger(20), .removed(8, "done"), .ended(25)],
         [.ran(due: 10, lateness: 0), .coalesced(due: 20)]),
        ("a oneshot still running at the next elapse: its own job's end resolves the elapse as coalesced",
         [.trigger(10), .job(7), .began(10), .trigger(20), .ended(25), .removed(7, "done")],
         [.ran(due: 10, lateness: 0), .coalesced(due: 20)]),
        ("the run's change came first: the elapse claims it, and no job resolves it again",
         [.job(7), .began(10, monotonic: 10.02), .trigger(10), .removed(7, "done")], [.ranBefore(due: 10, lateness: 0.02)]),
        ("a run claimed by its elapse is not claimed by the next one",
         [.trigger(10), .began(10), .trigger(20), .removed(8, "done")], [.ran(due: 10, lateness: 0), .coalesced(due: 20)]),
        ("a manual start before the elapse is no timer's run",
         [.began(5), .trigger(10), .removed(9, "done")], [.coalesced(due: 10)]),
        ("a manual start with no elapse pending carries nothing",
         [.trigger(10), .began(10), .ended(12), .began(30)], [.ran(due: 10, lateness: 0)]),
        ("another job of the unit does not resolve the elapse whose job is known",
         [.trigger(10), .job(7), .removed(3, "canceled"), .removed(7, "timeout")], [.missed(due: 10, cause: "timeout")]),
        ("a removed job with no elapse pending decides nothing",
         [.removed(3, "dependency")], []),
        ("every elapse is resolved once, in order",
         [.trigger(10), .job(7), .removed(7, "dependency"), .trigger(20), .job(8), .began(21), .removed(8, "done"),
          .trigger(30), .job(9), .removed(9, "dependency")],
         [.missed(due: 10, cause: "dependency"), .ran(due: 20, lateness: 1), .missed(due: 30, cause: "dependency")]),
    ]

    @Test("elapses resolved", arguments: cases.indices)
    func table(_ index: Int) {
        let (name, steps, expected) = Self.cases[index]
        #expect(decide(steps) == expected, "\(name)")
    }

    @Test("the first snapshot of a timer is a baseline, a later trigger an elapse")
    func baseline() {
        var book = TimerBook()
        #expect(book.take(Self.timer(triggeredAt: 10)) == nil)
        #expect(book.take(Self.timer(triggeredAt: 10)) == nil)
        #expect(book.take(Self.timer(triggeredAt: 20))?.elapse.due == Self.base + 20_000)
    }

    @Test("the runs of a unit no followed timer starts are not kept")
    func otherUnits() {
        var book = TimerBook()
        book.take(Self.timer(triggeredAt: 10))
        let before = book
        #expect(book.runBegan(unit: "other.service", time: Self.base, monotonic: 1) == nil)
        book.runEnded(unit: "other.service", monotonic: 2)
        #expect(book == before)
        _ = book.runBegan(unit: "backup.service", time: Self.base, monotonic: 1)
        #expect(book != before, "a followed timer's unit's run is kept")
        _ = book.takeAll([])
        #expect(book == TimerBook(), "and forgotten with its timer")
    }

    @Test("a listing forgets the timers it no longer names, and their pending elapses")
    func takeAll() {
        var book = TimerBook()
        book.take(Self.timer(triggeredAt: 10))
        book.take(Self.timer(triggeredAt: 20))
        #expect(book.pending.count == 1)
        #expect(book.takeAll([]).isEmpty)
        #expect(book.pending.isEmpty && book.timers.isEmpty)
    }

    @Test("the next elapse: the earlier of the calendar's and the monotonic one placed on the wall clock")
    func nextElapse() {
        let now = Self.base
        let uptime = Uptime(milliseconds: 60_000)
        var timer = TimerSnapshot(name: "t.timer", unit: "t.service", nextElapseRealtime: UInt64(now + 30_000) * 1_000)
        #expect(timer.nextElapse(now: now, uptime: uptime) == now + 30_000)
        timer.nextElapseMonotonic = 65_000_000
        #expect(timer.nextElapse(now: now, uptime: uptime) == now + 5_000)
        timer = TimerSnapshot(name: "t.timer", unit: "t.service", nextElapseRealtime: .max)
        #expect(timer.nextElapse(now: now, uptime: uptime) == nil)
    }
}

/// PID 1's failed start jobs as the evidence of the runs a timer was due to start while lifecycled was away.
struct FailedStartJobTests {
    static let base = TimerBookTests.base

    static func fields(result: String = "dependency", type: String = "start", invocation: String? = "") -> [String: String] {
        var fields = [
            "MESSAGE_ID": FailedStartJob.messageID, "UNIT": "backup.service", "JOB_TYPE": type, "JOB_RESULT": result,
            "_SOURCE_REALTIME_TIMESTAMP": String((base + 20_250) * 1_000),
        ]
        fields["INVOCATION_ID"] = invocation
        return fields
    }

    static let entries: [(String, [String: String], FailedStartJob?)] = [
        ("a dependency failed: no run, PID 1's own time", fields(),
         FailedStartJob(unit: "backup.service", time: base + 20_250, result: "dependency")),
        ("no INVOCATION_ID field at all", fields(result: "timeout", invocation: nil),
         FailedStartJob(unit: "backup.service", time: base + 20_250, result: "timeout")),
        ("a run began and failed: it has its run's id, and its crash notice", fields(result: "failed", invocation: "ab12"), nil),
        ("a job done", fields(result: "done"), nil),
        ("a stop job", fields(type: "stop"), nil),
    ]

    @Test("PID 1's entries: which are failed start jobs without a run", arguments: entries.indices)
    func parse(_ index: Int) {
        let (name, fields, expected) = Self.entries[index]
        #expect(FailedStartJob(fields: fields, receivedAt: 1) == expected, "\(name)")
    }

    @Test("misses while away: one a failed job after the last one resolved; the last elapse's due time is exact")
    func missedWhileAway() {
        let timer = TimerBookTests.timer(triggeredAt: 40)
        let job = { (second: Int64, result: String) in
            FailedStartJob(unit: "backup.service", time: Self.base + second * 1_000 + 200, result: result)
        }
        let jobs = [
            job(5, "dependency"), job(20, "dependency"), job(30, "timeout"), job(40, "dependency"), job(50, "dependency"),
            FailedStartJob(unit: "other.service", time: Self.base + 25_000, result: "dependency"),
        ]
        let missed = TimerBook.missedWhileAway(timer, since: Self.base + 10_000, jobs: jobs)
        #expect(missed.map { ($0.elapse.due - Self.base, $0.cause) }.map { "\($0.0) \($0.1)" } == [
            "20200 dependency", "30200 timeout", "40000 dependency",
        ], "the job at 5 s was resolved before; the one at 50 s after the last elapse's is a start by hand")
        #expect(missed.map(\.failedAt) == [Self.base + 20_200, Self.base + 30_200, Self.base + 40_200])
    }
}
