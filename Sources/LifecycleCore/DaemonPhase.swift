// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// Where lifecycled is in its life, with what belongs to each phase. Changes that arrive while what came before them
/// is not yet recorded wait in the phase's `buffered`, in order.
public enum DaemonPhase: Sendable, Equatable {
    /// Delivering what an earlier process left and subscribing; no listing yet.
    case starting(buffered: [BufferedChange])
    /// The listing is in; waiting for the journal to say what was missed before it.
    case recovering(RecoveryCause, listing: [UnitSnapshot], buffered: [BufferedChange])
    /// Every change is recorded as it comes.
    case tracking
    /// systemd's signals are lost (it left the bus, or the connection broke) since this time (µs since the epoch):
    /// waiting for the next listing.
    case signalsLost(since: UInt64, buffered: [BufferedChange])
    /// SIGTERM: nothing more is recorded.
    case stopping
}

/// Why the core reads the journal before taking a listing.
public enum RecoveryCause: Sendable, Equatable {
    /// lifecycled started: runs missed while no lifecycled ran.
    case start
    /// Signals were lost since this time (µs since the epoch).
    case signalsLost(since: UInt64)
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
