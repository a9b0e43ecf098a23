// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import Testing

/// The phase transitions as a table: from a phase, one input, to a phase and the effects the loop performs (the
/// core's and those of the answers, in order; logs, timers and metrics writes left out).
struct DaemonPhaseTests {
    typealias H = CoreHarness

    static let request = DaemonInput.request(EventRequest(unit: H.unit, event: .custom("deploy")), reply: ReplyToken(7))
    static let change = DaemonInput.changed(H.snapshot("active", "a", second: 20))
    /// A change of a unit the journal names nothing of (``named``), which a recovery takes live.
    static let freshChange = DaemonInput.changed(H.snapshot("active", "n", second: 20, unit: "web-new.service"))
    static let named = DaemonInput.journaledUnitsRead(JournaledUnits(logged: [H.unit], dispatched: []))

    /// The inputs that lead from a fresh core to each phase; the journal's recovery answers are held back.
    enum From: String, Sendable, CaseIterable {
        case starting, recoveringAtStart, recoveringNamed, tracking, signalsLost, recoveringAfterSignalsLost
        case recoveringAfterSystemdLeft, recoveringWithGap, recoveringWithGapListed, stopping

        var inputs: [DaemonInput] {
            switch self {
            case .starting: [.start]
            case .recoveringAtStart: [.start, .listing([])]
            // The recovery's read said what the journal names (web.service only); its answer is still awaited.
            case .recoveringNamed: Self.recoveringAtStart.inputs + [DaemonPhaseTests.named]
            case .tracking: [.start, .listing([]), .recovered(RecoveryAnswer())]
            // The bus connection broke (systemd leaving the bus, `.signalsLost`, leads to the same phase).
            case .signalsLost: Self.tracking.inputs + [.connectionLost("test")]
            case .recoveringAfterSignalsLost: Self.signalsLost.inputs + [.listing([])]
            case .recoveringAfterSystemdLeft: Self.tracking.inputs + [.signalsLost, .listing([])]
            // systemd left the bus while the start's recovery read the journal (``RecoveryGap``); then listed again.
            case .recoveringWithGap: Self.recoveringAtStart.inputs + [.signalsLost]
            case .recoveringWithGapListed: Self.recoveringWithGap.inputs + [.listing([])]
            case .stopping: [.start, .stop]
            }
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var from: From
        var input: DaemonInput
        var to: String
        var effects: [String]
        var testDescription: String { "\(from.rawValue) + \(String(describing: input).prefix(40)) → \(to)" }
    }

