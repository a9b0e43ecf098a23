// SPDX-License-Identifier: Apache-2.0

import Glibc
@testable import LifecycleSystemd
import LifecycleTestSupport
import Synchronization
import Testing

/// ``BusConnection/callPipelined(count:window:timeout:isolation:makeCall:onReply:)`` against a peer on a private bus.
@Suite(.enabled(if: PrivateBus.isAvailable, "dbus-daemon is not installed"))
struct PipelinedCallsTests {
    /// A client on a bus thread of its own, as the unit source is.
    actor Client {
        let thread: BusThread
        nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

        init(thread: BusThread) { self.thread = thread }

        /// Sends `count` calls (each carrying its index) with `window` outstanding; the replies' indexes and whether
        /// each succeeded, in arrival order.
        func run(address: String, count: Int, window: Int) async throws -> [(Int, Bool)] {
            let connection = try BusConnection(address: .address(address), description: "client", thread: thread)
            defer { connection.close() }
            var replies: [(Int, Bool)] = []
            try await connection.callPipelined(count: count, window: window, timeout: .seconds(2)) {
                index throws(SystemdError) in
                let call = try connection.newMethodCall(
                    destination: "org.example.Held", path: "/org/example/Held", interface: "org.example.Held",
                    member: "Call"
                )
                try call.append(UInt32(index))
                return call
            } onReply: { index, result in
                if case .success = result { replies.append((index, true)) } else { replies.append((index, false)) }
            }
            return replies
        }
    }

    /// The peer's call 0, held until call 2 arrives (the peer runs on its own bus thread, one call at a time).
    final class Held: @unchecked Sendable {
        var call: BusMessage?
    }

    @Test("the window slides: an answer sends the next call before the rest of the window is answered")
    func windowSlides() async throws {
        let daemon = try PrivateBus.start()
        defer { daemon.stop() }
        let peer = try await SystemdBus.connect(.address(daemon.address), description: "held")
        let held = Held()
        try await peer.exportObject(path: "/org/example/Held") { call, connection throws(SystemdError) in
            let index = try UInt32(from: call)
            if index == 0 {
                held.call = call
                return true
            }
            if index == 2, let first = held.call {
                held.call = nil
                try connection.send(try first.makeReturn())
            }
            try connection.send(try call.makeReturn())
            return true
        }
        try await peer.requestName("org.example.Held")
        let thread = try BusThread(name: "client")
        // A window of two: call 2 goes out only when call 1's answer frees a place, and only then is call 0 answered.
        // Windows sent and awaited whole would wait for call 0 until its timeout.
        let replies = try await Client(thread: thread).run(address: daemon.address, count: 4, window: 2)
        #expect(replies.map(\.0) == [1, 0, 2, 3])
        #expect(replies.map(\.1) == [true, true, true, true], "no call timed out")
        await thread.shutdown()
        await peer.close()
    }
}
