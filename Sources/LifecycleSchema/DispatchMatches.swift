// SPDX-License-Identifier: Apache-2.0

/// The journal matches that find lifecycled's entries: the one definition the daemon (its delivery look-ups and
/// recovery) and `lifecyclectl` (runs, follow, the fleet view) share.
public enum DispatchMatches {
    /// lifecycled's own entries: its identifier, and root's only. Anyone may log an entry that looks like a dispatch
    /// under any identifier; lifecycled runs as root, and systemd-journal-remote keeps the sender's `_UID`, so
    /// collected journals are filtered the same way.
    public static let own = ["SYSLOG_IDENTIFIER=\(DispatchJournalEntry.syslogIdentifier)", "_UID=0"]

    /// Every dispatch of `unit`.
    public static func unit(_ unit: String) -> [String] {
        own + ["\(DispatchField.unit)=\(unit)"]
    }
}
