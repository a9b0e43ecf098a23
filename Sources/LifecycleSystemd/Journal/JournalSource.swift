// SPDX-License-Identifier: Apache-2.0

/// Which journal files a ``JournalReader`` reads: the local system journal, or journal files collected elsewhere
/// (by `systemd-journal-remote`, or copied from other machines), as `journalctl --directory` and `--file` take them.
public enum JournalSource: Sendable, Hashable {
    /// The local machine's system journal (`sd_journal_open(3)` with `SD_JOURNAL_LOCAL_ONLY | SD_JOURNAL_SYSTEM`).
    case local
    /// Every journal file in a directory (`sd_journal_open_directory(3)`).
    case directory(String)
    /// These journal files (`sd_journal_open_files(3)`).
    case files([String])

    /// How an error message names the source: the directory, or the files separated by commas.
    public var description: String {
        switch self {
        case .local: "the system journal"
        case .directory(let path): path
        case .files(let paths): paths.joined(separator: ", ")
        }
    }
}
