// SPDX-License-Identifier: Apache-2.0

/// Everything that can happen to a ``UnitSourceMachine``, one at a time: the source's own calls, the connection,
/// systemd's signals (already parsed: the machine never sees a bus message), the answers to its effects, and timers.
enum UnitSourceInput: Sendable, Hashable {
    /// ``SystemdUnitSource/start()``: connect for the first time.
    case start
    /// ``SystemdUnitSource/stop()``.
    case stop

    // MARK: The connection

    /// Connection `generation` is open and its matches are installed (``UnitSourceEffect/connect(generation:)``).
    case connected(generation: Int)
    /// Connection `generation` could not be opened, or a match could not be installed.
    case connectFailed(generation: Int, SystemdError)
    /// Connection `generation` broke (`sd_bus_process` failed, e.g. `-ECONNRESET` after the bus daemon went away).
    case connectionLost(generation: Int, SystemdError)

    // MARK: Answers to a resync's calls

    /// `Subscribe()` of resync `resync` returned; nil on success, else the error (`AlreadySubscribed` among them).
    case subscribed(resync: Int, SystemdError?)
    /// `ListUnitsByPatterns` of resync `resync`, parsed, with `not-found` units still in it.
    case listed(resync: Int, Result<[ListedUnit], SystemdError>)
    /// One `Get` of a ``UnitSourceEffect/readProperties(resync:_:)`` batch, in arrival order relative to signals.
    case propertyRead(resync: Int, PropertyRead, PropertyReadAnswer)
    /// Every reply of the batch is in; the failure if a call could not be sent.
    case propertiesRead(resync: Int, failure: SystemdError?)

    // MARK: systemd's signals

    /// `PropertiesChanged` of a unit object: the type interface's values, or the `.Unit` ones that follow them.
    case propertiesChanged(unit: String, InterfaceProperties)
    /// The manager's `UnitRemoved`.
    case unitRemoved(String)
    /// The manager's `JobRemoved`.
    case jobRemoved(unit: String, jobID: UInt32, result: String)
    /// The manager's `Reloading(active)`.
    case reloading(Bool)
    /// `NameOwnerChanged` of `org.freedesktop.systemd1`; an empty owner is none.
    case nameOwnerChanged(oldOwner: String, newOwner: String)

    /// A timer armed with ``UnitSourceEffect/armTimer(_:after:)`` fired.
    case timerFired(UnitSourceTimer)
}

/// The properties one `PropertiesChanged` or one `Get` carried, by interface; only those present are set.
enum InterfaceProperties: Sendable, Hashable {
    /// `org.freedesktop.systemd1.Unit`.
    case unit(UnitProperties)
    /// The unit's type interface (`.Service`, `.Socket`, …).
    case type(TypeProperties)
}

/// How one `Get` of a resync was answered.
enum PropertyReadAnswer: Sendable, Hashable {
    /// The value, parsed.
    case value(InterfaceProperties)
    /// PID 1 answered with an error: the unit was unloaded after the listing.
    case failed(SystemdError)
    /// The reply did not hold what the property's type says.
    case unparsable(SystemdError)
}

/// The source's timers; each is armed at most once at a time.
enum UnitSourceTimer: Sendable, Hashable {
    /// The back-off before the next attempt to connect after the connection broke.
    case reconnect
    /// The back-off before a failed resync is tried again.
    case resyncRetry
}
