// SPDX-License-Identifier: Apache-2.0

import LifecycleSystemd

/// lifecycled's dispatches of one unit, read from the system journal (through LifecycleSystemd, the only module that
/// touches libsystemd), so `lifecyclectl runs` works while lifecycled is down.
struct DispatchJournal: Sendable {
    /// The journal fields a run is made of.
    static let fields = [
        "LIFECYCLE_EVENT", "LIFECYCLE_TIME", "LIFECYCLE_SEQUENCE", "LIFECYCLE_INVOCATION_ID", "LIFECYCLE_VERSION",
        "LIFECYCLE_RECONCILED", "LIFECYCLE_UNIT_RESULT", "LIFECYCLE_EXIT_CODE", "LIFECYCLE_EXIT_STATUS",
    ]

    /// The dispatches of `unit`, oldest first, each as its `LIFECYCLE_*` fields.
    ///
    /// Only root's entries count (`_UID=0`): lifecycled runs as root, and anyone may log an entry that looks like a
    /// dispatch. All of them are read, so that a run that began long ago still has its beginning.
    ///
    /// - Throws: `SystemdError` when the journal cannot be opened or read.
    func dispatches(of unit: String) throws(SystemdError) -> [[String: String]] {
        let matches = ["SYSLOG_IDENTIFIER=lifecycled", "_UID=0", "LIFECYCLE_UNIT=\(unit)"]
        return try JournalReader().entries(matching: matches, fields: Self.fields).map(\.fields)
    }
}
