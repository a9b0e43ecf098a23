// SPDX-License-Identifier: Apache-2.0

import Foundation
@testable import LifecycleDaemon
import LifecycleCore
import LifecycleEngine
import LifecycleStorage
import LifecycleSystemd
import Logging
import LifecycleTestSupport
import Synchronization
import Testing

@Suite(.enabled(if: PrivateBus.isAvailable, "dbus-daemon is not installed"))
struct ManagerObjectTests {
    static let data: @Sendable (BusMessage) throws(SystemdError) -> Void = { message throws(SystemdError) in
        try message.append("job-1.service")
        try message.append(["run": "nightly", "empty": ""])
    }

    @Test("Launch, Wake, Sleep and Track reply with the sequence and pass unit, event and data on")
    func events() async throws {
        let fixture = try await ManagerFixture()
        var sequences: [UInt64] = []
        for method in ["Launch", "Sleep", "Wake"] {
            sequences.append(try await fixture.call(method, arguments: Self.data) { reply throws(SystemdError) in
                try UInt64(from: reply)
            })
        }
        sequences.append(try await fixture.call("Track", arguments: { message throws(SystemdError) in
            try message.append("job-1.service")
            try message.append("backup-done")
            try message.append(["bytes": "42"])
        }) { reply throws(SystemdError) in try UInt64(from: reply) })
        #expect(sequences == [1, 2, 3, 4])
        let data: [String: JSONValue] = ["run": .string("nightly"), "empty": .string("")]
        #expect(await fixture.requests.sent == [
            EventRequest(unit: "job-1.service", event: .lifecycle(.launch), data: data),
            EventRequest(unit: "job-1.service", event: .lifecycle(.sleep), data: data),
            EventRequest(unit: "job-1.service", event: .lifecycle(.wake), data: data),
            EventRequest(unit: "job-1.service", event: .custom("backup-done"), data: ["bytes": .string("42")]),
        ])
        await fixture.stop()
    }

    @Test("GetUnit and ListUnits reply with the records as in the state files, keys sorted")
    func records() async throws {
        let fixture = try await ManagerFixture()
        var state = UnitState()
        state.launchCount = 3
        let id = "0123456789abcdef0123456789abcdef"
        let a = UnitRecord(unit: "a.service", state: state, invocationID: id, sequence: 7)
        let b = UnitRecord(unit: "b.service")
        await fixture.requests.store(b)
        await fixture.requests.store(a)
        let one: String = try await fixture.call("GetUnit", arguments: { message throws(SystemdError) in
            try message.append("a.service")
        }) { reply throws(SystemdError) in try reply.readString() }
        #expect(try JSONDecoder().decode(UnitRecord.self, from: Data(one.utf8)) == a)
        #expect(one.hasPrefix(#"{"invocation_id":"0123456789abcdef0123456789abcdef","schema_version":1,"sequence":7,"#))
        let all: String = try await fixture.call("ListUnits") { reply throws(SystemdError) in try reply.readString() }
        #expect(try JSONDecoder().decode([UnitRecord].self, from: Data(all.utf8)) == [a, b])
        await fixture.stop()
    }

    @Test("GetStatus replies with what is degraded, since when and why; an empty list while nothing is")
    func status() async throws {
        let fixture = try await ManagerFixture()
        let reply: (ManagerFixture) async throws -> String = { fixture in
            try await fixture.call("GetStatus") { reply throws(SystemdError) in try reply.readString() }
        }
        #expect(try await reply(fixture) == #"{"degraded":[]}"#)
        await fixture.requests.degrade(
            .stateDirectory, reason: "cannot write the state directory /var/lib/lifecycled: Read-only file system (EROFS)",
            since: 1_772_359_200_000
        )
        #expect(try await reply(fixture) == #"{"degraded":[{"reason":"cannot write the state directory "#
            + #"/var/lib/lifecycled: Read-only file system (EROFS)","since":"2026-03-01T10:00:00Z","#
            + #""what":"state_directory"}]}"#)
        await fixture.stop()
    }

    @Test(
        "a refused event is an error reply with its D-Bus name and a message saying what was wrong",
        arguments: [
            (EventRequestError.refused(.manualTrackNotAllowed), ManagerError.manualTrackNotAllowed,
             "Refused launch of job-1.service: Manual"),
            (.refused(.invalidEventOrder), ManagerError.invalidEventOrder,
             "Refused launch of job-1.service: Invalid lifecycle event order"),
            (.unknownUnit("job-1.service"), ManagerError.unknownUnit, "Unit job-1.service is not watched"),
            (.invalidArgument("Too much data: 99 keys, at most 64."), ManagerError.invalidArgument, "Too much data"),
            (.stopping, ManagerError.failed, "lifecycled is stopping: the event was not recorded"),
        ]
    )
    func refusals(refusal: EventRequestError, name: String, message: String) async throws {
        let fixture = try await ManagerFixture()
        await fixture.requests.refuse(with: refusal)
        let error = await fixture.error("Launch", arguments: Self.data)
        #expect(error?.busErrorName == name)
        #expect(error?.message?.hasPrefix(message) == true, "\(String(describing: error))")
        await fixture.stop()
    }

    @Test("GetUnit answers for a name of systemd's 255 bytes")
    func getUnitLongestName() async throws {
        let fixture = try await ManagerFixture()
        let unit = "job-" + String(repeating: "x", count: 243) + ".service"
        #expect(unit.utf8.count == 255)
        await fixture.requests.store(UnitRecord(unit: unit))
        let one: String = try await fixture.call("GetUnit", arguments: { message throws(SystemdError) in
            try message.append(unit)
        }) { reply throws(SystemdError) in try reply.readString() }
        #expect(try JSONDecoder().decode(UnitRecord.self, from: Data(one.utf8)) == UnitRecord(unit: unit))
        await fixture.stop()
    }

    @Test("GetUnit of a unit without a record is UnknownUnit, of an invalid name InvalidArgument")
    func getUnitErrors() async throws {
        let fixture = try await ManagerFixture()
        let unknown = await fixture.error("GetUnit") { message throws(SystemdError) in try message.append("x.service") }
        #expect(unknown?.busErrorName == ManagerError.unknownUnit)
        #expect(unknown?.message == "Unit x.service has no lifecycle state (not watched, or no event recorded yet).")
        let invalid = await fixture.error("GetUnit") { message throws(SystemdError) in try message.append("../x") }
        #expect(invalid?.busErrorName == ManagerError.invalidArgument)
        #expect(invalid?.message?.hasPrefix("Invalid unit name \"../x\"") == true)
        await fixture.stop()
    }

    @Test("a wrong signature is InvalidArgument and reaches nothing; an unknown method is UnknownMethod")
    func badCalls() async throws {
        let fixture = try await ManagerFixture()
        let noData = await fixture.error("Launch") { message throws(SystemdError) in
            try message.append("job-1.service")
        }
        #expect(noData?.busErrorName == ManagerError.invalidArgument)
        #expect(noData?.message == "Launch takes arguments of type 'sa{ss}', not 's'.")
        let variantData = await fixture.error("Track") { message throws(SystemdError) in
            try message.append("job-1.service")
            try message.append("e")
            try message.append(properties: [("k", .string("v"))])
        }
        #expect(variantData?.busErrorName == ManagerError.invalidArgument)
        #expect(variantData?.message == "Track takes arguments of type 'ssa{ss}', not 'ssa{sv}'.")
        let extra = await fixture.error("ListUnits") { message throws(SystemdError) in try message.append(UInt32(1)) }
        #expect(extra?.busErrorName == ManagerError.invalidArgument)
        #expect(await fixture.requests.sent.isEmpty)

        #expect(await fixture.error("Crash")?.busErrorName == "org.freedesktop.DBus.Error.UnknownMethod")
        #expect(await fixture.error("Launch", interface: "org.example.Other")?.busErrorName
            == "org.freedesktop.DBus.Error.UnknownMethod")
        // Without an interface, the member alone selects the method.
        let sequence: UInt64 = try await fixture.call("Launch", interface: nil, arguments: Self.data) {
            reply throws(SystemdError) in try UInt64(from: reply)
        }
        #expect(sequence == 1)
        await fixture.stop()
    }

    @Test("Introspect describes every method with its arguments; Ping answers")
    func introspection() async throws {
        let fixture = try await ManagerFixture()
        let xml: String = try await fixture.call("Introspect", interface: "org.freedesktop.DBus.Introspectable") {
            reply throws(SystemdError) in try reply.readString()
        }
        #expect(xml == ManagerInterface.introspectionXML)
        #expect(xml.hasPrefix("<!DOCTYPE node PUBLIC"))
        #expect(xml.contains("<interface name=\"org.lifecycled.Lifecycle1.Manager\">"))
        for method in ["Launch", "Wake", "Sleep", "Track", "GetUnit", "ListUnits", "GetStatus"] {
            #expect(xml.contains("<method name=\"\(method)\">"), "\(method)")
        }
        #expect(xml.contains("""
              <method name="Track">
               <arg type="s" name="unit" direction="in"/>
               <arg type="s" name="event" direction="in"/>
               <arg type="a{ss}" name="data" direction="in"/>
               <arg type="t" name="sequence" direction="out"/>
              </method>
            """))
        #expect(xml.contains("<arg type=\"s\" name=\"json\" direction=\"out\"/>"))
        let pong: [BusValue] = try await fixture.call("Ping", interface: "org.freedesktop.DBus.Peer") {
            reply throws(SystemdError) in try reply.readValues()
        }
        #expect(pong.isEmpty)
        await fixture.stop()
    }

    /// A call of Launch that the daemon holds (``FakeRequests/hold()``), once it has reached the daemon.
    static func heldLaunch(_ fixture: ManagerFixture) async throws -> Task<UInt64, any Error> {
        await fixture.requests.hold()
        let launch = Task {
            try await fixture.call("Launch", arguments: Self.data) { reply throws(SystemdError) in
                try UInt64(from: reply)
            }
        }
        while await fixture.requests.sent.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        return launch
    }

    @Test("the bus thread answers other calls while the daemon is busy with one")
    func doesNotBlockTheBusThread() async throws {
        let fixture = try await ManagerFixture()
        let launch = try await Self.heldLaunch(fixture)
        let xml: String = try await fixture.call("Introspect", interface: "org.freedesktop.DBus.Introspectable") {
            reply throws(SystemdError) in try reply.readString()
        }
        #expect(!xml.isEmpty)
        await fixture.requests.release()
        #expect(try await launch.value == 1)
        await fixture.stop()
    }

    @Test("stepping down frees the name without waiting for a call the daemon holds; the call is still answered")
    func stepDownDoesNotWaitForTheDaemon() async throws {
        let fixture = try await ManagerFixture()
        let launch = try await Self.heldLaunch(fixture)
        // The daemon re-publishes its interface while it waits for a bus answer that its loop asked for after the
        // held call: waiting for the call here would wait in a circle.
        let steppedDown = Mutex(false)
        let stepDown = Task { [object = fixture.object] in
            await object.stepDown()
            steppedDown.withLock { $0 = true }
        }
        for _ in 0..<500 where !steppedDown.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(steppedDown.withLock { $0 }, "stepDown returned while the daemon held the call")
        let successor = try await ManagerObject.start(
            on: .address(fixture.daemon.address), requests: FakeRequests(), logger: .init(label: "test")
        )
        await fixture.requests.release()
        await stepDown.value
        #expect(try await launch.value == 1, "answered by the object that received it")
        await successor.stop()
        await fixture.stop()
    }

    @Test("a sender may have 32 calls waiting; more are refused with LimitsExceeded, another sender's are not")
    func callsPerSender() async throws {
        let fixture = try await ManagerFixture()
        await fixture.requests.hold()
        let finished = Tally()
        let calls = (0..<40).map { _ in
            Task {
                defer { finished.add() }
                return await fixture.error("Launch", arguments: Self.data)
            }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while finished.count < 8, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }

        // Another connection's call is taken: once its Introspect, sent after it, is answered, it waits unanswered.
        let other = try await SystemdBus.connect(.address(fixture.daemon.address), description: "other")
        let otherCall = Task { () async throws(SystemdError) -> UInt64 in
            try await other.call(
                destination: ManagerInterface.busName, path: ManagerInterface.objectPath,
                interface: ManagerInterface.name, member: "Launch", arguments: Self.data
            ) { reply throws(SystemdError) in try UInt64(from: reply) }
        }
        try await Task.sleep(for: .milliseconds(50))
        let _: [BusValue] = try await other.call(
            destination: ManagerInterface.busName, path: ManagerInterface.objectPath,
            interface: "org.freedesktop.DBus.Introspectable", member: "Introspect"
        )
        #expect(finished.count == 8)

        await fixture.requests.release()
        var refusals: [SystemdError] = []
        for call in calls {
            if let error = await call.value { refusals.append(error) }
        }
        #expect(refusals.count == 8)
        #expect(refusals.allSatisfy { $0.busErrorName == "org.freedesktop.DBus.Error.LimitsExceeded" })
        #expect(refusals.first?.message?.contains("at most 32 at a time") == true)
        #expect(try await otherCall.value == 33)
        #expect(await fixture.requests.sent.count == 33)

        // Answered calls no longer count: the sender may call again.
        #expect(await fixture.error("Launch", arguments: Self.data) == nil)
        await other.close()
        await fixture.stop()
    }

    @Test("the calls waiting from all senders are bounded too: a sender opening more connections is refused")
    func callsInAll() async throws {
        let fixture = try await ManagerFixture(limits: ManagerObject.CallLimits(perSender: 4, total: 6))
        await fixture.requests.hold()
        let other = try await SystemdBus.connect(.address(fixture.daemon.address), description: "other")
        let finished = Tally()
        let first = (0..<4).map { _ in
            Task {
                defer { finished.add() }
                return await fixture.error("Launch", arguments: Self.data)
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        let second = (0..<4).map { _ in
            Task { () async -> SystemdError? in
                defer { finished.add() }
                do throws(SystemdError) {
                    let _: UInt64 = try await other.call(
                        destination: ManagerInterface.busName, path: ManagerInterface.objectPath,
                        interface: ManagerInterface.name, member: "Launch", arguments: Self.data
                    ) { reply throws(SystemdError) in try UInt64(from: reply) }
                    return nil
                } catch {
                    return error
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while finished.count < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(finished.count == 2)

        await fixture.requests.release()
        var refusals: [SystemdError] = []
        for call in first + second {
            if let error = await call.value { refusals.append(error) }
        }
        #expect(refusals.count == 2)
        #expect(refusals.allSatisfy { $0.busErrorName == "org.freedesktop.DBus.Error.LimitsExceeded" })
        #expect(refusals.allSatisfy { $0.message?.contains("at most 6 at a time from all callers") == true })
        #expect(await fixture.requests.sent.count == 6)
        await other.close()
        await fixture.stop()
    }

    /// Counts from any task.
    final class Tally: Sendable {
        private let value = Mutex(0)
        var count: Int { value.withLock { $0 } }
        func add() { value.withLock { $0 += 1 } }
    }

    @Test("a second object cannot take the name; stop releases it")
    func nameOwnership() async throws {
        let fixture = try await ManagerFixture()
        let second = await #expect(throws: SystemdError.self) {
            _ = try await ManagerObject.start(
                on: .address(fixture.daemon.address), requests: FakeRequests(), logger: .init(label: "test")
            )
        }
        #expect(second?.errno == EEXIST)
        await fixture.object.stop()
        let error = await fixture.error("ListUnits")
        #expect(error?.busErrorName == "org.freedesktop.DBus.Error.ServiceUnknown")
        await fixture.stop()
    }

    @Test("lifecycled logs an error and tracks on when it cannot own the name")
    func nameTakenByAnother() async throws {
        let fixture = try await ManagerFixture()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycled-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let entries = RecordingLogHandler.Entries()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(entries: entries) }
        let address = BusAddress.address(fixture.daemon.address)
        let daemon = try LifecycleDaemon(
            options: DaemonOptions(stateDirectory: directory, bus: address), configuration: .init(), logger: logger
        )
        #expect(await daemon.publishManager(on: address, logger: logger) == nil)
        #expect(entries.messages(at: .error) == [
            "Failed to acquire the bus name org.lifecycled.Lifecycle1 on the \(address); "
                + "manual and custom events are unavailable",
        ])
        await fixture.stop()
    }

    @Test(
        "lifecyclectl: silent success, the sequence with --verbose, the daemon's errors with systemctl's exit statuses",
        .enabled(if: Lifecyclectl.path != nil, "lifecyclectl is not built")
    )
    func lifecyclectl() async throws {
        let fixture = try await ManagerFixture()
        let bus = ["--bus-address", fixture.daemon.address]
        #expect(try await Lifecyclectl.run(["launch", "job-1"] + bus + ["run=nightly", "note=a=b"]) == .init(
            status: 0, output: "", error: ""
        ))
        #expect(try await Lifecyclectl.run(["track", "--verbose", "job-1.service", "backup-done"] + bus) == .init(
            status: 0, output: "job-1.service: event backup-done dispatched, sequence 2.\n", error: ""
        ))
        #expect(await fixture.requests.sent == [
            EventRequest(
                unit: "job-1.service", event: .lifecycle(.launch),
                data: ["run": .string("nightly"), "note": .string("a=b")]
            ),
            EventRequest(unit: "job-1.service", event: .custom("backup-done")),
        ])

        await fixture.requests.refuse(with: .unknownUnit("job-1.service"))
        #expect(try await Lifecyclectl.run(["sleep", "job-1"] + bus) == .init(status: 4, output: "", error: """
            lifecyclectl: Unit job-1.service is not watched by lifecycled (no pattern in "watch" matches it).

            """))
        await fixture.requests.refuse(with: .refused(.manualTrackNotAllowed))
        #expect(try await Lifecyclectl.run(["wake", "job-1"] + bus) == .init(status: 1, output: "", error: """
            lifecyclectl: Refused wake of job-1.service: Manual lifecycle events are not allowed while autotracking is \
            enabled.

            """))
        #expect(try await Lifecyclectl.run(["launch", "job-1", "novalue"] + bus).status == 64)
        #expect(try await Lifecyclectl.run(["track", "job-1", "two words"] + bus).status == 64)
        #expect(await fixture.requests.sent.count == 4)

        await fixture.object.stop()
        #expect(try await Lifecyclectl.run(["launch", "job-1"] + bus) == .init(status: 1, output: "", error: """
            lifecyclectl: lifecycled is not running (org.lifecycled.Lifecycle1 is not on the bus at \(bus[1])).

            """))
        await fixture.stop()
    }
}
