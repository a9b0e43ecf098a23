// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import Testing

/// A state directory lifecycled cannot write: like a full disk, a reason to say so, never to stop.
struct DaemonCoreStateDirectoryTests {
    typealias H = CoreHarness

    static let problem = StateDirectoryProblem(
        directory: "/var/lib/lifecycled", step: "open /var/lib/lifecycled/.lock", errno: EROFS
    )

    @Test("one error at start naming the directory and errno, Degraded in the status, and tracking and saves go on")
    func unwritable() throws {
        var h = try H(stateDirectoryProblem: Self.problem)
        h.send(.start)
        h.send(.listing([]))
        #expect(h.logs.filter { $0.level == .error }.map(\.message) == [
            "Cannot write the state directory /var/lib/lifecycled: failed to open /var/lib/lifecycled/.lock: "
                + "Read-only file system (EROFS). Tracking goes on with the records in memory and every dispatch in "
                + "the journal; each save is tried again, and the next start with a writable directory catches up "
                + "from the journal",
        ])
        let degraded = "Degraded: cannot write the state directory /var/lib/lifecycled: Read-only file system (EROFS); "
        #expect(h.notifications.contains(.ready))
        #expect(h.notifications.contains(.status(degraded + "Watching 0 loaded units")))
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.dispatches() == ["1 launch a"])
        #expect(h.saved.map(\.sequence) == [1])
        h.send(.connectionLost("Connection reset by peer"))
        #expect(h.notifications.last == .status(degraded + "Reconnecting to the bus: Connection reset by peer"))
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
