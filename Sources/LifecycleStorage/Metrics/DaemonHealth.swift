// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// What only a running lifecycled knows about itself, for its metrics: counted since the process started (a restart
/// begins again at 0, which Prometheus's `rate()` and `increase()` treat as a counter reset), except the gauges.
public struct DaemonHealth: Sendable, Equatable {
    /// When this lifecycled started (ms since the epoch): the time of the counters' last reset.
    public var startTime: Milliseconds
    /// The manager whose units are watched: `system` or `user`.
    public var bus: String
    /// Dispatches the journal took, by kind: `launch`, `wake`, `sleep`, `crash`, `custom`.
    public var dispatches: [String: Int] = [:]
    /// Writes the journal refused (each stops a batch, which is tried again a second later).
    public var journalRefusals = 0
    /// Batches sent again after a refusal.
    public var journalRetries = 0
    /// Entries journald accepted and then dropped (its rate limit), found missing and sent again.
    public var journalDrops = 0
    /// Sent dispatches given up unshown: more than a unit's bound waited for a journal that did not show them.
    public var journalGivenUp = 0
    /// Dispatches made but not yet taken by the journal.
    public var pendingDispatches = 0
    /// Times the bus connection broke and lifecycled reconnected.
    public var busReconnects = 0
    /// Loaded units that match a `watch` pattern, as of the last listing.
    public var watchedUnits = 0
    /// What is degraded now, and since when.
    public var degradations = Degradations()

    public init(startTime: Milliseconds, bus: String) {
        self.startTime = startTime
        self.bus = bus
    }

    /// The kinds of dispatch, each written even at 0 so that `increase()` sees the first one.
    public static let dispatchKinds = ["crash", "custom", "launch", "missed", "sleep", "wake"]
}
