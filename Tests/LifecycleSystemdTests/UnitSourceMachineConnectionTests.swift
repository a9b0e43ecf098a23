// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
@testable import LifecycleSystemd
import Testing

/// The unit source's decisions about its connection and its resyncs, as tables: each step an input and the effects
/// it gives, with no bus.
struct UnitSourceMachineConnectionTests {
    typealias H = MachineHarness

    /// One row of a table: an input, and what the machine does about it.
    struct Step: CustomStringConvertible {
        var input: UnitSourceInput
        var effects: [UnitSourceEffect]
        var description: String { "\(input)" }

        init(_ input: UnitSourceInput, _ effects: [UnitSourceEffect]) {
            self.input = input
            self.effects = effects
        }
    }

    private func run(_ steps: [Step], on harness: inout H, sourceLocation: SourceLocation = #_sourceLocation) {
        for step in steps {
            #expect(harness.send(step.input) == step.effects, "\(step)", sourceLocation: sourceLocation)
        }
    }

    private static func webRead(_ index: Int, resync: Int) -> Step {
        let read = H.webFullReads[index]
        return Step(.propertyRead(resync: resync, read, H.answer(read, from: H.loaded)), [])
    }

    @Test("first connect: matches, then Subscribe, then the listing, then the reads, then initial; not-found skipped")
    func firstConnect() {
        var h = H()
        run([
            Step(.start, [.forgetDetails(of: nil), .connect(generation: 1)]),
            Step(.connected(generation: 1), [.subscribe(resync: 1)]),
            Step(.subscribed(resync: 1, nil), [.listUnits(resync: 1, patterns: ["*.service"])]),
            // ghost.service is only referenced: reading it would load it.
            Step(.listed(resync: 1, .success([H.webListed, H.ghostListed])), [.readProperties(resync: 1, H.webFullReads)]),
        ] + H.webFullReads.indices.map { Self.webRead($0, resync: 1) } + [
            Step(.propertiesRead(resync: 1, failure: nil), [
                .deliver(.initial([UnitFixtures.webSnapshot])), .finishStart(failure: nil),
            ]),
        ], on: &h)
        #expect(h.machine.isEstablished)
        #expect(h.logs.map(\.message) == ["Resynced with systemd", "Watching systemd units"])
    }

    @Test("a failed first connection is the caller's: reported, not retried", arguments: [
        Step(.connectFailed(generation: 1, H.reset), [.disconnect, .finishStart(failure: H.reset)]),
        Step(.connectionLost(generation: 1, H.reset), [.disconnect, .finishStart(failure: H.reset)]),
        Step(.connected(generation: 1), [.subscribe(resync: 1)]),
    ])
    func failedStart(step: Step) {
        var h = H()
        _ = h.send(.start)
        #expect(h.send(step.input) == step.effects)
        if step.input != .connected(generation: 1) {
            #expect(h.machine.phase == .idle, "start() may be called again")
            #expect(h.send(.timerFired(.reconnect)) == [])
        }
    }

