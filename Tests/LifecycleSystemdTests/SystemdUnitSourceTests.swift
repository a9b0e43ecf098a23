// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
import LifecycleSystemd
import LifecycleTestSupport
import Testing

/// The unit source against a fake `org.freedesktop.systemd1` on a private bus.
@Suite(.enabled(if: PrivateBus.isAvailable, "dbus-daemon is not installed"))
struct SystemdUnitSourceTests {
    /// A private bus, a fake manager on it, and a started source watching `*.service`.
    struct Fixture {
        let daemon: PrivateBus
        let systemd: FakeSystemd
        let source: SystemdUnitSource
        let events: EventRecorder

        /// Runs `body` with a started fixture and tears everything down afterwards, also when `body` throws.
        static func run(
            units: [FakeSystemd.Unit] = [UnitFixtures.web, UnitFixtures.ghost, UnitFixtures.socket],
            _ body: (Fixture) async throws -> Void
        ) async throws {
            let daemon = try PrivateBus.start()
            defer { daemon.stop() }
            let systemd = try await FakeSystemd.start(address: daemon.address, units: units)
            let events = EventRecorder()
            let source = try SystemdUnitSource(
                address: .address(daemon.address), patterns: [try UnitPattern("*.service")],
                reconnectPolicy: UnitFixtures.fastReconnect, logger: UnitFixtures.logger(), eventHandler: events.handler
            )
            let fixture = Fixture(daemon: daemon, systemd: systemd, source: source, events: events)
            do {
                try await source.start()
                try await body(fixture)
            } catch {
                await source.stop()
                await systemd.close()
                throw error
            }
            await source.stop()
            await systemd.close()
        }
    }

