// SPDX-License-Identifier: Apache-2.0

import Glibc
import LifecycleEngine
@testable import LifecycleSystemd

/// Drives a ``UnitSourceMachine`` as the source does, with no bus: inputs in, effects out. Log lines are kept apart,
/// so that tables list what the machine does.
struct MachineHarness {
    var machine = UnitSourceMachine(
        patterns: [try! UnitPattern("*.service")],
        policy: ReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(5)),
        busName: "system bus"
    )
    var logs: [UnitSourceLog] = []

    /// The effects of `input`, log lines aside.
    mutating func send(_ input: UnitSourceInput) -> [UnitSourceEffect] {
        var effects: [UnitSourceEffect] = []
        for effect in machine.handle(input) {
            if case .log(let line) = effect { logs.append(line) } else { effects.append(effect) }
        }
        return effects
    }

    /// Sends each input and returns the effects of all of them.
    mutating func send(_ inputs: [UnitSourceInput]) -> [UnitSourceEffect] {
        inputs.flatMap { send($0) }
    }

    /// Answers every read of `effects`' batch for resync `id` as PID 1 would from `units`, then ends the batch.
    mutating func answerReads(
        _ effects: [UnitSourceEffect], resync id: Int, from units: [String: WatchedUnit] = Self.loaded
    ) -> [UnitSourceEffect] {
        guard let reads = Self.reads(in: effects) else { return [] }
        var out: [UnitSourceEffect] = []
        for read in reads {
            out += send(.propertyRead(resync: id, read, Self.answer(read, from: units)))
        }
        return out + send(.propertiesRead(resync: id, failure: nil))
    }

    /// Runs resync `id` from its `Subscribe()` to its end, PID 1 listing `listing` and answering from `units`.
    mutating func resync(
        _ id: Int, listing: [ListedUnit] = [Self.webListed], from units: [String: WatchedUnit] = Self.loaded
    ) -> [UnitSourceEffect] {
        var out = send([.subscribed(resync: id, nil)])
        let reads = send(.listed(resync: id, .success(listing)))
        out += reads
        if Self.reads(in: reads) != nil { out += answerReads(reads, resync: id, from: units) }
        return out
    }

    /// Started, connected, web.service listed, read and sent as `initial`.
    static func established() -> MachineHarness {
        var harness = MachineHarness()
        _ = harness.send([.start, .connected(generation: 1)])
        _ = harness.resync(1)
        harness.logs = []
        return harness
    }

    static func reads(in effects: [UnitSourceEffect]) -> [PropertyRead]? {
        for case .readProperties(_, let reads) in effects { return reads }
        return nil
    }

    // MARK: PID 1's side

    static let webPath = "/org/freedesktop/systemd1/unit/web_2eservice"
    static let webListed = ListedUnit(
        name: "web.service", loadState: "loaded", activeState: "active", subState: "running", path: webPath, jobID: 0
    )
    static let ghostListed = ListedUnit(
        name: "ghost.service", loadState: "not-found", activeState: "inactive", subState: "dead",
        path: "/org/freedesktop/systemd1/unit/ghost_2eservice", jobID: 0
    )

    /// web.service as PID 1 holds it: what ``UnitFixtures/webSnapshot`` shows.
    static let web = WatchedUnit(
        unit: UnitProperties(
            activeState: "active", subState: "running", invocationID: UnitFixtures.invocationHex,
            freezerState: "running", stateChangeTimestamp: 1_763_000_000_000_000,
            stateChangeTimestampMonotonic: 1_763_000_000_000, jobID: 0
        ),
        type: TypeProperties(result: "success", nRestarts: 1, execMainCode: 0, execMainStatus: 0, mainPID: 1234)
    )
    static let loaded = ["web.service": web]

    /// The `Get`s that read web.service in full.
    static let webFullReads = PropertyRead.fullReads(of: webListed)
    /// The check of web.service after a reload.
    static let webCheck = PropertyRead(
        unit: "web.service", path: webPath, interface: SystemdNames.unitInterface, name: "StateChangeTimestampMonotonic"
    )

    /// What PID 1 answers to `read`: the one property, or an error for a unit it does not hold.
    static func answer(_ read: PropertyRead, from units: [String: WatchedUnit]) -> PropertyReadAnswer {
        guard let unit = units[read.unit] else { return .failed(noSuchUnit) }
        let u = unit.unit, t = unit.type
        switch read.name {
        case "InvocationID": return .value(.unit(UnitProperties(invocationID: u.invocationID)))
        case "FreezerState": return .value(.unit(UnitProperties(freezerState: u.freezerState)))
        case "StateChangeTimestamp": return .value(.unit(UnitProperties(stateChangeTimestamp: u.stateChangeTimestamp)))
        case "StateChangeTimestampMonotonic":
            return .value(.unit(UnitProperties(stateChangeTimestampMonotonic: u.stateChangeTimestampMonotonic)))
        case "Result": return .value(.type(TypeProperties(result: t.result)))
        case "NRestarts": return .value(.type(TypeProperties(nRestarts: t.nRestarts)))
        case "ExecMainCode": return .value(.type(TypeProperties(execMainCode: t.execMainCode)))
        case "ExecMainStatus": return .value(.type(TypeProperties(execMainStatus: t.execMainStatus)))
        case "MainPID": return .value(.type(TypeProperties(mainPID: t.mainPID)))
        default: return .unparsable(SystemdError(errno: EINVAL, operation: "read \(read.name)"))
        }
    }

    static let noSuchUnit = SystemdError(
        errno: ENOENT, operation: "call Get", busErrorName: "org.freedesktop.systemd1.NoSuchUnit"
    )
    static let alreadySubscribed = SystemdError(
        errno: EEXIST, operation: "call Subscribe", busErrorName: SystemdNames.alreadySubscribed
    )
    static let serviceUnknown = SystemdError(
        errno: EHOSTUNREACH, operation: "call Subscribe", busErrorName: "org.freedesktop.DBus.Error.ServiceUnknown"
    )
    static let listingFailed = SystemdError(
        errno: EIO, operation: "call ListUnitsByPatterns", busErrorName: "org.freedesktop.DBus.Error.Failed"
    )
    static let reset = SystemdError(errno: ECONNRESET, operation: "process messages on the system bus")
}
