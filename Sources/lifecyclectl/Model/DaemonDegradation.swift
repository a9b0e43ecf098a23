// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// One thing the running lifecycled says is degraded (its D-Bus `GetStatus`): a fault it tracks on through and heals
/// from by itself once it is mended.
struct DaemonDegradation: Sendable, Equatable {
    /// The cause, as in the metric `lifecycled_degraded{what=…}`: `state_directory`.
    var what: String
    /// Since when, RFC 3339 UTC.
    var since: String
    /// Why, e.g. `cannot write the state directory /var/lib/lifecycled: Read-only file system (EROFS)`.
    var reason: String

    /// The degradations of `GetStatus`'s reply; nil when it is not such a reply.
    static func parse(_ json: String) -> [DaemonDegradation]? {
        guard case .array(let entries)? = (try? JSONParser.parse(Array(json.utf8)))?.objectValue?["degraded"] else {
            return nil
        }
        return entries.compactMap { entry in
            guard let object = entry.objectValue, let what = object["what"]?.stringValue,
                let since = object["since"]?.stringValue, let reason = object["reason"]?.stringValue
            else { return nil }
            return DaemonDegradation(what: what, since: since, reason: reason)
        }
    }

    /// The warning `status` prints on standard error, one line without a newline.
    var warning: String {
        let consequence = what == "state_directory"
            ? ": it keeps its records in memory, and the state files shown here fall behind until it heals" : ""
        return "lifecyclectl: Warning: lifecycled is degraded since \(since): \(reason)\(consequence)."
    }
}
