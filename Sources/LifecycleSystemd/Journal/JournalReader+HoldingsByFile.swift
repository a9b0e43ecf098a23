// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

extension JournalReader {
    /// What the whole journal holds of `queries` and `recent` (each asked on its own, no walk), with `files` opened
    /// one at a time, each closed before the next: an entry is held when any file holds it, and the oldest entry is
    /// the oldest of any file. A look asks the whole journal for the dispatches the newest files did not hold, in case
    /// a rotation archived them; with every file open at once, each query looked its values up in every file's tables
    /// together, and those looks set the highest peaks of a day-one history's memory, 6-7 MB above what the looks kept
    /// (docs/PERFORMANCE.md, "Where the peak is: the looks, not the slices").
    ///
    /// The files are held by descriptors opened together (``SystemJournalFiles/opened(attempts:)``), so that a
    /// rotation meanwhile renames none away from the look. The archived files come first, the newest of them first
    /// (the likeliest to hold an entry a rotation took away), the files journald writes to last, when it has had the
    /// longest to take what it was sent. A file sd-journal cannot open is left out and reported, as a look with every
    /// file open leaves it out. nil when the files kept changing as they were opened: then the caller opens them all.
    func holdingsInEachFile(
        of queries: [[String]], recent: [RecentEntryQuery], in files: SystemJournalFiles
    ) throws(SystemdError) -> JournalHoldings? {
        guard let opened = files.opened() else { return nil }
        defer { opened.forEach { _ = Glibc.close($0.descriptor) } }
        var found = [Bool](repeating: false, count: queries.count)
        var recentFound = [Bool](repeating: false, count: recent.count)
        var oldest: UInt64?
        var damage = JournalDamage()
        defer { if !damage.isEmpty { damaged(damage) } }
        let online = opened.filter { !$0.path.contains("@") }
        for file in opened.filter({ $0.path.contains("@") }).reversed() + online {
            let journal: OpaquePointer
            do {
                journal = try Self.open(descriptor: file.descriptor)
            } catch {
                damage.unreadableFiles.append((file.path, error))
                continue
            }
            defer { sd_journal_close(journal) }
            for index in queries.indices where !found[index] {
                found[index] = try Self.holds(queries[index], journal: journal)
            }
            for index in recent.indices where !recentFound[index] {
                recentFound[index] = try Self.holds(recent[index].matches, journal: journal)
            }
            // The oldest entry of every file, also of those asked nothing any more: each one's header tells it.
            var from: UInt64 = 0
            var to: UInt64 = 0
            if sd_journal_get_cutoff_realtime_usec(journal, &from, &to) > 0 { oldest = min(oldest ?? from, from) }
        }
        return JournalHoldings(found: found, recentFound: recentFound, lookedUp: recent.count, oldest: oldest)
    }
}
