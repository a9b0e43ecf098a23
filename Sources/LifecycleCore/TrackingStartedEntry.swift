// SPDX-License-Identifier: Apache-2.0

import LifecycleSchema

/// The journal entry lifecycled writes once it tracks its units (when it sends READY=1).
///
/// From then on that instance of lifecycled saw every run of a watched unit begin. The next start looks in PID 1's
/// journal for runs it missed from the position saved in the state directory (``JournalPositionFile``), which
/// retention cannot remove; only without one (an upgrade from a version that did not save it) from the last entry of
/// the newest instance that wrote this entry. An instance that died during its start-up never wrote it, so the runs
/// it may have missed are looked for too.
public enum TrackingStartedEntry {
    /// Generated once with `systemd-id128 new`; never change it (docs/journal.md).
    public static let messageID = "081be4c15c3f4ca9acd5f51507046ad0"

    public static func fields(status: String) -> [(name: String, value: String)] {
        [
            ("MESSAGE", "Tracking: \(status)"),
            ("MESSAGE_ID", messageID),
            ("PRIORITY", "6"),
            ("SYSLOG_IDENTIFIER", DispatchJournalEntry.syslogIdentifier),
        ]
    }
}
