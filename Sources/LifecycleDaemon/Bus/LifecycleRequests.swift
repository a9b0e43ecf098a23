// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleStorage

/// What lifecycled's D-Bus interface asks of the daemon: send an event, read the records and what is degraded.
///
/// ``ManagerObject`` talks to the daemon only through this protocol, so its tests can answer with a fake.
///
/// Contract: the methods may be called from any task, concurrently; each completes without waiting for the bus.
/// ``send(_:)`` either records and dispatches the event or refuses it and records nothing.
public protocol LifecycleRequests: Sendable {
    /// Records and dispatches a manual or custom event at the current time.
    ///
    /// - Returns: The dispatch's sequence number (0 when the event was counted but is not dispatched), or why the
    ///   event was refused.
    func send(_ request: EventRequest) async -> Result<UInt64, EventRequestError>

    /// The stored record of `unit`, nil when it has none.
    func record(of unit: String) async -> UnitRecord?

    /// Every stored record, sorted by unit name.
    func records() async -> [UnitRecord]

    /// What is degraded now, and since when.
    func degradations() async -> Degradations
}
