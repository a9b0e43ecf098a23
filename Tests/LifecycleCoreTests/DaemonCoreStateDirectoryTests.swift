// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import Testing

/// A state directory lifecycled cannot write: like a full disk, a reason to say so, never to stop; and, once it
/// takes a save again, no reason to stay behind: the state files catch up and the degradation ends by itself.
struct DaemonCoreStateDirectoryTests {
    typealias H = CoreHarness

    static let problem = StateDirectoryProblem(
        directory: "/var/lib/lifecycled", step: "open /var/lib/lifecycled/.lock", errno: EROFS
    )
    static let saveProblem = StateDirectoryProblem(
        directory: "/var/lib/lifecycled",
        step: "create a temporary file for /var/lib/lifecycled/units/web.service.json", errno: EROFS
    )
    static let degraded = "Degraded: cannot write the state directory /var/lib/lifecycled: Read-only file system "
        + "(EROFS) since 2026-03-01T10:00:00Z; "
    static let error = "Cannot write the state directory /var/lib/lifecycled: failed to open /var/lib/lifecycled/.lock: "
        + "Read-only file system (EROFS). Tracking goes on with the records in memory and every dispatch in the "
        + "journal; the saves are tried again, and the state files catch up as soon as the directory takes one"

    static func position(_ n: UInt64) -> JournalPosition {
        JournalPosition(
            cursor: "s=1;i=\(n)", bootID: "0123456789abcdef0123456789abcdef", monotonicMicroseconds: n * 1_000_000,
            realtimeMicroseconds: UInt64(H.t0) * 1_000 + n * 1_000_000
        )
    }

