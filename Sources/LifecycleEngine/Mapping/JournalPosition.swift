// SPDX-License-Identifier: Apache-2.0

/// A place in the local journal: an entry's cursor (`sd_journal_get_cursor(3)`), with the boot it was written in and
/// its times. lifecycled keeps one in its state directory to say how far PID 1's journal has been taken into account.
///
/// The cursor orders entries by journald's sequence numbers, and within one boot by the monotonic clock, so runs
/// after it are found whatever the wall clock did. Across boots only the wall clock can compare times.
public struct JournalPosition: Sendable, Hashable {
    /// The entry's cursor, as sd-journal writes it (`s=…;i=…;b=…;m=…;t=…;x=…`).
    public var cursor: String
    /// The entry's `_BOOT_ID` (32 hex digits).
    public var bootID: String
    /// The entry's `__MONOTONIC_TIMESTAMP` (µs since that boot began).
    public var monotonicMicroseconds: UInt64
    /// The entry's `__REALTIME_TIMESTAMP` (µs since the epoch).
    public var realtimeMicroseconds: UInt64

    public init(cursor: String, bootID: String, monotonicMicroseconds: UInt64, realtimeMicroseconds: UInt64) {
        self.cursor = cursor
        self.bootID = bootID
        self.monotonicMicroseconds = monotonicMicroseconds
        self.realtimeMicroseconds = realtimeMicroseconds
    }

    /// The wall-clock time (ms since the epoch) a moment of the same boot had by the clock as it was at this position:
    /// a clock stepped since then does not move it. nil for a moment of another boot.
    public func wallClock(ofMonotonic monotonic: UInt64, boot: String) -> Milliseconds? {
        guard boot == bootID else { return nil }
        let realtime = Int64(clamping: realtimeMicroseconds) + (Int64(clamping: monotonic) - Int64(clamping: monotonicMicroseconds))
        return Milliseconds(realtime / 1_000)
    }
}
