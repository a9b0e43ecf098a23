// SPDX-License-Identifier: Apache-2.0

import LifecycleCore
import LifecycleEngine
import Testing

/// Where a history read in slices ends: at the journal's tail when the recovery began, by journald's monotonic clock
/// within that boot.
struct SlicedHistoryTests {
    static let boot = String(repeating: "b", count: 32)
    static let end = JournalPosition(
        cursor: "s=1", bootID: boot, monotonicMicroseconds: 5_000_000, realtimeMicroseconds: 1_800_000_000_000_000
    )

    @Test("an entry is past the end when it is of the end's boot and later by journald's monotonic clock", arguments: [
        (boot as String?, UInt64(4_999_999), false),
        (boot as String?, UInt64(5_000_000), false),  // the tail entry itself is in the history
        (boot as String?, UInt64(5_000_001), true),
        (String(repeating: "a", count: 32) as String?, UInt64(9_000_000), false),  // an earlier boot
        (nil as String?, UInt64(9_000_000), false),  // no boot known: kept
    ])
    func pastEnd(boot: String?, monotonic: UInt64, isPast: Bool) {
        #expect(SlicedHistory(end: Self.end).isPastEnd(boot: boot, monotonicMicroseconds: monotonic) == isPast)
    }

    @Test("without an end (the tail could not be read) the history goes to the journal's end")
    func noEnd() {
        #expect(!SlicedHistory().isPastEnd(boot: Self.boot, monotonicMicroseconds: .max))
    }
}
