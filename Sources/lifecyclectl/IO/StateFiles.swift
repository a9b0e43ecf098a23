// SPDX-License-Identifier: Apache-2.0

import LifecycleStorage

/// Reading every record of a state directory, read-only, as the commands that work while lifecycled is down do.
enum StateFiles {
    /// The records of `directory`; a file that cannot be read is a warning on standard error and left out.
    ///
    /// - Throws: the failure, reported, when the directory cannot be read at all.
    static func records(in directory: String) throws -> [UnitRecord] {
        let contents: StateStore.Contents
        do {
            contents = try StateStore(directory: directory, readOnly: true).loadAll()
        } catch {
            throw reportFailure(error.description)
        }
        for warning in contents.warnings { printError(WarningText.line(warning)) }
        return contents.records
    }
}
