// SPDX-License-Identifier: Apache-2.0

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

    private func read(matching matches: [String], fields: [String]) throws(SystemdError) -> [JournaledDispatch] {
        try JournalReader(source: source).entries(matching: matches, fields: fields)
            .compactMap { JournaledDispatch(fields: $0.fields) }
    }
}
