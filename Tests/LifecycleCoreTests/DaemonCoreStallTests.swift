// SPDX-License-Identifier: Apache-2.0

@testable import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import Testing

/// An answer that never comes: SIGTERM waits for the work in hand only for a while, and the watchdog is no longer
/// told lifecycled is alive, so that systemd restarts it.
struct DaemonCoreStallTests {
    typealias H = CoreHarness

    /// Tracking, with a begin of web.service waiting for its version.
    func awaitingAVersion() throws -> H {
        var h = try DaemonCoreDeliveryTests().tracking()
        h.holdVersions = true
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        return h
    }

    /// ``awaitingAVersion()``, when SIGTERM comes.
    func stoppedWhileAVersionIsRead() throws -> H {
        var h = try awaitingAVersion()
        h.send(.stop)
        return h
    }

    @Test("SIGTERM behind a begin waiting for its version: the answer comes, the begin is recorded, then lifecycled exits")
    func stopWaitsForTheWorkInHand() throws {
        var h = try stoppedWhileAVersionIsRead()
        #expect(!h.performed.contains(.exit), "the begin is in hand")
        #expect(h.armed[.stopDeadline] == h.now + DaemonCore.stopPatience)
        h.send(.versionRead(unit: H.unit, version: "1"))
        #expect(h.dispatches() == ["1 launch a"])
        #expect(h.performed.last == .exit)
    }

    @Test("SIGTERM behind a version read that never answers: lifecycled exits at the deadline, the record untouched")
    func stopDoesNotWaitForGood() throws {
        var h = try stoppedWhileAVersionIsRead()
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        h.fire(.stopDeadline)
        #expect(h.performed.last == .exit)
        #expect(h.dispatches().isEmpty, "the run is recovered from PID 1's journal by the next start")
        #expect(h.saved.allSatisfy { $0.sequence == 0 }, "no record holds what was not dispatched")
        #expect(h.logs.contains { $0.level == .warning && $0.message.contains("the version of \(H.unit)") })
    }

    @Test("an answer awaited beyond the stall limit: no watchdog ping, said once a ping is due; pings again once answered")
    func watchdogWithheldWhileStalled() throws {
        var h = try awaitingAVersion()
        func pings(_ h: H) -> Int { h.notifications.filter { $0 == .watchdog }.count }
        h.now += DaemonCore.stallLimit
        h.send(.timer(.watchdog))
        #expect(pings(h) == 1, "a slow answer is no stall")
        h.now += 1_000
        h.send(.timer(.watchdog))
        #expect(pings(h) == 1)
        #expect(h.logs.contains { $0.level == .error && $0.message.contains("No answer for 121 s to the version of \(H.unit)") })
        h.send(.versionRead(unit: H.unit, version: "1"))
        #expect(h.dispatches() == ["1 launch a"])
        h.send(.timer(.watchdog))
        #expect(pings(h) == 2)
    }
}
