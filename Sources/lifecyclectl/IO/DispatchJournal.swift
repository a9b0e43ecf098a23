// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd

/// lifecycled's dispatches, read from the system journal or from journal files collected from other machines
/// (through LifecycleSystemd, the only module that touches libsystemd), so `lifecyclectl runs` works while lifecycled
/// is down.
struct DispatchJournal: Sendable {
    /// The journal fields a run is made of, and the machine that wrote them.
    static let fields = [
        "LIFECYCLE_EVENT", "LIFECYCLE_TIME", "LIFECYCLE_SEQUENCE", "LIFECYCLE_INVOCATION_ID", "LIFECYCLE_VERSION",
        "LIFECYCLE_RECONCILED", "LIFECYCLE_UNIT_RESULT", "LIFECYCLE_EXIT_CODE", "LIFECYCLE_EXIT_STATUS",
        "_HOSTNAME", "_MACHINE_ID",
    ]

    /// The fields of a fleet row besides those of a run.
    static let fleetFields = fields + ["LIFECYCLE_UNIT", "LIFECYCLE_PAYLOAD"]

    /// Only root's entries count (`_UID=0`): lifecycled runs as root, and anyone may log an entry that looks like a
    /// dispatch. systemd-journal-remote keeps the sender's `_UID`, so collected journals are filtered the same way.
    static let lifecycledMatches = ["SYSLOG_IDENTIFIER=lifecycled", "_UID=0"]

    var source: JournalSource = .local

    /// The dispatches of `unit`, oldest first, each as its `LIFECYCLE_*` fields and the machine's.
    ///
    /// All of them are read, so that a run that began long ago still has its beginning.
    ///
    /// - Throws: `SystemdError` when the journal cannot be opened or read.
    func dispatches(of unit: String) throws(SystemdError) -> [[String: String]] {
        let matches = Self.lifecycledMatches + ["LIFECYCLE_UNIT=\(unit)"]
        return try JournalReader(source: source).entries(matching: matches, fields: Self.fields).map(\.fields)
    }

    /// Every dispatch of every unit and machine, oldest first, with the fields of ``fleetFields``.
    ///
    /// - Throws: `SystemdError` when the journal cannot be opened or read.
    func allDispatches() throws(SystemdError) -> [[String: String]] {
        try JournalReader(source: source).entries(matching: Self.lifecycledMatches, fields: Self.fleetFields)
            .map(\.fields)
    }
}
