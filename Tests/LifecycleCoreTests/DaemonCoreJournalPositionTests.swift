// SPDX-License-Identifier: Apache-2.0

@testable import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import Testing

/// When the position in PID 1's journal that the next start recovers from is saved: only once what it covers is in
/// the state files, so that a SIGKILL at any moment loses nothing.
struct DaemonCoreJournalPositionTests {
    typealias H = CoreHarness

    static func position(_ n: UInt64) -> JournalPosition {
        JournalPosition(
            cursor: "s=1;i=\(n)", bootID: "0123456789abcdef0123456789abcdef", monotonicMicroseconds: n * 1_000_000,
            realtimeMicroseconds: UInt64(H.t0) * 1_000 + n * 1_000_000
        )
    }

    @Test("the recovery's position is saved once the runs it found are saved, not before")
    func savedAfterRecovery() throws {
        var h = try H()
        h.recovery = nil
        h.send(.start)
        h.send(.listing([H.snapshot("active", "b", second: 20)]))
        var answer = RecoveryAnswer(history: H.history([("a", 1, 5, nil), ("b", 20, nil, nil)]))
        answer.position = Self.position(7)
        h.holdVersions = true
        h.send(.recovered(answer))
        #expect(h.savedPositions.isEmpty, "a run of the history still waits for its version")
        h.holdVersions = false
        for unit in h.heldVersionReads { h.send(.versionRead(unit: unit, version: "1")) }
        h.heldVersionReads = []
        #expect(h.dispatches() == ["1 launch a reconciled", "2 sleep a reconciled", "3 wake b reconciled"])
        #expect(h.savedPositions == [Self.position(7)])
        #expect(h.armed[.advanceJournalPosition] == h.now + 60_000)
    }

    @Test("while tracking, the tail read a minute earlier is saved; a loss of signals in between withholds it")
    func advancedWhileTracking() throws {
        var h = try H()
        var answer = RecoveryAnswer()
        answer.position = Self.position(1)
        h.recovery = answer
        h.send(.start)
        h.send(.listing([]))
        #expect(h.savedPositions == [Self.position(1)])
        h.journalTail = Self.position(2)
        h.fire(.advanceJournalPosition)
        #expect(h.savedPositions == [Self.position(1)], "the tail just read may be ahead of signals not handled yet")
        h.journalTail = Self.position(3)
        h.fire(.advanceJournalPosition)
        #expect(h.savedPositions == [Self.position(1), Self.position(2)])
        #expect(h.armed[.advanceJournalPosition] == h.now + 60_000)
        // Signals lost: the candidate (3) is dropped; the recovery that follows saves its own position.
        h.send(.signalsLost)
        h.recovery = RecoveryAnswer()
        h.recovery?.position = Self.position(5)
        h.journalTail = Self.position(4)
        h.fire(.advanceJournalPosition)
        #expect(h.savedPositions == [Self.position(1), Self.position(2)])
        h.send(.listing([]))
        #expect(h.savedPositions == [Self.position(1), Self.position(2), Self.position(5)])
        h.journalTail = Self.position(6)
        h.fire(.advanceJournalPosition)
        #expect(h.savedPositions.last == Self.position(5), "3, read before the loss of signals, is never saved")
    }

    @Test("a tail read while a begin waits for its version is not taken: the next one is, a moment later")
    func notWhileBusy() throws {
        var h = try H()
        h.recovery = RecoveryAnswer()
        h.send(.start)
        h.send(.listing([]))
        h.journalTail = Self.position(2)
        h.fire(.advanceJournalPosition)
        h.holdVersions = true
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        h.journalTail = Self.position(3)
        let reads = h.performed.filter { $0 == .readJournalTail }.count
        h.fire(.advanceJournalPosition)
        #expect(h.savedPositions.isEmpty, "the begin of run a, logged before position 2 perhaps, is not saved yet")
        #expect(h.performed.filter { $0 == .readJournalTail }.count == reads, "not read while it cannot be taken")
        #expect(h.armed[.advanceJournalPosition] == h.now + JournalPositionKeeper.busyRetry, "read again in a moment")
        h.holdVersions = false
        h.send(.versionRead(unit: H.unit, version: "1"))
        h.fire(.advanceJournalPosition)
        #expect(h.savedPositions == [Self.position(2)])
    }
}
