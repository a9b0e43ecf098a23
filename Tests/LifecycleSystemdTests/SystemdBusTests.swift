// SPDX-License-Identifier: Apache-2.0

import Glibc
@testable import LifecycleSystemd
import LifecycleTestSupport
import Synchronization
import Testing

@Suite(.enabled(if: PrivateBus.isAvailable, "dbus-daemon is not installed"))
struct SystemdBusTests {
    @Test("closing a connection fails the calls still waiting for a reply, at once")
    func closeFailsPendingCalls() async throws {
        let daemon = try PrivateBus.start()
        defer { daemon.stop() }
        // A peer that takes every call and never answers it.
        let silent = try await SystemdBus.connect(.address(daemon.address), description: "silent")
        try await silent.exportObject(path: "/org/example/Silent") { _, _ in true }
        try await silent.requestName("org.example.Silent")
        let client = try await SystemdBus.connect(.address(daemon.address), description: "client")
        let waiting = Task { () -> SystemdError? in
            do throws(SystemdError) {
                _ = try await client.call(
                    destination: "org.example.Silent", path: "/org/example/Silent", interface: nil, member: "Wait",
                    timeout: .seconds(60)
                )
                return nil
            } catch {
                return error
            }
        }
        try await Task.sleep(for: .milliseconds(300))  // the call is on its way; its reply never comes
        let closed = ContinuousClock.now
        await client.close()
        let error = await waiting.value
        #expect(error?.errno == ECONNRESET)
        #expect(ContinuousClock.now - closed < .seconds(5), "the call waited for its timeout instead")
        await silent.close()
    }

    @Test("calls the bus daemon and reads its replies")
    func methodCallRoundTrip() async throws {
        let daemon = try PrivateBus.start()
        defer { daemon.stop() }
        let bus = try await SystemdBus.connect(.address(daemon.address), description: "test-client")
        let id: String = try await bus.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetId"
        ) { reply throws(SystemdError) in try reply.readString() }
        // The bus id: 32 lower-case hex digits.
        #expect(id.count == 32)
        #expect(id.allSatisfy { $0.isHexDigit && !$0.isUppercase })

