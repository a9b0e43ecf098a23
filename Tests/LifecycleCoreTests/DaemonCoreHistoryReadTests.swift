// SPDX-License-Identifier: Apache-2.0

@testable import LifecycleCore
import LifecycleEngine
import LifecycleSchema
import LifecycleStorage
import Testing

/// PID 1's history read on the journal's thread (docs/architecture.md, "One thread"): each read's answer comes as a
/// later input, and the loop takes the inputs that come meanwhile.
struct DaemonCoreHistoryReadTests {
    typealias H = CoreHarness

    /// The first start on a machine whose PID 1 journal holds 30 clean runs of web.service, read in slices of 25
    /// entries, each read held until the test answers it; after the listing.
    func slicedDayOne() throws -> H { try H.slicedDayOne() }

    /// Answers the held reads and the looks until lifecycled is ready.
    func readUntilReady(_ h: inout H) {
        while !h.milestones.contains("ready") {
            if !h.heldRecoveryReads.isEmpty {
                h.answerHeldRecoveryRead()
            } else if let at = h.armed[.confirmDelivery] {
                h.now = max(h.now + 400, at)
                h.send(.timer(.confirmDelivery))
            } else {
                Issue.record("neither a read nor a look waits, and lifecycled is not ready")
                return
            }
        }
    }

    @Test("while a slice is read, the loop takes what comes: the watchdog answered, a change held in the phase until the runs before it")
    func inputsWhileASliceIsRead() throws {
        var h = try slicedDayOne()
        #expect(h.heldRecoveryReads.count == 1, "the first read, unanswered")
        #expect(h.journal.isEmpty)
        h.send(.timer(.watchdog))
        #expect(h.notifications.last == .watchdog, "the watchdog is answered while the read goes on")
        h.send(.changed(H.snapshot("active", "z", second: 5_000)))
        #expect(h.journal.isEmpty, "the change waits for the runs the history holds before it")
        h.answerHeldRecoveryRead()
        #expect(!h.journal.isEmpty, "the first slice's runs")
        let next = try #require(h.heldRecoveryReads.first, "the next slice, asked for once this one's runs are made")
        guard case .resuming = next.query.history else {
            Issue.record("not the next slice: \(next.query.history)")
            return
        }
        #expect(h.dispatches().allSatisfy { !$0.hasSuffix(" z") }, "the change still waits")
        readUntilReady(&h)
        h.fire(.confirmDelivery)
        #expect(h.journal.map(\.sequence) == Array(1...61), "every run once, in order")
        #expect(h.dispatches().last == "61 wake z", "the change after the history's runs")
    }

    @Test("a history read in slices gives back the start's memory once its first slice is in, and again at READY")
    func startMemoryGivenBackAfterTheFirstSlice() throws {
        var h = try slicedDayOne()
        #expect(!h.milestones.contains("release"))
        h.answerHeldRecoveryRead()
        #expect(h.milestones.filter { $0 == "release" }.count == 1, "after the first slice")
        h.answerHeldRecoveryRead()
        #expect(h.milestones.filter { $0 == "release" }.count == 1, "not after the next")
        #expect(!h.milestones.contains("ready"))
        readUntilReady(&h)
        #expect(h.milestones.filter { $0 == "release" }.count == 2, "once more at READY")
    }

    @Test("a D-Bus call while a slice is read waits for the recovery: its sequence number comes after every run")
    func requestWhileASliceIsRead() throws {
        var h = try slicedDayOne()
        let token = ReplyToken(1)
        h.send(.request(EventRequest(unit: H.unit, event: .custom("deploy")), reply: token))
        #expect(h.replies[token] == nil, "held")
        readUntilReady(&h)
        #expect(h.replies[token] == .success(61), "numbered after the history's 60 dispatches")
    }

    @Test("SIGTERM while a slice is read: the held call is refused, and the answer that comes after records nothing")
    func stopWhileASliceIsRead() throws {
        var h = try slicedDayOne()
        let token = ReplyToken(1)
        h.send(.request(EventRequest(unit: H.unit, event: .custom("deploy")), reply: token))
        h.send(.stop)
        #expect(h.replies[token] == .failure(.stopping))
        #expect(h.performed.last == .exit)
        let sent = h.journal.count
        h.answerHeldRecoveryRead()
        #expect(h.journal.count == sent, "nothing of the late answer is recorded")
        #expect(h.core.phase == .stopping)
    }

    @Test("a listing that comes while the history is read is the one the recovery takes")
    func listingWhileTheHistoryIsRead() throws {
        var h = try slicedDayOne()
        h.send(.listing([H.snapshot("active", "z", second: 5_000, unit: "web-2.service")]))
        readUntilReady(&h)
        guard case .tracking = h.core.phase else {
            Issue.record("not tracking: \(h.core.phase)")
            return
        }
        #expect(h.core.tracker.hasSeen("web-2.service"), "the newer listing's unit is the baseline")
        #expect(h.journal.filter { $0.unit == H.unit }.map(\.sequence) == Array(1...60), "every run once")
    }
}
