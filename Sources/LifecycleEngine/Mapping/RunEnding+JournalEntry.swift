// SPDX-License-Identifier: Apache-2.0

extension RunEnding.Entry {
    /// One of PID 1's entries as the history and the endings read it, nil without a `MESSAGE_ID`. Its time is when PID 1
    /// sent it (`_SOURCE_REALTIME_TIMESTAMP`), else when journald got it: a run's begin must compare exactly with
    /// systemd's state-change times (see ``UnitSnapshot/predates(_:monotonic:)``). For an entry of `thisBoot`, PID 1's
    /// monotonic time too (`_SOURCE_MONOTONIC_TIMESTAMP`, else journald's), and with `clock` the time by the wall clock
    /// as it was at that position (``positionTime``).
    public init?(pid1 entry: JournalEntry, clock: JournalPosition? = nil, thisBoot: String? = nil) {
        guard let messageID = entry.fields["MESSAGE_ID"] else { return nil }
        let sent = entry.fields["_SOURCE_REALTIME_TIMESTAMP"].flatMap { UInt64($0) } ?? entry.realtimeMicroseconds
        let boot = entry.fields["_BOOT_ID"]
        let monotonic = entry.fields["_SOURCE_MONOTONIC_TIMESTAMP"].flatMap { UInt64($0) } ?? entry.monotonicMicroseconds
        self.init(
            // The known ids as their constants: a long history keeps several entries per run, and each id read from
            // the journal is a string of its own (32 bytes, out of line).
            messageID: RunEnding.MessageID.all.first { $0 == messageID } ?? messageID,
            time: Milliseconds(sent / 1_000), fields: entry.fields,
            monotonicMicroseconds: boot != nil && boot == thisBoot ? monotonic : nil,
            positionTime: boot.flatMap { clock?.wallClock(ofMonotonic: monotonic, boot: $0) }
        )
    }
}
