// SPDX-License-Identifier: Apache-2.0

/// A run's record as the unit's D-Bus properties tell it when the run has just ended: the source when PID 1 logged
/// no "Consumed …" entry (it logs one at debug level unless the run used more than 1 s of CPU, 64 MiB of memory or
/// 1 MiB of IO, or had IP traffic, so most short runs leave none at PID 1's default level).
extension RunRecord {
    /// The properties ``init(properties:isOneshot:endedMonotonic:)`` reads, all `t` (UInt64), so the daemon can `Get`
    /// exactly these:
    /// - `CPUUsageNSec`, `MemoryPeak`, `IOReadBytes`, `IOWriteBytes` on the unit's `org.freedesktop.systemd1.Service`
    ///   interface (its cgroup's accounting). `MemoryPeak` is v255+: on older systemd the `Get` fails, and the value
    ///   is left out.
    /// - `InactiveExitTimestampMonotonic`, `ActiveEnterTimestampMonotonic`, `InactiveEnterTimestampMonotonic` on
    ///   `org.freedesktop.systemd1.Unit` (PID 1's monotonic clock, µs; all versions).
    ///
    /// Whether the unit is a oneshot is the `Type` property of the Service interface (a string).
    public static let propertyNames = [
        "CPUUsageNSec", "MemoryPeak", "IOReadBytes", "IOWriteBytes",
        "InactiveExitTimestampMonotonic", "ActiveEnterTimestampMonotonic", "InactiveEnterTimestampMonotonic",
    ]

    /// The record the unit's property values tell, read when its run has ended.
    ///
    /// systemd says "[not set]" with UINT64_MAX (no accounting, cgroup v1, or a counter it could not read), and
    /// "never" with a timestamp of 0: both, and a missing name, give nil. No OOM or core dump: the properties of
    /// v252 do not tell them.
    ///
    /// - Parameters:
    ///   - properties: the values of ``propertyNames`` (any of them may be missing).
    ///   - isOneshot: the unit's `Type` is `oneshot`.
    ///   - endedMonotonic: PID 1's monotonic clock (µs) when the run ended, for a oneshot whose
    ///     `InactiveEnterTimestampMonotonic` is not yet this run's.
    public init(properties: [String: UInt64], isOneshot: Bool = false, endedMonotonic: UInt64? = nil) {
        func value(_ name: String) -> UInt64? { properties[name].flatMap(Self.known) }
        self.init(
            inactiveExitMonotonic: properties["InactiveExitTimestampMonotonic"],
            activeEnterMonotonic: properties["ActiveEnterTimestampMonotonic"],
            inactiveEnterMonotonic: properties["InactiveEnterTimestampMonotonic"],
            isOneshot: isOneshot, endedMonotonic: endedMonotonic
        )
        cpuSeconds = value("CPUUsageNSec").map { Double($0) / 1_000_000_000 }
        memoryPeakBytes = value("MemoryPeak")
        ioReadBytes = value("IOReadBytes")
        ioWriteBytes = value("IOWriteBytes")
    }

    /// The start-up and duration the run's timestamps tell (PID 1's monotonic clock, µs), as
    /// ``init(properties:isOneshot:endedMonotonic:)`` reads them: 0, `UINT64_MAX` and nil are not set. A snapshot's
    /// timestamps are given this way, without a dictionary of their names built for each run.
    init(
        inactiveExitMonotonic: UInt64?, activeEnterMonotonic: UInt64?, inactiveEnterMonotonic: UInt64? = nil,
        isOneshot: Bool = false, endedMonotonic: UInt64? = nil
    ) {
        func timestamp(_ value: UInt64?) -> UInt64? { value.flatMap(Self.known).flatMap { $0 == 0 ? nil : $0 } }
        let inactiveExit = timestamp(inactiveExitMonotonic)
        let inactiveEnter = timestamp(inactiveEnterMonotonic)
        let ended = endedMonotonic.flatMap { $0 == 0 ? nil : $0 }
        self.init(
            startupSeconds: Self.startupSeconds(
                inactiveExit: inactiveExit, activeEnter: timestamp(activeEnterMonotonic),
                inactiveEnter: inactiveEnter, isOneshot: isOneshot, endedMonotonic: ended
            ),
            durationSeconds: Self.durationSeconds(inactiveExit: inactiveExit, inactiveEnter: inactiveEnter, endedMonotonic: ended)
        )
    }

    /// Seconds from leaving inactive to becoming active; for a oneshot that never became active, from leaving
    /// inactive to the run's end.
    ///
    /// systemd keeps each timestamp until the state is entered again, so a value from an earlier run is still there
    /// in this one: an end before the start is not this run's. A unit that was never active in this run (a start
    /// that failed) has no start-up time, unless it is a oneshot, whose run is its activation (it goes activating,
    /// deactivating, inactive without `RemainAfterExit=`; with it, it becomes active and counts as any other unit).
    /// Between automatic restarts the unit passes through failed or inactive, and leaves it when the restart is
    /// scheduled: the start-up time of a restarted run includes `RestartSec=`.
    static func startupSeconds(
        inactiveExit: UInt64?, activeEnter: UInt64?, inactiveEnter: UInt64?, isOneshot: Bool, endedMonotonic: UInt64?
    ) -> Double? {
        guard let start = inactiveExit else { return nil }
        if let activeEnter, activeEnter >= start { return seconds(activeEnter - start) }
        guard isOneshot else { return nil }
        if let inactiveEnter, inactiveEnter >= start { return seconds(inactiveEnter - start) }
        if let endedMonotonic, endedMonotonic >= start { return seconds(endedMonotonic - start) }
        return nil
    }

    /// Seconds from leaving inactive to the run's end: entering inactive or failed again, or, for a run that ended
    /// into a pending automatic restart (systemd before 254 keeps the unit activating then), the change that showed
    /// the end (`endedMonotonic`). An inactive-enter time before the start is an earlier run's.
    static func durationSeconds(inactiveExit: UInt64?, inactiveEnter: UInt64?, endedMonotonic: UInt64?) -> Double? {
        guard let start = inactiveExit else { return nil }
        if let inactiveEnter, inactiveEnter >= start { return seconds(inactiveEnter - start) }
        if let endedMonotonic, endedMonotonic >= start { return seconds(endedMonotonic - start) }
        return nil
    }

    private static func seconds(_ microseconds: UInt64) -> Double {
        Double(microseconds) / 1_000_000
    }
}