    @Test("AlreadySubscribed is success; any other answer to Subscribe fails the start")
    func subscribeAnswers() {
        var h = H()
        _ = h.send([.start, .connected(generation: 1)])
        #expect(h.send(.subscribed(resync: 1, H.alreadySubscribed)) == [.listUnits(resync: 1, patterns: ["*.service"])])
        var failing = H()
        _ = failing.send([.start, .connected(generation: 1)])
        #expect(failing.send(.subscribed(resync: 1, H.serviceUnknown)) == [
            .disconnect, .finishStart(failure: H.serviceUnknown),
        ])
    }

    @Test("a lost connection is reported and set up again with back-off, in full")
    func reconnect() {
        var h = H.established()
        run([
            Step(.connectionLost(generation: 1, H.reset), [
                .disconnect, .deliver(.connectionLost(H.reset)), .armTimer(.reconnect, after: .milliseconds(100)),
            ]),
            Step(.timerFired(.reconnect), [.forgetDetails(of: nil), .connect(generation: 2)]),
            Step(.connectFailed(generation: 2, H.reset), [.disconnect, .armTimer(.reconnect, after: .milliseconds(200))]),
            Step(.timerFired(.reconnect), [.forgetDetails(of: nil), .connect(generation: 3)]),
            // The news of an earlier connection is not this one's.
            Step(.connectionLost(generation: 2, H.reset), []),
            Step(.connected(generation: 3), [.subscribe(resync: 2)]),
            Step(.subscribed(resync: 2, nil), [.listUnits(resync: 2, patterns: ["*.service"])]),
            // Known, but read in full: signals may have been lost while disconnected.
            Step(.listed(resync: 2, .success([H.webListed])), [.readProperties(resync: 2, H.webFullReads)]),
        ], on: &h)
        #expect(h.answerReads([.readProperties(resync: 2, H.webFullReads)], resync: 2) == [
            .deliver(.initial([UnitFixtures.webSnapshot])),
        ])
        #expect(h.logs.map(\.message).contains("Reconnected to the bus"))
        #expect(h.logs.first { $0.message == "Reconnected to the bus" }?.metadata["attempts"] == "2")
    }

    @Test("a failed resync is tried again with back-off, and in full when the failed one was")
    func failedResyncRetried() {
        var h = H.established()
        let list = UnitSourceEffect.listUnits(resync: 2, patterns: ["*.service"])
        run([
            Step(.nameOwnerChanged(oldOwner: "", newOwner: ":1.9"), [.forgetDetails(of: nil), .subscribe(resync: 2)]),
            Step(.subscribed(resync: 2, nil), [list]),
            Step(.listed(resync: 2, .failure(H.listingFailed)), [.armTimer(.resyncRetry, after: .milliseconds(100))]),
            // A request meanwhile waits for the retry: one resync, however often asked.
            Step(.reloading(false), [.deliver(.reloading(false)), .forgetDetails(of: nil)]),
            Step(.timerFired(.resyncRetry), [.subscribe(resync: 3)]),
            Step(.subscribed(resync: 3, H.serviceUnknown), [.armTimer(.resyncRetry, after: .milliseconds(200))]),
            Step(.timerFired(.resyncRetry), [.subscribe(resync: 4)]),
            Step(.subscribed(resync: 4, nil), [.listUnits(resync: 4, patterns: ["*.service"])]),
            // Still in full: signals were lost with the owner change.
            Step(.listed(resync: 4, .success([H.webListed])), [.readProperties(resync: 4, H.webFullReads)]),
        ], on: &h)
        #expect(h.answerReads([.readProperties(resync: 4, H.webFullReads)], resync: 4) == [
            .deliver(.initial([UnitFixtures.webSnapshot])),
        ])
        #expect(h.machine.phase == .established)
        #expect(h.logs.filter { $0.message == "Failed to resync with systemd, trying again" }.count == 2)
        #expect(h.logs.last?.message == "Resynced with systemd after failed attempts")
    }

    @Test("stop ends whatever waits and closes the connection; nothing comes after", arguments: [
        ("waiting to retry a resync", [UnitSourceInput.reloading(false), .subscribed(resync: 2, H.serviceUnknown)],
         [UnitSourceEffect.cancelTimer(.resyncRetry), .disconnect]),
        ("waiting to reconnect", [.connectionLost(generation: 1, H.reset)], [.cancelTimer(.reconnect)]),
        ("resyncing", [.reloading(false)], [.disconnect]),
        ("set up", [], [.disconnect]),
    ])
    func stop(situation: String, before: [UnitSourceInput], effects: [UnitSourceEffect]) {
        var h = H.established()
        _ = h.send(before)
        #expect(h.send(.stop) == effects, "\(situation)")
        #expect(h.send(.stop) == [], "idempotent")
        for late in [
            UnitSourceInput.timerFired(.resyncRetry), .timerFired(.reconnect), .subscribed(resync: 2, nil),
            .reloading(false), .unitRemoved("web.service"), .connectionLost(generation: 1, H.reset),
        ] {
            #expect(h.send(late) == [], "\(situation): \(late)")
        }
    }

    @Test("stop while the first connection is set up fails the start")
    func stopWhileStarting() {
        var h = H()
        _ = h.send([.start, .connected(generation: 1)])
        let effects = h.send(.stop)
        guard case .finishStart(let failure?) = effects.last else {
            Issue.record("expected the start to fail: \(effects)")
            return
        }
        #expect(effects.first == .disconnect)
        #expect(failure.errno == ECANCELED)
    }

    @Test("answers of a resync given up are stale: a newer one has begun")
    func staleAnswers() {
        var h = H.established()
        run([
            Step(.reloading(false), [.deliver(.reloading(false)), .forgetDetails(of: nil), .subscribe(resync: 2)]),
            Step(.subscribed(resync: 2, nil), [.listUnits(resync: 2, patterns: ["*.service"])]),
            Step(.connectionLost(generation: 1, H.reset), [
                .disconnect, .deliver(.connectionLost(H.reset)), .armTimer(.reconnect, after: .milliseconds(100)),
            ]),
            Step(.timerFired(.reconnect), [.forgetDetails(of: nil), .connect(generation: 2)]),
            Step(.connected(generation: 2), [.subscribe(resync: 3)]),
            // Resync 2's listing arrives now (the closed connection failed it, or it was on its way): ignored.
            Step(.listed(resync: 2, .success([])), []),
            Step(.listed(resync: 2, .failure(H.reset)), []),
            Step(.propertiesRead(resync: 2, failure: nil), []),
            Step(.subscribed(resync: 3, nil), [.listUnits(resync: 3, patterns: ["*.service"])]),
            // An answer to a step the resync is past is as stale.
            Step(.subscribed(resync: 3, H.serviceUnknown), []),
        ], on: &h)
        #expect(h.machine.units.keys.sorted() == ["web.service"], "the stale empty listing forgot nothing")
    }

    @Test("a resync asked for while the first one runs follows it")
    func requestDuringFirstResync() {
        var h = H()
        _ = h.send([.start, .connected(generation: 1), .subscribed(resync: 1, nil)])
        #expect(h.send(.reloading(false)) == [.deliver(.reloading(false)), .forgetDetails(of: nil)])
        let reads = h.send(.listed(resync: 1, .success([H.webListed])))
        #expect(h.answerReads(reads, resync: 1) == [
            .deliver(.initial([UnitFixtures.webSnapshot])), .finishStart(failure: nil), .subscribe(resync: 2),
        ])
    }
}
