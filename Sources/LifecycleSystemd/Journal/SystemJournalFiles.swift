// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

/// The files of the local system journal, by name, as `sd_journal_open(3)` with `SD_JOURNAL_LOCAL_ONLY |
/// SD_JOURNAL_SYSTEM` finds them: in /var/log/journal and /run/log/journal, and in their directory named after this
/// machine's id, the files whose name is `system` followed by `.` or `@` and ends in `.journal` or `.journal~` (the
/// file journald writes, those it archived, and those it set aside as dirty). Other machines' directories, journal
/// namespaces' and users' files are not the system journal.
///
/// Listed so that a read can open the files one at a time (``JournalReader/uniqueValues(of:keeping:)``): sd-journal
/// maps every open file's tables at once, and some reads touch every file for every value (docs/PERFORMANCE.md,
/// "The journal's units read file by file").
struct SystemJournalFiles {
    /// The directories journald keeps the system journal in: persistent first, then volatile.
    var roots = ["/var/log/journal", "/run/log/journal"]
    /// This machine's id, as the journal's directory names spell it (32 hex digits).
    var machineID: String

    /// This machine's system journal; nil when its machine id cannot be read.
    static var local: SystemJournalFiles? {
        var machine = sd_id128_t()
        guard sd_id128_get_machine(&machine) >= 0 else { return nil }
        return SystemJournalFiles(machineID: JournalReader.string(machine))
    }

    /// The paths of the files there now, sorted. A directory that does not exist (or cannot be read) holds none.
    func paths() -> [String] {
        roots.flatMap { root in
            (Self.names(in: root) + Self.names(in: root + "/" + machineID).map { machineID + "/" + $0 })
                .filter(Self.isSystemJournal).map { root + "/" + $0 }
        }.sorted()
    }

    /// The files there now (``paths()``), each opened by a descriptor, and listed again after they are opened: a
    /// rotation renames `system.journal` to an archived name and makes a new one, a vacuum removes files, and a set
    /// opened meanwhile could miss the renamed file's entries; then the files are opened again, up to `attempts` times
    /// (nil after that). A descriptor keeps its file whatever its name becomes. The caller closes them.
    func opened(attempts: Int = 8) -> [(path: String, descriptor: Int32)]? {
        for _ in 0..<attempts {
            let listed = paths()
            var opened: [(path: String, descriptor: Int32)] = []
            for path in listed {
                let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { break }
                opened.append((path, descriptor))
            }
            if opened.count == listed.count, paths() == listed { return opened }
            opened.forEach { _ = close($0.descriptor) }
        }
        return nil
    }

    /// The files journald writes to now: `system.journal` in this machine's directory under each root, those that
    /// exist.
    func online() -> [String] {
        roots.map { "\($0)/\(machineID)/system.journal" }.filter { path in path.withCString { access($0, F_OK) } == 0 }
    }

    /// ``online()``, asked again up to `attempts` times, after each `pause` (a millisecond), while there is none but
    /// the system journal has files:
    /// journald is rotating (it has archived the file it wrote, and not made the next yet). During a day-one history
    /// a look comes every few milliseconds and met that moment at about every rotation; without newest files it read
    /// the whole journal as if it were them, walks and look-ups in every file at once, the largest rises of
    /// lifecycled's memory in such a recovery (docs/PERFORMANCE.md, "A day-one history's memory, looked at again").
    /// A journal without files (`Storage=none`) is not waited for.
    func onlineAfterRotation(attempts: Int = 10, pause: () -> Void = { usleep(1_000) }) -> [String] {
        var files = online()
        // Listed once: a rotation adds files and removes none.
        guard files.isEmpty, !paths().isEmpty else { return files }
        var left = attempts
        while files.isEmpty, left > 0 {
            pause()
            files = online()
            left -= 1
        }
        return files
    }

    /// Whether `path` (its last component) names a file of the system journal.
    static func isSystemJournal(_ path: String) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard name.hasSuffix(".journal") || name.hasSuffix(".journal~"), name.hasPrefix("system") else { return false }
        let next = name.dropFirst("system".count).first
        return next == "." || next == "@"
    }

    /// The names of the regular files in `directory`.
    private static func names(in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            guard entry.pointee.d_type == DT_REG || entry.pointee.d_type == DT_UNKNOWN else { continue }
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            })
        }
        return names
    }
}