        let names: [String] = try await bus.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListNames"
        ) { reply throws(SystemdError) in try [String](from: reply) }
        let unique = try #require(await bus.uniqueName)
        #expect(unique.hasPrefix(":1."))
        #expect(names.contains("org.freedesktop.DBus"))
        #expect(names.contains(unique))
        await bus.close()
        #expect(bus.thread.isTerminated)
    }

    @Test("reports ServiceUnknown for a destination nobody owns")
    func unknownDestination() async throws {
        let daemon = try PrivateBus.start()
        defer { daemon.stop() }
        let bus = try await SystemdBus.connect(.address(daemon.address))
        let error = await #expect(throws: SystemdError.self) {
            let _: [BusValue] = try await bus.call(
                destination: "org.example.Nobody", path: "/org/example/Nobody", interface: "org.example.Nobody",
                member: "Hello"
            )
        }
        #expect(error?.busErrorName == "org.freedesktop.DBus.Error.ServiceUnknown")
        #expect(error?.operation == "call Hello")
        #expect(error?.description.hasPrefix("Failed to call Hello: ") == true)
        #expect(error?.message?.contains("org.example.Nobody") == true)
        #expect(error?.errno != 0)
        await bus.close()
    }

    @Test("round-trips every supported type through a peer, also through the bus relay", arguments: [false, true])
    func valueRoundTrip(isRelayed: Bool) async throws {
        let daemon = try PrivateBus.start()
        defer { daemon.stop() }
        let peer = try await SystemdBus.connect(.address(daemon.address), description: "echo")
        try await peer.exportObject(path: "/org/example/Echo") { call, connection throws(SystemdError) in
            // Decode generically and write back what was decoded: both directions are tested.
            let values = try call.readValues()
            let reply = try call.makeReturn()
            for value in values { try reply.append(value: value) }
            try connection.send(reply)
            return true
        }
        try await peer.requestName("org.example.Echo")
        let client = try await SystemdBus.connect(
            .address(daemon.address), description: "client", thread: nil, isRelayed: isRelayed
        )

        // A reply larger than sd-bus's input buffer (8 MB) and the bus relay's (64 KB): framed whole, and written
        // to sd-bus in pieces.
        let large = BusValue.bytes((0..<10_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let echoed: [BusValue] = try await client.call(
            destination: "org.example.Echo", path: "/org/example/Echo", interface: "org.example.Echo", member: "Echo",
            arguments: { message throws(SystemdError) in try message.append(value: large) }
        )
        #expect(echoed == [large])

        let sent: [BusValue] = [
            .byte(0xfe), .bool(true), .bool(false), .int16(-2), .uint16(65_000), .int32(-70_000),
            .uint32(4_000_000_000),
            .int64(-5_000_000_000), .uint64(UInt64.max), .double(-0.5), .string("multi\nline ✓"),
            .objectPath("/org/example/a_2db"), .signature("a{sv}"), .bytes([0, 1, 0xff]), .bytes([]),
            .strings(["a", "", "c"]), .array(elementSignature: "s", []),
            .propertyMap([("Name", .string("x")), ("Id", .bytes(Array(0..<16))), ("Nested", .variant(.uint32(7)))]),
            .structure([.string("/usr/bin/true"), .strings(["true", "-v"]), .bool(false), .uint64(1), .int32(-1)]),
            .array(elementSignature: "(uo)", [.structure([.uint32(3), .objectPath("/job/3")])]),
            .variant(.array(elementSignature: "a{su}", [
                .array(elementSignature: "{su}", [.dictEntry(.string("k"), .uint32(1))]),
            ])),
        ]
        let received: [BusValue] = try await client.call(
            destination: "org.example.Echo", path: "/org/example/Echo", interface: "org.example.Echo", member: "Echo",
            arguments: { message throws(SystemdError) in
                for value in sent { try message.append(value: value) }
            }
        )
        #expect(received == sent)

        // Typed reading of the same wire data.
        let typed: (UInt32, [String: UInt32], Bool, [UInt8]) = try await client.call(
            destination: "org.example.Echo", path: "/org/example/Echo", interface: "org.example.Echo", member: "Echo",
            arguments: { message throws(SystemdError) in
                try message.append(UInt32(42))
                try message.append(["one": UInt32(1), "two": 2])
                try message.append(true)
                try message.append(variant: [UInt8]([9, 8]))
            },
            decode: { reply throws(SystemdError) in
                (try UInt32(from: reply), try [String: UInt32](from: reply), try Bool(from: reply),
                 try reply.readVariant([UInt8].self))
            }
        )
        #expect(typed.0 == 42)
        #expect(typed.1 == ["one": 1, "two": 2])
        #expect(typed.2 == true)
        #expect(typed.3 == [9, 8])

        // A variant of another type than the one expected is refused, and the message has not moved.
        let refused: (String?, UInt32) = try await client.call(
            destination: "org.example.Echo", path: "/org/example/Echo", interface: "org.example.Echo", member: "Echo",
            arguments: { message throws(SystemdError) in try message.append(variant: UInt32(7)) },
            decode: { reply throws(SystemdError) in
                var refusal: String?
                do throws(SystemdError) {
                    _ = try reply.readVariant(String.self)
                } catch {
                    refusal = error.message
                }
                return (refusal, try reply.readVariant(UInt32.self))
            }
        )
        #expect(refused.0 == "Expected signature 's', found 'u'")
        #expect(refused.1 == 7)
        await client.close()
        await peer.close()
    }

    @Test("a loop busy with long jobs dispatches the signals waiting on a connection together, not one between two jobs")
    func signalsBetweenLongJobs() async throws {
        let daemon = try PrivateBus.start()
        defer { daemon.stop() }
        let receiver = try await SystemdBus.connect(.address(daemon.address), description: "receiver")
        let sender = try await SystemdBus.connect(.address(daemon.address), description: "sender")
        let turns = JobTurns()
        try await receiver.addMatch("type='signal',interface='org.example.Test',member='Tick'") { _ in turns.sawSignal() }
        // A job that holds the receiver's thread until the 40 signals wait in its socket, then jobs of 2 ms each, one
        // after the other, as a recovery's rounds; for at most 5 s.
        let deadline = BusThread.monotonicMicroseconds() + 5_000_000
        let jobs = Task(executorPreference: receiver.thread) {
            while !turns.isReleased, BusThread.monotonicMicroseconds() < deadline { usleep(1_000) }
            while turns.signals < 40, BusThread.monotonicMicroseconds() < deadline {
                usleep(2_000)
                turns.nextTurn()
                await Task.yield()
            }
        }
        for _ in 0..<40 {
            try await sender.emitSignal(path: "/org/example/Test", interface: "org.example.Test", member: "Tick") {
                _ throws(SystemdError) in
            }
        }
        // The bus daemon answers after it has routed the signals sent before the call.
        let _: String = try await sender.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetId"
        ) { reply throws(SystemdError) in try reply.readString() }
        turns.release()
        await jobs.value
        #expect(turns.signals == 40)
        // One message a loop's turn spread them over 11 of the jobs.
        #expect(turns.turnsWithSignals <= 4, "the signals were dispatched over \(turns.turnsWithSignals) turns")
        await sender.close()
        await receiver.close()
    }
}

/// The turns of a loop's jobs, and in which of them signals were dispatched.
private final class JobTurns: Sendable {
    private let state = Mutex((turn: 0, signals: 0, turnsWithSignals: Set<Int>()))
    private let released = Atomic<Bool>(false)

    var isReleased: Bool { released.load(ordering: .acquiring) }
    func release() { released.store(true, ordering: .releasing) }

    var signals: Int { state.withLock { $0.signals } }
    var turnsWithSignals: Int { state.withLock { $0.turnsWithSignals.count } }

    func nextTurn() { state.withLock { $0.turn += 1 } }

    func sawSignal() {
        state.withLock { state in
            state.signals += 1
            state.turnsWithSignals.insert(state.turn)
        }
    }
}