    @Test("one error at start naming the directory and errno, Degraded since then in the status, and tracking goes on")
    func unwritable() throws {
        var h = try H(stateDirectoryProblem: Self.problem)
        h.unwritable = Self.problem
        h.send(.start)
        h.send(.listing([]))
        #expect(h.logs.filter { $0.level == .error }.map(\.message) == [Self.error])
        #expect(h.notifications.contains(.ready))
        #expect(h.notifications.contains(.status(Self.degraded + "Watching 0 loaded units")))
        h.now += 500
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.dispatches() == ["1 launch a"], "the journal has the dispatch the state file could not take")
        #expect(h.saved.isEmpty)
        h.send(.connectionLost("Connection reset by peer"))
        #expect(h.notifications.last == .status(Self.degraded + "Reconnecting to the bus: Connection reset by peer"))
        #expect(h.logs.filter { $0.level == .error }.count == 1, "said once, not at each failed save")
        h.send(.stop)
        #expect(h.logs.contains(LogLine(.warning, "Stopping with 1 records the state directory did not take; the next "
            + "start catches them up from the journal")))
    }

    @Test("a failed save is retried 1, 2, 4, 5, 5 s later; the first that goes through writes the record as it stands then, and the degradation ends")
    func healsWhileRunning() throws {
        var h = try H(metricsFile: "/run/lifecycled.prom")
        h.send(.start)
        h.send(.listing([]))
        h.unwritable = Self.saveProblem
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.dispatches() == ["1 launch a"])
        let began = h.now
        #expect(h.armed[.retrySaves] == began + 1_000)
        #expect(h.notifications.last == .status(
            "Degraded: cannot write the state directory /var/lib/lifecycled: Read-only file system (EROFS) since "
                + "2026-03-01T10:00:00Z; Watching 0 loaded units"
        ))
        #expect(h.logs.filter { $0.level == .error }.map(\.message) == [
            "Cannot write the state directory /var/lib/lifecycled: failed to create a temporary file for "
                + "/var/lib/lifecycled/units/web.service.json: Read-only file system (EROFS). Tracking goes on with "
                + "the records in memory and every dispatch in the journal; the saves are tried again, and the state "
                + "files catch up as soon as the directory takes one",
        ])

        var delays: [Milliseconds] = []
        for _ in 0..<5 {
            let at = try #require(h.armed[.retrySaves])
            delays.append(at - h.now)
            h.fire(.retrySaves)
        }
        #expect(delays == [1_000, 2_000, 4_000, 5_000, 5_000])
        #expect(h.metricsWrites.last?.text.contains(#"lifecycled_degraded{what="state_directory"} 1"#) == true)
        #expect(h.saved.isEmpty)
        // The run ends while the directory is still read-only: the retry writes the record with its sleep.
        h.send(.changed(H.snapshot("inactive", "a", second: 20)))
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"])
        let performedBefore = h.performed.count
        h.fire(.retrySaves)
        #expect(h.performed[performedBefore...].filter { if case .save = $0 { true } else { false } }.count == 1,
            "a retry that fails writes one file, not every unit's")

        h.unwritable = nil
        h.fire(.retrySaves)
        #expect(h.saved.map(\.sequence) == [2], "the record as it stands, with its last dispatch")
        #expect(h.saved.last == h.core.tracker.records[H.unit])
        #expect(h.notifications.last == .status("Watching 0 loaded units"))
        #expect(h.logs.filter { $0.level == .notice }.map(\.message).last
            == "The state directory can be written again: the state files are up to date (degraded since 2026-03-01T10:00:00Z)")
        #expect(h.logs.filter { $0.level == .error }.count == 1, "no error per retry")
        h.now += 1_000
        h.fire(.writeMetrics)
        #expect(h.metricsWrites.last?.text.contains(#"lifecycled_degraded{what="state_directory"} 0"#) == true)

        // A later fault is a degradation of its own, back-off from the start.
        h.unwritable = Self.saveProblem
        h.send(.changed(H.snapshot("active", "b", second: 30)))
        #expect(h.armed[.retrySaves] == h.now + 1_000)
        #expect(h.logs.filter { $0.level == .error }.count == 2)
    }

    @Test("every unit not saved is written once one save goes through, the one with no further dispatch too, then the journal position")
    func catchesUp() throws {
        var answer = RecoveryAnswer()
        answer.position = Self.position(1)
        var h = try H()
        h.recovery = answer
        h.unwritable = Self.saveProblem
        h.send(.start)
        h.send(.listing([]))
        #expect(h.savedPositions.isEmpty)
        h.send(.changed(H.snapshot("active", "a", second: 1, unit: "web-a.service")))
        h.send(.changed(H.snapshot("active", "b", second: 2, unit: "web-b.service")))
        h.send(.changed(H.snapshot("inactive", "b", second: 3, unit: "web-b.service")))
        #expect(h.saved.isEmpty)
        #expect(h.journal.count == 3)

        h.unwritable = nil
        // An ordinary save that goes through (web-a's sleep) brings the others with it, before the retry is due.
        h.send(.changed(H.snapshot("inactive", "a", second: 4, unit: "web-a.service")))
        #expect(h.saved.map { "\($0.unit) \($0.sequence)" } == ["web-a.service 2", "web-b.service 2"])
        #expect(h.savedPositions == [Self.position(1)], "the position after every record it covers")
        #expect(!h.notifications.last.map { if case .status(let text) = $0 { text.hasPrefix("Degraded") } else { false } }!)
        let saves = h.saved.count
        h.fire(.retrySaves)
        #expect(h.saved.count == saves, "nothing left to retry")
    }

    @Test("found unwritable at start with nothing failing since: a retry rewrites a record to find out, and heals")
    func healsFromStart() throws {
        var h = try H(records: [UnitRecord(unit: H.unit, sequence: 4)], stateDirectoryProblem: Self.problem)
        h.unwritable = Self.problem
        h.send(.start)
        h.send(.listing([]))
        h.fire(.retrySaves)
        #expect(h.saved.isEmpty)
        h.unwritable = nil
        h.fire(.retrySaves)
        #expect(h.saved.map(\.sequence) == [4])
        #expect(h.notifications.last == .status("Watching 0 loaded units"))
        #expect(h.logs.last?.level == .notice)
    }

    @Test("a writable directory: no error, the status as it was")
    func writable() throws {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        #expect(h.logs.filter { $0.level == .error }.isEmpty)
        #expect(h.notifications.contains(.status("Watching 0 loaded units")))
    }
}
