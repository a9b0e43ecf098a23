// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd
import Testing

/// An actor pinned to a bus thread, like the unit source.
private actor PinnedActor {
    nonisolated let thread: BusThread
    var counter = 0

    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    init(thread: BusThread) {
        self.thread = thread
    }

    func increment() -> (count: Int, onBusThread: Bool) {
        counter += 1
        return (counter, thread.isCurrent)
    }
}

struct BusThreadTests {
    @Test("runs the isolated methods of an actor pinned to it on the bus thread")
    func executor() async throws {
        let thread = try BusThread(name: "test")
        let actor = PinnedActor(thread: thread)
        #expect(!thread.isCurrent)
        let results = await withTaskGroup(of: (count: Int, onBusThread: Bool).self) { group in
            for _ in 0..<50 {
                group.addTask { await actor.increment() }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.allSatisfy { $0.onBusThread })
        #expect(Set(results.map(\.count)) == Set(1...50))
        await thread.shutdown()
        #expect(thread.isTerminated)
    }

    @Test("ends its thread and releases itself on shutdown")
    func shutdownReleases() async throws {
        weak var weakThread: BusThread?
        do {
            let thread = try BusThread(name: "test")
            weakThread = thread
            await thread.shutdown()
            await thread.shutdown()  // idempotent
        }
        #expect(weakThread == nil)
    }
}
