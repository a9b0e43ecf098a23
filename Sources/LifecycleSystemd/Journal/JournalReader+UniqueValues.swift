// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc

extension JournalReader {
    /// Every value of `field` the journal's files hold that `keep` keeps, whatever entry holds it: sd-journal answers
    /// from each file's index of the field's values, without reading entries, and applies no match
    /// (`sd_journal_query_unique(3)`), so the set holds the values of every entry a read of the same journal can
    /// find. A file whose values cannot be read fails the call rather than leave them out. `keep` is asked as the
    /// values come, so that the set holds only those: a host's journal can name hundreds of thousands of units.
    ///
    /// Wraps `sd_journal_query_unique(3)` and `sd_journal_enumerate_unique(3)`.
    public func uniqueValues(
        of field: String, keeping keep: (String) -> Bool = { _ in true }
    ) throws(SystemdError) -> Set<String> {
        var walk = Walk()
        let journal = try openSource(damage: &walk.damage)
        defer { close(journal, walk) }
        try check(field.withCString { sd_journal_query_unique(journal, $0) }, "list the journal's values of \(field)")
        let prefix = field.utf8.count + 1  // "FIELD="
        var values: Set<String> = []
        var data: UnsafeRawPointer?
        var length = 0
        while try check(sd_journal_enumerate_unique(journal, &data, &length), "list the journal's values of \(field)") > 0 {
            guard let data, length >= prefix else { continue }
            let bytes = UnsafeRawBufferPointer(start: data + prefix, count: length - prefix)
            let value = String(decoding: bytes, as: UTF8.self)
            if keep(value) { values.insert(value) }
        }
        return values
    }
}