    // A unit never seen before is looked for in the archive before its change is taken (readArchive).
    static let rows: [Row] = [
        Row(from: .starting, input: change, to: "starting", effects: ["readArchive"]),
        // A request for a unit neither recorded nor seen asks the archive first (web.service is unknown here).
        Row(from: .starting, input: request, to: "starting", effects: ["readArchive"]),
        Row(from: .starting, input: .listing([]), to: "recovering", effects: ["notify", "readRecovery"]),
        Row(from: .starting, input: .signalsLost, to: "starting", effects: []),
        Row(from: .recoveringAtStart, input: change, to: "recovering", effects: ["readArchive"]),
        Row(from: .recoveringAtStart, input: request, to: "recovering", effects: ["readArchive"]),
        Row(from: .recoveringAtStart, input: .listing([]), to: "recovering", effects: []),
        // Before the journal named its units, every change waits.
        Row(from: .recoveringAtStart, input: freshChange, to: "recovering", effects: ["readArchive"]),
        Row(from: .recoveringAtStart, input: named, to: "recovering", effects: []),
        // A unit the journal holds nothing of, with no record: its change is applied at once (``LiveUnits``); one
        // the journal names waits for the history, and every call for the recovery's end.
        Row(
            from: .recoveringNamed, input: freshChange, to: "recovering",
            effects: ["readArchive", "readVersion", "save", "send"]
        ),
        Row(from: .recoveringNamed, input: change, to: "recovering", effects: ["readArchive"]),
        Row(from: .recoveringNamed, input: request, to: "recovering", effects: ["readArchive"]),
        Row(from: .recoveringNamed, input: named, to: "recovering", effects: []),
        Row(
            from: .recoveringAtStart, input: .recovered(RecoveryAnswer()), to: "tracking",
            effects: ["publishManager", "notify", "markTracking", "releaseMemory"]
        ),
        // Signals lost while the start's recovery reads: its history is recorded, then the gap is read, once the
        // units are listed again; READY waits for the gap's end.
        Row(from: .recoveringAtStart, input: .signalsLost, to: "recovering", effects: []),
        Row(from: .recoveringWithGap, input: .recovered(RecoveryAnswer()), to: "signalsLost", effects: []),
        Row(from: .recoveringWithGapListed, input: .recovered(RecoveryAnswer()), to: "recovering", effects: ["readRecovery"]),
        Row(from: .tracking, input: change, to: "tracking", effects: ["readArchive", "readVersion", "save", "send"]),
        Row(from: .tracking, input: request, to: "tracking", effects: ["readArchive", "save", "reply", "send"]),
        Row(from: .tracking, input: .signalsLost, to: "signalsLost", effects: []),
        Row(from: .tracking, input: .connectionLost("test"), to: "signalsLost", effects: ["notify"]),
        Row(from: .signalsLost, input: change, to: "signalsLost", effects: ["readArchive"]),
        Row(from: .signalsLost, input: request, to: "signalsLost", effects: ["readArchive"]),
        Row(from: .signalsLost, input: .listing([]), to: "recovering", effects: ["readRecovery"]),
        // The bus connection broke after READY=1: the interface is published again, READY=1 is not sent again.
        Row(
            from: .recoveringAfterSignalsLost, input: .recovered(RecoveryAnswer()), to: "tracking",
            effects: ["publishManager"]
        ),
        // systemd left the bus, lifecycled's connection did not break: the interface stays.
        Row(from: .recoveringAfterSystemdLeft, input: .recovered(RecoveryAnswer()), to: "tracking", effects: []),
        Row(from: .tracking, input: .stop, to: "stopping", effects: ["notify", "exit"]),
        Row(from: .recoveringAtStart, input: .stop, to: "stopping", effects: ["notify", "exit"]),
        Row(from: .stopping, input: change, to: "stopping", effects: ["readArchive"]),
        Row(from: .stopping, input: .listing([]), to: "stopping", effects: []),
        Row(from: .stopping, input: request, to: "stopping", effects: ["reply"]),
    ]

    @Test("from a phase, an input leads to a phase and effects", arguments: rows)
    func transition(_ row: Row) throws {
        var h = try Self.harness(in: row.from)
        h.performed = []
        h.send(row.input)
        #expect(Self.name(h.core.phase) == row.to)
        let kinds = h.performed.map(Self.name).filter { !["log", "arm", "writeMetrics"].contains($0) }
        #expect(kinds == row.effects)
    }

    @Test("what a phase holds is taken once the recovery is done: the changes after the missed runs, then the requests")
    func heldUntilRecovered() throws {
        var h = try Self.harness(in: .signalsLost)
        h.send(Self.request)
        h.send(Self.change)
        #expect(h.core.phase == .signalsLost(since: UInt64(H.t0) * 1_000, held: HeldInputs(
            changes: [BufferedChange(snapshot: H.snapshot("active", "a", second: 20), whileReloading: false)],
            requests: [Self.request]
        )))
        h.send(.listing([H.snapshot("active", "a", second: 20)]))
        #expect(h.replies.isEmpty)
        h.send(.recovered(RecoveryAnswer()))
        #expect(h.dispatches() == ["1 launch a", "2 deploy"])
        #expect(h.replies[ReplyToken(7)] == .success(2))
        #expect(h.core.phase == .tracking)
    }

    @Test("SIGTERM answers the calls held for a recovery that will not finish, and refuses those that come after it")
    func stoppingAnswersHeldCalls() throws {
        var h = try Self.harness(in: .recoveringAtStart)
        h.send(Self.request)
        #expect(h.replies.isEmpty, "held")
        h.send(.stop)
        #expect(h.replies[ReplyToken(7)] == .failure(.stopping))
        h.send(.request(EventRequest(unit: H.unit, event: .custom("late")), reply: ReplyToken(8)))
        #expect(h.replies[ReplyToken(8)] == .failure(.stopping))
        #expect(h.journal.isEmpty, "nothing recorded")
    }

    /// A harness whose core is in phase `from`; the journal does not answer a recovery, which stays under way.
    static func harness(in from: From) throws -> H {
        var h = try H()
        h.recovery = nil
        for input in from.inputs { h.send(input) }
        return h
    }

    /// The case name of an enum value.
    static func name(_ value: some Any) -> String {
        String(String(describing: value).prefix { $0 != "(" })
    }
}
