// SPDX-License-Identifier: Apache-2.0

import LifecycleSchema

/// A small entry lifecycled writes when dispatches it sent are not in the journal yet and nothing sent after them is:
/// journald takes its socket's entries in order, so once a probe is there, every dispatch sent before it was either
/// written or dropped (journald's rate limit). Without it, the last dispatches before a quiet spell could never be
/// told dropped from slow. A probe is only written while dispatches are missing, at most once per look (looks back
/// off to once every 30 s), at debug priority.
public enum JournalProbeEntry {
    /// Generated once; never change it (docs/journal.md).
    public static let messageID = "a77f27aab5d441e6881b299bd4764154"
    public static let numberField = DispatchField.probe

    public static func fields(number: UInt64, missing: Int) -> [(name: String, value: String)] {
        fields(label: String(number), message: "Checking the journal for \(missing) dispatches not seen yet")
    }

    /// The matches that find probe `number` of the process `pid` among lifecycled's own root-owned entries.
    public static func query(number: UInt64, pid: Int32) -> [String] {
        query(label: String(number), pid: pid)
    }

    /// The probe written before a run's end is looked for (``JournalBarrier``), labelled `end-N` so that it is never
    /// taken for a delivery probe of the same number.
    public static func fields(barrier: UInt64, unit: String) -> [(name: String, value: String)] {
        fields(label: barrierLabel(barrier), message: "Checking the journal for how the previous run of \(unit) ended")
    }

    public static func query(barrier: UInt64, pid: Int32) -> [String] {
        query(label: barrierLabel(barrier), pid: pid)
    }

    private static func barrierLabel(_ number: UInt64) -> String { "end-\(number)" }

    /// The probe written before PID 1's history is read at a recovery (``JournalBarrier``), labelled `history-N`. At
    /// notice, not debug: a journald that stores nothing below notice would otherwise make every start wait for
    /// the barrier's patience.
    public static func fields(historyBarrier number: UInt64) -> [(name: String, value: String)] {
        fields(
            label: historyLabel(number), message: "Reading PID 1's journal up to here for runs lifecycled did not see",
            priority: 5
        )
    }

    public static func query(historyBarrier number: UInt64, pid: Int32) -> [String] {
        query(label: historyLabel(number), pid: pid)
    }

    private static func historyLabel(_ number: UInt64) -> String { "history-\(number)" }

    private static func fields(label: String, message: String, priority: Int = 7) -> [(name: String, value: String)] {
        [
            ("MESSAGE", message),
            ("MESSAGE_ID", messageID),
            ("PRIORITY", String(priority)),
            ("SYSLOG_IDENTIFIER", DispatchJournalEntry.syslogIdentifier),
            (numberField, label),
        ]
    }

    private static func query(label: String, pid: Int32) -> [String] {
        DispatchMatches.own + ["MESSAGE_ID=\(messageID)", "_PID=\(pid)", "\(numberField)=\(label)"]
    }
}
