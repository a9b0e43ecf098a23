// SPDX-License-Identifier: Apache-2.0

import LifecycleDaemon
import LifecycleEngine
import LifecycleStorage
import Testing

/// Every dispatch into the journal exactly once: refused writes, dropped entries, death between save and send.
struct DaemonCoreDeliveryTests {
    typealias H = CoreHarness

    func tracking() throws -> H {
        var h = try H()
        h.send(.start)
        h.send(.listing([]))
        return h
    }

    @Test("a refused write keeps the entry, and what follows waits behind it: the journal gets them in order")
    func refusedWrite() throws {
        var h = try tracking()
        h.refusals = 1
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.journal.isEmpty)
        let retry = try #require(h.armed[.retryDelivery])
        #expect(retry == h.now + 1_000)
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        #expect(h.journal.isEmpty, "a later dispatch never overtakes a refused one")
        #expect(h.core.undeliveredCount == 2)
        h.now = retry
        h.send(.timer(.retryDelivery))
        #expect(h.dispatches() == ["1 launch a", "2 sleep a"])
        #expect(h.core.undeliveredCount == 0)
        #expect(h.logs.contains { $0.message.contains("took the 2 dispatches it had refused") })
    }

    @Test("a record is saved with its dispatch pending before the dispatch is sent, and the next save drops it")
    func saveBeforeSend() throws {
        var h = try tracking()
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        #expect(h.saved.last?.pendingDispatches.count == 1)
        #expect(h.saved.last?.sequence == 1)
        h.send(.changed(H.snapshot("inactive", "a", second: 2)))
        #expect(h.saved.last?.pendingDispatches.map { $0["LIFECYCLE_SEQUENCE"] } == ["2"])
    }

    @Test("death between save and send: the next start sends the saved entry again, byte for byte, only if missing")
    func deathBetweenSaveAndSend() throws {
        var first = try tracking()
        first.refusals = 1  // the process dies before the journal has it
        first.send(.changed(H.snapshot("active", "a", second: 1)))
        let record = try #require(first.saved.last)

        var next = try H(records: [record])
        next.send(.start)
        let resent = try #require(next.journal.first)
        #expect(next.dispatches() == ["1 launch a"])
        let original = try #require(first.saved.last.flatMap { $0.pendingDispatches.first })
        let line = { (field: (name: String, value: String)) in "\(field.name)=\(field.value)" }
        #expect(resent.entry.fields.map(line) == original.pairs.map(line), "sent again field for field, in order")
        #expect(resent.entry.fields.first?.name == "MESSAGE")
        #expect(first.journal.isEmpty)

        var again = try H(records: [record])
        again.alreadyJournaled = ["\(H.unit)#1"]
        again.send(.start)
        #expect(again.journal.isEmpty, "an entry the journal already holds is not sent twice")
    }

    @Test("start-up gives its freed memory back once, at READY, after the pending entries were checked")
    func memoryReleasedAtReady() throws {
        var first = try tracking()
        first.send(.changed(H.snapshot("active", "a", second: 1)))
        let record = try #require(first.saved.last)
        var next = try H(records: [record])
        next.alreadyJournaled = ["\(H.unit)#1"]
        next.send(.start)
        next.send(.listing([H.snapshot("active", "a", second: 1)]))
        #expect(next.milestones == ["leftovers", "ready", "release"])
        next.send(.changed(H.snapshot("inactive", "a", second: 2)))
        #expect(next.milestones == ["leftovers", "ready", "release"], "only start-up's burst")
    }

    @Test("the first listing asks for the versions of every run it begins in one batch, before the first begin")
    func versionsPrefetched() throws {
        // Three units whose last runs ended before lifecycled stopped; two run again when it starts.
        let records = ["web-a.service", "web-b.service", "web-c.service"].map { unit in
            UnitRecord(unit: unit, invocationID: H.run("z"), runEnded: true, sequence: 1)
        }
        var h = try H(records: records)
        h.send(.start)
        h.send(.listing([
            H.snapshot("active", "a", second: 1, unit: "web-a.service"),
            H.snapshot("active", "b", second: 1, unit: "web-b.service"),
            H.snapshot("inactive", "c", second: 1, unit: "web-c.service"),
        ]))
        #expect(h.prefetched == [[
            UnitRunID(unit: "web-a.service", invocationID: H.run("a")),
            UnitRunID(unit: "web-b.service", invocationID: H.run("b")),
        ]], "running units only, the stopped one begins nothing")
        #expect(h.versionReads == ["web-a.service", "web-b.service"], "each begin still reads its version")
        #expect(h.dispatches(of: "web-a.service").count == 1)
        #expect(h.dispatches(of: "web-b.service").count == 1)

        // One begin alone reads its version itself.
        h.send(.changed(H.snapshot("active", "d", second: 2, unit: "web-c.service")))
        #expect(h.prefetched.count == 1)
        #expect(h.versionReads.last == "web-c.service")
    }

    @Test("an entry journald accepted and dropped is looked for later and sent again")
    func droppedAfterAcceptance() throws {
        var h = try tracking()
        h.send(.changed(H.snapshot("active", "a", second: 1)))
        let at = try #require(h.armed[.confirmDelivery])
        #expect(at == h.now + 3_000)
        h.journal.removeAll()  // journald dropped it
        h.now = at
        h.send(.timer(.confirmDelivery))
        #expect(h.dispatches() == ["1 launch a"])
    }
}
