// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleSystemd

/// `--directory DIR` and `--file FILE…`, as journalctl takes them: read journal files collected from other machines
/// (by systemd-journal-remote, see docs/fleet.md) instead of the local journal.
struct JournalSourceOption: ParsableArguments {
    @Option(
        name: [.customShort("D"), .long],
        help: ArgumentHelp(
            "Read the journal files in this directory (e.g. systemd-journal-remote's output) instead of the "
                + "local journal.",
            valueName: "dir"
        )
    )
    var directory: String?

    @Option(
        name: .customLong("file"),
        help: ArgumentHelp("Read this journal file instead of the local journal; may be repeated.", valueName: "file")
    )
    var files: [String] = []

    func validate() throws {
        if directory != nil, !files.isEmpty {
            throw ValidationError("--directory and --file cannot be combined.")
        }
    }

    /// The collected journal the options name; nil when they name none (the local journal is meant).
    var source: JournalSource? {
        if let directory { return .directory(directory) }
        return files.isEmpty ? nil : .files(files)
    }
}