    @Test("lists loaded matching units and reads each one's properties once")
    func initialSnapshot() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            let calls = fixture.systemd.calls
            #expect(calls.subscribe == 1)
            #expect(calls.listUnits == 1)
            // Never GetAll (PID 1 would compute UnitFileState); state comes with the listing. Never ghost.service
            // (not-found: reading it would load it) nor db.socket (not watched).
            #expect(calls.getAll.isEmpty)
            #expect(calls.get == Self.fullReads)
        }
    }

    @Test("turns a Service then Unit PropertiesChanged pair into one snapshot, for watched units only")
    func propertiesChanged() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            let newInvocation: [UInt8] = Array(repeating: 0xab, count: 15) + [0x01]
            // A unit the source has never seen, with a name that needs escaping in its object path.
            try await fixture.systemd.emitPropertiesChanged(
                unit: "worker@a-1.service", interface: "org.freedesktop.systemd1.Service",
                UnitFixtures.serviceProperties(result: "signal", nRestarts: 3, code: 2, status: 9, mainPID: 0)
            )
            try await fixture.systemd.emitPropertiesChanged(
                unit: "worker@a-1.service", interface: "org.freedesktop.systemd1.Unit",
                UnitFixtures.unitProperties(
                    active: "failed", sub: "failed", invocation: newInvocation, timestamp: 42, job: 7
                )
            )
            // Not watched, right after a watched unit's signal, with an object path of the same length: must
            // produce nothing (the last path's unit is kept, and only that very path may reuse it).
            try await fixture.systemd.emitPropertiesChanged(
                unit: "worker@a-1.socket0", interface: "org.freedesktop.systemd1.Unit",
                UnitFixtures.unitProperties(active: "inactive", sub: "dead", invocation: newInvocation, timestamp: 43)
            )
            // Not watched: must produce nothing.
            try await fixture.systemd.emitPropertiesChanged(
                unit: "db.socket", interface: "org.freedesktop.systemd1.Unit",
                UnitFixtures.unitProperties(active: "inactive", sub: "dead", invocation: [], timestamp: 43)
            )
            // The unit from the listing changes state; its Service values stay as last read.
            try await fixture.systemd.emitPropertiesChanged(
                unit: "web.service", interface: "org.freedesktop.systemd1.Unit",
                UnitFixtures.unitProperties(
                    active: "deactivating", sub: "stop-sigterm", invocation: UnitFixtures.invocation, timestamp: 44_000
                )
            )
            let worker = UnitSnapshot(
                name: "worker@a-1.service", activeState: .failed, subState: "failed",
                invocationID: String(repeating: "ab", count: 15) + "01", result: "signal", nRestarts: 3,
                execMainCode: 2, execMainStatus: 9, mainPID: 0, freezerState: "running", stateChangeTimestamp: 42,
                stateChangeTimestampMonotonic: 0, jobID: 7
            )
            try await fixture.events.expectNext(.changed(worker))
            var web = UnitFixtures.webSnapshot
            web.activeState = .deactivating
            web.subState = "stop-sigterm"
            web.stateChangeTimestamp = 44_000
            web.stateChangeTimestampMonotonic = 44
            try await fixture.events.expectNext(.changed(web))
        }
    }

    @Test("a Service signal is parsed only when the Unit one after it shows an end")
    func serviceSignalParsedForTheEnd() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            // Starting again: the Service values go unread, so the snapshot keeps those of the end before.
            try await fixture.systemd.emitPropertiesChanged(
                unit: "web.service", interface: "org.freedesktop.systemd1.Service",
                UnitFixtures.serviceProperties(result: "success", nRestarts: 2, code: 0, status: 0, mainPID: 99)
            )
            try await fixture.systemd.emitPropertiesChanged(
                unit: "web.service", interface: "org.freedesktop.systemd1.Unit",
                UnitFixtures.unitProperties(
                    active: "deactivating", sub: "stop-sigterm", invocation: UnitFixtures.invocation, timestamp: 44_000
                )
            )
            var stopping = UnitFixtures.webSnapshot
            stopping.activeState = .deactivating
            stopping.subState = "stop-sigterm"
            stopping.stateChangeTimestamp = 44_000
            stopping.stateChangeTimestampMonotonic = 44
            try await fixture.events.expectNext(.changed(stopping))
            // The end: its Service values are read.
            try await fixture.systemd.emitPropertiesChanged(
                unit: "web.service", interface: "org.freedesktop.systemd1.Service",
                UnitFixtures.serviceProperties(result: "signal", nRestarts: 2, code: 2, status: 9, mainPID: 0)
            )
            try await fixture.systemd.emitPropertiesChanged(
                unit: "web.service", interface: "org.freedesktop.systemd1.Unit",
                UnitFixtures.unitProperties(
                    active: "failed", sub: "failed", invocation: UnitFixtures.invocation, timestamp: 45_000
                )
            )
            var failed = stopping
            failed.activeState = .failed
            failed.subState = "failed"
            failed.stateChangeTimestamp = 45_000
            failed.stateChangeTimestampMonotonic = 45
            failed.result = "signal"
            failed.nRestarts = 2
            failed.execMainCode = 2
            failed.execMainStatus = 9
            failed.mainPID = 0
            try await fixture.events.expectNext(.changed(failed))
        }
    }

    @Test("signals in PID 1's order: every value used is read, however many properties follow the last of them")
    func signalsInPID1Order() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            let invocation: [UInt8] = Array(repeating: 0x0d, count: 16)
            try await fixture.systemd.emitPropertiesChanged(
                unit: "oneshot-1.service", interface: "org.freedesktop.systemd1.Service",
                UnitFixtures.servicePropertiesInPID1Order(result: "exit-code", code: 1, status: 3)
            )
            try await fixture.systemd.emitPropertiesChanged(
                unit: "oneshot-1.service", interface: "org.freedesktop.systemd1.Unit",
                UnitFixtures.unitPropertiesInPID1Order(
                    active: "failed", sub: "failed", invocation: invocation, monotonic: 9
                )
            )
            var ended = UnitSnapshot(
                name: "oneshot-1.service", activeState: .failed, subState: "failed",
                invocationID: String(repeating: "0d", count: 16), result: "exit-code", nRestarts: 0,
                execMainCode: 1, execMainStatus: 3, mainPID: 0, freezerState: "running",
                stateChangeTimestamp: 1_000_009,
                stateChangeTimestampMonotonic: 9, jobID: 0
            )
            ended.inactiveExitMonotonic = 1
            ended.activeEnterMonotonic = 2
            ended.inactiveEnterMonotonic = 9
            try await fixture.events.expectNext(.changed(ended))
        }
    }

    @Test("forwards UnitRemoved and JobRemoved of watched units, and ignores UnitNew")
    func managerSignals() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            // UnitNew must not make the source read the unit: that would load it (and loop with GC).
            try await fixture.systemd.emitManagerSignal("UnitNew", [
                .string("new.service"), .objectPath("/org/freedesktop/systemd1/unit/new_2eservice"),
            ])
            try await fixture.systemd.emitManagerSignal("UnitRemoved", [.string("db.socket"), .objectPath("/x")])
            try await fixture.systemd.emitManagerSignal("JobRemoved", [
                .uint32(9), .objectPath("/org/freedesktop/systemd1/job/9"), .string("web.service"), .string("failed"),
            ])
            try await fixture.systemd.emitManagerSignal("UnitRemoved", [
                .string("web.service"), .objectPath("/org/freedesktop/systemd1/unit/web_2eservice"),
            ])
            // Read running, web.service has no Result yet: only an end's snapshot uses it.
            try await fixture.events.expectNext(.jobRemoved(unit: "web.service", jobID: 9, result: "failed", unitResult: nil))
            try await fixture.events.expectNext(.removed("web.service"))
            #expect(fixture.systemd.calls.get == Self.fullReads)  // only the initial listing's
            // A removed unit is no longer loaded: reading its details must not touch the bus.
            await #expect(throws: SystemdError.self) {
                try await fixture.source.details(of: "web.service", invocationID: UnitFixtures.invocationHex)
            }
            #expect(fixture.systemd.calls.get == Self.fullReads)
        }
    }

    @Test("re-subscribes and resyncs after Reloading(false)")
    func reload() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            try await fixture.systemd.emitManagerSignal("Reloading", [.bool(true)])
            try await fixture.systemd.emitManagerSignal("Reloading", [.bool(false)])
            try await fixture.events.expectNext(.reloading(true))
            try await fixture.events.expectNext(.reloading(false))
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            let calls = fixture.systemd.calls
            #expect(calls.subscribe == 2)
            #expect(calls.alreadySubscribed == 1)
            #expect(calls.listUnits == 2)
        }
    }

    @Test("tries a failed resync again with back-off until it succeeds")
    func failedResyncIsRetried() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            fixture.systemd.failListings(2)
            try await fixture.systemd.emitManagerSignal("Reloading", [.bool(true)])
            try await fixture.systemd.emitManagerSignal("Reloading", [.bool(false)])
            try await fixture.events.expectNext(.reloading(true))
            try await fixture.events.expectNext(.reloading(false))
            // Nothing else asks for a resync: without the retries no initial would come.
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            #expect(fixture.systemd.calls.listUnits == 4)
        }
    }

    @Test("stops at once while a failed resync waits to try again")
    func stopWhileRetryingResync() async throws {
        let daemon = try PrivateBus.start()
        defer { daemon.stop() }
        let systemd = try await FakeSystemd.start(address: daemon.address, units: [UnitFixtures.web])
        let events = EventRecorder()
        let source = try SystemdUnitSource(
            address: .address(daemon.address), patterns: [try UnitPattern("*.service")],
            reconnectPolicy: ReconnectPolicy(initialDelay: .seconds(60), maximumDelay: .seconds(60)),
            logger: UnitFixtures.logger(), eventHandler: events.handler
        )
        try await source.start()
        try await events.expectNext(.initial([UnitFixtures.webSnapshot]))
        systemd.failListings(1)
        try await systemd.emitManagerSignal("Reloading", [.bool(false)])
        try await events.expectNext(.reloading(false))
        while systemd.calls.listUnits < 2 { try await Task.sleep(for: .milliseconds(10)) }
        let stopping = ContinuousClock.now
        await source.stop()
        #expect(ContinuousClock.now - stopping < .seconds(10))
        #expect(events.pending.isEmpty)
        await systemd.close()
    }

    @Test("after a reload, reads only each known unit's StateChangeTimestampMonotonic, and a moved unit in full")
    func reloadReadsLittle() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            // PID 1 unloads and loads every unit again; the source keeps what it knew of web.service.
            try await reload(fixture, unit: "web.service")
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            #expect(fixture.systemd.calls.get == Self.fullReads + [
                "web.service org.freedesktop.systemd1.Unit.StateChangeTimestampMonotonic",
            ])
            #expect(fixture.systemd.calls.getAll.isEmpty)

            // Restarted during the next reload: a change PID 1 announces with UnitNew only, and the same state.
            let newInvocation: [UInt8] = Array(repeating: 7, count: 16)
            fixture.systemd.update("web.service") { unit in
                unit.unitProperties = UnitFixtures.unitProperties(
                    active: "active", sub: "running", invocation: newInvocation, timestamp: 1_763_000_001_000_000
                )
            }
            try await reload(fixture, unit: "web.service")
            var restarted = UnitFixtures.webSnapshot
            restarted.invocationID = String(repeating: "07", count: 16)
            restarted.stateChangeTimestamp = 1_763_000_001_000_000
            restarted.stateChangeTimestampMonotonic = 1_763_000_001_000
            try await fixture.events.expectNext(.initial([restarted]))
            #expect(fixture.systemd.calls.get == Self.fullReads + [
                "web.service org.freedesktop.systemd1.Unit.StateChangeTimestampMonotonic",
                "web.service org.freedesktop.systemd1.Unit.StateChangeTimestampMonotonic",
            ] + Self.fullReads)
        }
    }

    /// What PID 1 sends for a daemon-reload of one unit, and the events it gives before the resync's `initial`.
    private func reload(_ fixture: Fixture, unit: String) async throws {
        let path = try BusObjectPath.encode(prefix: FakeSystemd.unitPrefix, externalID: unit).rawValue
        try await fixture.systemd.emitManagerSignal("Reloading", [.bool(true)])
        try await fixture.systemd.emitManagerSignal("UnitRemoved", [.string(unit), .objectPath(path)])
        try await fixture.systemd.emitManagerSignal("UnitNew", [.string(unit), .objectPath(path)])
        try await fixture.systemd.emitManagerSignal("Reloading", [.bool(false)])
        try await fixture.events.expectNext(.reloading(true))
        try await fixture.events.expectNext(.removed(unit))
        try await fixture.events.expectNext(.reloading(false))
    }

    /// The `Get`s that read web.service in full: what the listing does not give. It is running, so not its `.Service`
    /// values, which only an end uses.
    static let fullReads = [
        "InvocationID", "FreezerState", "StateChangeTimestamp", "StateChangeTimestampMonotonic",
    ].map { "web.service org.freedesktop.systemd1.Unit.\($0)" }

    @Test("resyncs when org.freedesktop.systemd1 gets a new owner")
    func ownerChange() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            await fixture.systemd.close()
            try await fixture.events.expectNext(.signalsLost)
            var restarted = UnitFixtures.web
            restarted.unitProperties = UnitFixtures.unitProperties(
                active: "activating", sub: "start", invocation: Array(repeating: 1, count: 16), timestamp: 99_000
            )
            let successor = try await FakeSystemd.start(address: fixture.daemon.address, units: [restarted])
            var expected = UnitFixtures.webSnapshot
            expected.activeState = .activating
            expected.subState = "start"
            expected.invocationID = String(repeating: "01", count: 16)
            expected.stateChangeTimestamp = 99_000
            expected.stateChangeTimestampMonotonic = 99
            // Activating: the .Service values are read too.
            try await fixture.events.expectNext(.initial([UnitFixtures.withServiceValues(expected)]))
            // A new manager has no subscriptions: the source subscribed anew.
            #expect(successor.calls.subscribe == 1)
            #expect(successor.calls.alreadySubscribed == 0)
            await successor.close()
        }
    }

    @Test("reads ExecStart, FragmentPath, DropInPaths and Environment of a watched unit's run, by invocation ID")
    func details() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            // A run that is over (its unit collected, or started again) is not asked about by name, which would
            // load the unit again: PID 1 answers NoUnitForInvocationID, an ENOENT.
            let gone = await #expect(throws: SystemdError.self) {
                try await fixture.source.details(of: "web.service", invocationID: String(repeating: "ab", count: 16))
            }
            #expect(gone?.errno == ENOENT)
            #expect(gone?.busErrorName == "org.freedesktop.systemd1.NoUnitForInvocationID")
            let details = try await fixture.source.details(of: "web.service", invocationID: UnitFixtures.invocationHex)
            #expect(details == UnitDetails(
                mainExecutable: "/usr/sbin/web", fragmentPath: "/etc/systemd/system/web.service",
                dropInPaths: ["/etc/systemd/system/web.service.d/10-limits.conf"],
                environment: ["VERSION=2.4.1", "MODE=prod"]
            ))
            let error = await #expect(throws: SystemdError.self) {
                try await fixture.source.details(of: "ghost.service", invocationID: UnitFixtures.invocationHex)
            }
            #expect(error?.errno == ENOENT)
            #expect(fixture.systemd.calls.get == Self.fullReads + [
                "web.service org.freedesktop.systemd1.Unit.FragmentPath",
                "web.service org.freedesktop.systemd1.Unit.DropInPaths",
                "web.service org.freedesktop.systemd1.Service.ExecStart",
                "web.service org.freedesktop.systemd1.Service.Environment",
            ])
            #expect(fixture.systemd.calls.getAll.isEmpty)
        }
    }

    @Test("keeps a unit's definition for its next runs, until PID 1 loads the unit again")
    func detailsKept() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            let versionReads = [
                "web.service org.freedesktop.systemd1.Unit.FragmentPath",
                "web.service org.freedesktop.systemd1.Unit.DropInPaths",
                "web.service org.freedesktop.systemd1.Service.ExecStart",
                "web.service org.freedesktop.systemd1.Service.Environment",
            ]
            let first = try await fixture.source.details(of: "web.service", invocationID: UnitFixtures.invocationHex)
            let again = try await fixture.source.details(of: "web.service", invocationID: UnitFixtures.invocationHex)
            #expect(again == first)
            #expect(fixture.systemd.calls.get == Self.fullReads + versionReads, "the second run asks nothing")

            // A reload may have changed the unit's files: read again.
            try await reload(fixture, unit: "web.service")
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            _ = try await fixture.source.details(of: "web.service", invocationID: UnitFixtures.invocationHex)
            #expect(fixture.systemd.calls.get.suffix(4) == ArraySlice(versionReads))
            #expect(fixture.systemd.calls.get.count == Self.fullReads.count + 1 + 4 + 4)
        }
    }

    @Test("reads ahead the definitions of loaded units about to start, only the parts asked for, and no more later")
    func prefetch() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            await fixture.source.prefetchDetails(of: [
                ("web.service", UnitFixtures.invocationHex, .mainExecutable),
                ("ghost.service", UnitFixtures.invocationHex, .mainExecutable),
            ])
            let afterPrefetch = fixture.systemd.calls.get
            #expect(afterPrefetch == Self.fullReads + [
                "web.service org.freedesktop.systemd1.Service.ExecStart",
            ], "one property for the executable, nothing for a unit that is not loaded")
            let details = try await fixture.source.details(
                of: "web.service", invocationID: UnitFixtures.invocationHex, reading: .mainExecutable
            )
            #expect(details == UnitDetails(mainExecutable: "/usr/sbin/web"))
            #expect(fixture.systemd.calls.get == afterPrefetch)

            // Another part (a rule with another version source) is read then, and kept with the first.
            let more = try await fixture.source.details(
                of: "web.service", invocationID: UnitFixtures.invocationHex, reading: [.mainExecutable, .unitFiles]
            )
            #expect(more == UnitDetails(
                mainExecutable: "/usr/sbin/web", fragmentPath: "/etc/systemd/system/web.service",
                dropInPaths: ["/etc/systemd/system/web.service.d/10-limits.conf"]
            ))
            #expect(fixture.systemd.calls.get == afterPrefetch + [
                "web.service org.freedesktop.systemd1.Unit.FragmentPath",
                "web.service org.freedesktop.systemd1.Unit.DropInPaths",
            ])
        }
    }

    @Test("reports nothing and ends its thread on stop; later calls fail instead of hanging")
    func stop() async throws {
        try await Fixture.run { fixture in
            try await fixture.events.expectNext(.initial([UnitFixtures.webSnapshot]))
            await fixture.source.stop()
            try await fixture.systemd.emitManagerSignal("Reloading", [.bool(true)])
            try await Task.sleep(for: .milliseconds(100))
            #expect(fixture.events.pending.isEmpty)
            #expect(fixture.source.thread.isTerminated)
            await fixture.source.stop()  // idempotent
            let error = await #expect(throws: SystemdError.self) {
                try await fixture.source.details(of: "web.service", invocationID: UnitFixtures.invocationHex)
            }
            #expect(error?.errno == ENOTCONN)
        }
    }
}
