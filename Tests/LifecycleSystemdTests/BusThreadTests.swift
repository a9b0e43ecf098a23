// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleSystemd
import Synchronization
import Testing

/// A flag set on one thread and read on another.
private final class Flag: Sendable {
    let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// An actor pinned to a bus thread, like the unit source.
private actor PinnedActor {
    nonisolated let thread: BusThread
    var counter = 0

    nonisolated var unownedExecutor: UnownedSerialExecutor { thread.asUnownedSerialExecutor() }

    init(thread: BusThread) {
        self.thread = thread
    }

    func watch(_ signal: Int32, seen: Flag) throws {
        try thread.watchSignals([signal]) { _ in seen.value.store(true, ordering: .releasing) }
    }

    /// The nice value of the thread the actor runs on.
    func niceValue() -> Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
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

    @Test("a thread started nicer runs its jobs at the process's nice value and that much more; the others keep theirs")
    func niceness() async throws {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let own = getpriority(which, 0)
        let nicer = try BusThread(name: "test", niceness: 5)
        let plain = try BusThread(name: "test")
        let onNicer = await PinnedActor(thread: nicer).niceValue()
        let onPlain = await PinnedActor(thread: plain).niceValue()
        #expect(onNicer == min(own + 5, 19))
        #expect(onPlain == own)
        #expect(getpriority(which, 0) == own, "the caller's thread is not made nicer")
        await nicer.shutdown()
        await plain.shutdown()
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

    @Test("a loop kept busy by jobs that never stop coming still reads its signal pipe, as it reads its buses")
    func busyLoopPolls() async throws {
        let thread = try BusThread(name: "test")
        let actor = PinnedActor(thread: thread)
        let seen = Flag()
        try await actor.watch(SIGUSR2, seen: seen)
        // A job on the thread that queues the next until the signal is seen, for at most 2 s after it was sent: the
        // loop always has a job to run. (The 2 s count from the signal, not from the spinner's start: on a loaded
        // machine the test's own sleep may take longer than that.)
        let sentAt = Atomic<UInt64>(0)
        let spinner = Task(executorPreference: thread) {
            while !seen.isSet {
                let sent = sentAt.load(ordering: .acquiring)
                if sent != 0, BusThread.monotonicMicroseconds() > sent + 2_000_000 { break }
                await Task.yield()
            }
            return seen.isSet
        }
        try await Task.sleep(for: .milliseconds(50))
        sentAt.store(BusThread.monotonicMicroseconds(), ordering: .releasing)
        kill(getpid(), SIGUSR2)
        #expect(await spinner.value, "the signal was read while jobs kept coming")
        await thread.shutdown()
    }
}
