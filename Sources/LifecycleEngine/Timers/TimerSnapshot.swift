// SPDX-License-Identifier: Apache-2.0

/// What systemd says about one timer at one moment: the `org.freedesktop.systemd1.Timer` properties of its unit
/// object, read with the watched service whose `TriggeredBy=` names it, then kept up to date by `PropertiesChanged`.
/// Plain values, so the rules (``TimerBook``) are tested without D-Bus. Times are systemd's microseconds; 0 is
/// never (and `UINT64_MAX` for a next elapse, as systemd writes "none").
public struct TimerSnapshot: Sendable, Hashable {
    /// The timer unit, e.g. `backup.timer`.
    public var name: String
    /// The unit it starts (`Unit`), e.g. `backup.service`.
    public var unit: String
    /// `NextElapseUSecRealtime`: the next calendar elapse (µs since the epoch).
    public var nextElapseRealtime: UInt64
    /// `NextElapseUSecMonotonic`: the next monotonic elapse (`OnUnitActiveSec=`, `OnBootSec=`, …), PID 1's clock.
    public var nextElapseMonotonic: UInt64
    /// `LastTriggerUSec` and `LastTriggerUSecMonotonic`: when it last elapsed. The realtime value of a
    /// `Persistent=true` timer survives reboots; the monotonic one is this boot's only.
    public var lastTrigger: UInt64
    public var lastTriggerMonotonic: UInt64
    /// `AccuracyUSec` and `RandomizedDelayUSec`: how far after its schedule systemd may let the timer elapse.
    public var accuracy: UInt64
    public var randomizedDelay: UInt64
    /// `Persistent`: a run missed while the machine was off is started at boot.
    public var persistent: Bool

    public init(
        name: String, unit: String, nextElapseRealtime: UInt64 = 0, nextElapseMonotonic: UInt64 = 0,
        lastTrigger: UInt64 = 0, lastTriggerMonotonic: UInt64 = 0, accuracy: UInt64 = 60_000_000,
        randomizedDelay: UInt64 = 0, persistent: Bool = false
    ) {
        self.name = name
        self.unit = unit
        self.nextElapseRealtime = nextElapseRealtime
        self.nextElapseMonotonic = nextElapseMonotonic
        self.lastTrigger = lastTrigger
        self.lastTriggerMonotonic = lastTriggerMonotonic
        self.accuracy = accuracy
        self.randomizedDelay = randomizedDelay
        self.persistent = persistent
    }

    /// When the timer last elapsed, in ms since the epoch; nil when never.
    public var lastTriggerTime: Milliseconds? { Self.milliseconds(lastTrigger) }

    /// When the timer elapses next, in ms since the epoch; nil when nothing is planned (the timer stopped, or a
    /// single-shot timer spent). A monotonic elapse is placed on the wall clock by `now` and `uptime`, read together.
    public func nextElapse(now: Milliseconds, uptime: Uptime) -> Milliseconds? {
        let monotonic = Self.milliseconds(nextElapseMonotonic).map { now + ($0 - uptime.milliseconds) }
        return [Self.milliseconds(nextElapseRealtime), monotonic].compactMap { $0 }.min()
    }

    /// How long after its schedule systemd may let the timer elapse: its accuracy plus its randomized delay (ms).
    public var allowance: Milliseconds {
        Milliseconds(clamping: (accuracy / 1_000) &+ (randomizedDelay / 1_000))
    }

    /// systemd's microseconds as ms, nil for never (0) and none (`UINT64_MAX`).
    static func milliseconds(_ microseconds: UInt64) -> Milliseconds? {
        microseconds == 0 || microseconds == .max ? nil : Milliseconds(microseconds / 1_000)
    }
}
