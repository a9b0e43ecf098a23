// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Where lifecycled is in its life, with what belongs to each phase. What arrives while what came before it is not
/// yet recorded waits in the phase's `held`, in order.
public enum DaemonPhase: Sendable, Equatable {
    /// Delivering what an earlier process left and subscribing; no listing yet.
    case starting(held: HeldInputs)
    /// The listing is in; waiting for the journal to say what was missed before it.
    case recovering(RecoveryCause, listing: [UnitSnapshot], held: HeldInputs)
    /// Every change is recorded as it comes.
    case tracking
    /// systemd's signals are lost (it left the bus, or the connection broke) since this time (µs since the epoch):
    /// waiting for the next listing.
    case signalsLost(since: UInt64, held: HeldInputs)
    /// SIGTERM: nothing more is recorded.
    case stopping

    /// What waits in the phase; nil while tracking or stopping, which hold nothing.
    var held: HeldInputs? {
        switch self {
        case .starting(let held), .recovering(_, _, let held), .signalsLost(_, let held): held
        case .tracking, .stopping: nil
        }
    }

    /// Holds `change` until what came before it is recorded; false while tracking or stopping.
    mutating func hold(_ change: BufferedChange) -> Bool {
        update { $0.changes.append(change) }
    }

    /// Holds the D-Bus call `request` until the recovery is done; false while tracking or stopping.
    mutating func hold(request: DaemonInput) -> Bool {
        update { $0.requests.append(request) }
    }

    /// Takes the held changes of `units` out of the phase, in order.
    mutating func releaseChanges(of units: Set<String>) -> [BufferedChange] {
        var released: [BufferedChange] = []
        _ = update { held in
            released = held.changes.filter { units.contains($0.snapshot.name) }
            held.changes.removeAll { units.contains($0.snapshot.name) }
        }
        return released
    }

    private mutating func update(_ body: (inout HeldInputs) -> Void) -> Bool {
        switch self {
        case .starting(var held):
            body(&held)
            self = .starting(held: held)
        case .recovering(let cause, let listing, var held):
            body(&held)
            self = .recovering(cause, listing: listing, held: held)
        case .signalsLost(let since, var held):
            body(&held)
            self = .signalsLost(since: since, held: held)
        case .tracking, .stopping:
            return false
        }
        return true
    }
}

/// What waits in a phase until what came before it is recorded: systemd's changes, applied after the recovery's runs
/// and listing; and D-Bus calls, taken once the recovery is done, so that none takes a sequence number below a run
/// that happened before it.
public struct HeldInputs: Sendable, Equatable {
    public var changes: [BufferedChange]
    /// ``DaemonInput/request(_:reply:)`` inputs, in order.
    public var requests: [DaemonInput]

    public init(changes: [BufferedChange] = [], requests: [DaemonInput] = []) {
        self.changes = changes
        self.requests = requests
    }
}

/// Why the core reads the journal before taking a listing.
public enum RecoveryCause: Sendable, Equatable {
    /// lifecycled started: runs missed while no lifecycled ran.
    case start
    /// Signals were lost since this time (µs since the epoch).
    case signalsLost(since: UInt64)
    /// A reload added watched units: their runs are rebuilt from PID 1's whole journal, as on a first start.
    case watchAdded(UnitSelection)
}

/// A change held back until what came before it is recorded, with whether systemd was reloading when it came.
public struct BufferedChange: Sendable, Equatable {
    public var snapshot: UnitSnapshot
    public var whileReloading: Bool

    public init(snapshot: UnitSnapshot, whileReloading: Bool) {
        self.snapshot = snapshot
        self.whileReloading = whileReloading
    }
}

/// Whether READY=1 was sent, and whether lifecycled's D-Bus interface must be published again.
enum Readiness: Sendable, Equatable {
    /// READY=1 is not sent yet: the start's recovery or the interface's publication is not done.
    case starting
    /// READY=1 was sent.
    case ready
    /// READY=1 was sent, and the bus connection broke since: the interface is published again once systemd is back
    /// (the old connection's name and object went with it).
    case readyInterfaceLost
}
