// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import Testing

/// A wall clock that steps (a VM resumed, NTP's first sync, `date -s`) between a run's begin and what is compared with
/// it: within one boot the monotonic clock decides, and recorded times are compared by the clock as it was where the
/// history starts.
struct SteppedClockTests {
    typealias ID = RunEnding.MessageID
    static let hour: Milliseconds = 3_600_000
    /// The wall clock at the saved position (ms), and the monotonic clock there (µs).
    static let positionWall: Milliseconds = 1_767_225_600_000
    static let positionMonotonic: UInt64 = 50_000_000
    static let boot = "0123456789abcdef0123456789abcdef"
    static let position = JournalPosition(
        cursor: "s=1;i=2", bootID: boot, monotonicMicroseconds: positionMonotonic,
        realtimeMicroseconds: UInt64(positionWall) * 1_000
    )

    /// A begin PID 1 logged `seconds` after the position by the monotonic clock, with the wall clock `step` off.
    func begin(_ run: String, after seconds: UInt64, step: Milliseconds) -> RunEnding.Entry {
        let monotonic = Self.positionMonotonic + seconds * 1_000_000
        return RunEnding.Entry(
            messageID: ID.unitStarted, time: Self.positionWall + Milliseconds(seconds) * 1_000 + step,
            fields: ["UNIT": "a.service", "INVOCATION_ID": run], monotonicMicroseconds: monotonic,
            positionTime: Self.position.wallClock(ofMonotonic: monotonic, boot: Self.boot)
        )
    }

    @Test("the position's clock: a moment of its boot by the monotonic clock; none for another boot")
    func positionClock() {
        #expect(Self.position.wallClock(ofMonotonic: Self.positionMonotonic + 2_000_000, boot: Self.boot) == Self.positionWall + 2_000)
        #expect(Self.position.wallClock(ofMonotonic: Self.positionMonotonic - 1_000_000, boot: Self.boot) == Self.positionWall - 1_000)
        #expect(Self.position.wallClock(ofMonotonic: 1, boot: "ffffffffffffffffffffffffffffffff") == nil)
    }

    @Test("runs after a clock stepped back two hours still count as after the recorded time")
    func stepBackKeepsRuns() {
        // Recorded until 10 s before the position; the clock then went back two hours, and two runs began.
        let history = RunHistory(entries: [
            begin("a1", after: 5, step: -2 * Self.hour), begin("a2", after: 9, step: -2 * Self.hour),
        ])
        #expect(history.runs["a.service"]?.map(\.began) == [Self.positionWall + 5_000 - 2 * Self.hour, Self.positionWall + 9_000 - 2 * Self.hour])
        let recordedUntil = Self.positionWall - 10_000
        #expect(history.runs(of: "a.service", after: "lost", recordedUntil: recordedUntil).map(\.invocationID) == ["a1", "a2"])
    }

    @Test("a clock stepped forward does not make a recorded run new")
    func stepForwardKeepsOrder() {
        let history = RunHistory(entries: [
            begin("a1", after: 5, step: 2 * Self.hour), begin("a2", after: 20, step: 2 * Self.hour),
        ])
        // Recorded until 10 s after the position (a1 was seen while tracking): only a2 is new.
        let recordedUntil = Self.positionWall + 10_000
        #expect(history.runs(of: "a.service", after: "lost", recordedUntil: recordedUntil).map(\.invocationID) == ["a2"])
    }

    @Test("without a position, runs are ordered by the wall clock as before")
    func noPosition() {
        let run = RunHistory.Run(invocationID: "a1", began: 100, ending: nil)
        #expect(run.beganInOrder == 100)
        #expect(run.beganMonotonic == nil)
    }

    @Test("a snapshot ends a run by the monotonic clock, whatever the wall clock did between them")
    func predatesByMonotonic() {
        // The run began at monotonic 100 s; the unit stopped at monotonic 130 s, after the clock went back an hour.
        let stopped = UnitSnapshot(
            name: "a.service", activeState: .inactive, subState: "dead", invocationID: "r1",
            stateChangeTimestamp: UInt64(Self.positionWall - Self.hour) * 1_000, stateChangeTimestampMonotonic: 130_000_000
        )
        #expect(stopped.predates(Self.positionWall, monotonic: 100_000_000) == false)
        #expect(stopped.predates(Self.positionWall) == true)  // by the wall clock alone it would seem older
        // A re-announcement older than the begin by the monotonic clock, though later by a clock stepped forward.
        let older = UnitSnapshot(
            name: "a.service", activeState: .inactive, subState: "dead", invocationID: "r1",
            stateChangeTimestamp: UInt64(Self.positionWall + Self.hour) * 1_000, stateChangeTimestampMonotonic: 90_000_000
        )
        #expect(older.predates(Self.positionWall, monotonic: 100_000_000) == true)
        #expect(older.predates(Self.positionWall) == false)
    }

    @Test("the mapper takes a recovered begin's monotonic time: a stop after a step back still ends the run")
    func mapperUsesMonotonic() {
        var mapper = SystemdUnitMapper()
        mapper.note(MappedTransition(
            unit: "a.service", transition: .began, invocationID: "r1", time: Self.positionWall,
            monotonicMicroseconds: 100_000_000, isReconciled: true
        ))
        let stopped = UnitSnapshot(
            name: "a.service", activeState: .inactive, subState: "dead", invocationID: "r1", result: "success",
            stateChangeTimestamp: UInt64(Self.positionWall - Self.hour) * 1_000, stateChangeTimestampMonotonic: 130_000_000
        )
        #expect(mapper.map(stopped).map(\.transition) == [.endedCleanly])
    }
}
