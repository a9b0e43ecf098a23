// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleSchema
import LifecycleSystemd

/// lifecycled's dispatches, read from the system journal or from journal files collected from other machines
/// (through LifecycleSystemd, the only module that touches libsystemd), so `lifecyclectl runs` works while lifecycled
/// is down. Only root's entries count (``DispatchMatches/own``).
struct DispatchJournal: Sendable {
    var source: JournalSource = .local

    /// The dispatches of `unit`, oldest first, with the machine that wrote them.
    ///
    /// All of them are read, so that a run that began long ago still has its beginning.
    ///
    /// - Throws: `SystemdError` when the journal cannot be opened or read.
    func dispatches(of unit: String) throws(SystemdError) -> [JournaledDispatch] {
        try read(matching: DispatchMatches.unit(unit), fields: JournaledDispatch.fields + Self.machineFields)
    }

    /// Every dispatch of every unit and machine, oldest first, with its payload.
    ///
    /// - Throws: `SystemdError` when the journal cannot be opened or read.
    func allDispatches() throws(SystemdError) -> [JournaledDispatch] {
        try read(matching: DispatchMatches.own, fields: JournaledDispatch.allFields)
    }

    private static let machineFields = [DispatchField.hostname, DispatchField.machineID]

    /// True when this process may read a file of the local system journal: a `system.journal` or an archived
    /// `system@….journal` in `/var/log/journal/MACHINE-ID/` or `/run/log/journal/MACHINE-ID/` that `access(2)`
    /// allows (root, the `systemd-journal` group, or journald's ACLs for `adm` and `wheel`).
    ///
    /// sd-journal opens the local journal without a word when it may read none of its files, and then holds nothing:
    /// this tells "no dispatch" from "no right to look".
    ///
    /// - Parameter root: the file system's root; another only for tests.
    static func isLocalJournalReadable(root: String = "/") -> Bool {
        let files = FileManager.default
        let machineID = (try? String(contentsOfFile: root + "etc/machine-id", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let machineID, !machineID.isEmpty, !machineID.contains("/") else { return false }
        for directory in ["var/log/journal/", "run/log/journal/"].map({ root + $0 + machineID + "/" }) {
            let names = (try? files.contentsOfDirectory(atPath: directory)) ?? []
            let journals = names.filter { $0.hasPrefix("system") && $0.hasSuffix(".journal") }
            if journals.contains(where: { files.isReadableFile(atPath: directory + $0) }) { return true }
        }
        return false
    }

    private func read(matching matches: [String], fields: [String]) throws(SystemdError) -> [JournaledDispatch] {
        try JournalReader(source: source).entries(matching: matches, fields: fields)
            .compactMap { JournaledDispatch(fields: $0.fields) }
    }
}
