// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleSystemd
import LifecycleTestSupport
import Testing

/// What happens when the bus goes away: the closest a private bus gets to `systemctl restart dbus`.
@Suite(.enabled(if: PrivateBus.isAvailable, "dbus-daemon is not installed"))
struct SystemdUnitSourceReconnectTests {
    @Test("reports a lost connection and reconnects, re-subscribes and resyncs once the bus is back")
    func reconnect() async throws {
        let daemon = try PrivateBus.start()
        defer { daemon.stop() }
        let systemd = try await FakeSystemd.start(address: daemon.address, units: [UnitFixtures.web])
        let events = EventRecorder()
        let source = try SystemdUnitSource(
            address: .address(daemon.socketAddress), patterns: [try UnitPattern("web.service")],
            reconnectPolicy: UnitFixtures.fastReconnect, logger: UnitFixtures.logger(), eventHandler: events.handler
        )
        try await source.start()
        try await events.expectNext(.initial([UnitFixtures.webSnapshot]))

        daemon.kill()
        guard case .connectionLost(let error) = try await events.nextAfterSignalsLost() else {
            Issue.record("expected connectionLost")
            return
        }
        #expect(error.operation.hasPrefix("process messages"))
        await systemd.close()

        // Same socket path, new daemon: the source's retries now reach it, and find systemd there again.
        try daemon.launch()
        var restarted = UnitFixtures.web
        restarted.unitProperties = UnitFixtures.unitProperties(
            active: "failed", sub: "failed", invocation: UnitFixtures.invocation, timestamp: 7
        )
        let successor = try await FakeSystemd.start(address: daemon.address, units: [restarted])
        var expected = UnitFixtures.webSnapshot
        expected.activeState = .failed
        expected.subState = "failed"
        expected.stateChangeTimestamp = 7
        expected.stateChangeTimestampMonotonic = 0
        // Failed: the .Service values are read too.
        let listed = UnitSourceEvent.initial([UnitFixtures.withServiceValues(expected)])
        try await events.expectNext(listed, timeout: .seconds(20))
        #expect(successor.calls.subscribe >= 1)

        // Signals flow on the new connection. systemd's bus name may have changed owner while the source set up,
        // which asks for one more listing of the same state first.
        try await successor.emitManagerSignal("Reloading", [.bool(true)])
        var event = try await events.next()
        while event == listed { event = try await events.next() }
        #expect(event == .reloading(true))

        await source.stop()
        await successor.close()
    }

    @Test("stops cleanly while it is still trying to reconnect")
    func stopWhileReconnecting() async throws {
        let daemon = try PrivateBus.start()
        defer { daemon.stop() }
        let systemd = try await FakeSystemd.start(address: daemon.address, units: [])
        let events = EventRecorder()
        let source = try SystemdUnitSource(
            address: .address(daemon.address), patterns: [],
            reconnectPolicy: UnitFixtures.fastReconnect, logger: UnitFixtures.logger(), eventHandler: events.handler
        )
        try await source.start()
        try await events.expectNext(.initial([]))
        daemon.kill()
        guard case .connectionLost = try await events.nextAfterSignalsLost() else {
            Issue.record("expected connectionLost")
            return
        }
        try await Task.sleep(for: .milliseconds(300))  // a few failed attempts
        await source.stop()
        #expect(events.pending.isEmpty)
        #expect(source.thread.isTerminated)
        await systemd.close()
    }

    @Test("fails to start when nobody serves org.freedesktop.systemd1")
    func startWithoutSystemd() async throws {
        let daemon = try PrivateBus.start()
        defer { daemon.stop() }
        let source = try SystemdUnitSource(
            address: .address(daemon.address), patterns: [], logger: UnitFixtures.logger(), eventHandler: { _ in }
        )
        let error = await #expect(throws: SystemdError.self) { try await source.start() }
        // ServiceUnknown, or a failed activation where a session service file for systemd --user is installed.
        let expectedErrors: Set<String?> = [
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.Spawn.ChildExited",
        ]
        #expect(expectedErrors.contains(error?.busErrorName))
        #expect(error?.operation == "call Subscribe")
        await source.stop()
        #expect(source.thread.isTerminated)
    }
}
