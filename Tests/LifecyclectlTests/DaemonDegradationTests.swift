// SPDX-License-Identifier: Apache-2.0

import Testing

@testable import lifecyclectl

/// `status`'s warning about what the running lifecycled says is degraded (its D-Bus `GetStatus`).
struct DaemonDegradationTests {
    @Test("GetStatus's reply: each degradation with since when and why; nothing degraded is an empty list")
    func parse() {
        #expect(DaemonDegradation.parse(#"{"degraded":[]}"#) == [])
        let reply = #"{"degraded":[{"reason":"cannot write the state directory /var/lib/lifecycled: "#
            + #"Read-only file system (EROFS)","since":"2026-03-01T10:00:00Z","what":"state_directory"}]}"#
        #expect(DaemonDegradation.parse(reply) == [
            DaemonDegradation(
                what: "state_directory", since: "2026-03-01T10:00:00Z",
                reason: "cannot write the state directory /var/lib/lifecycled: Read-only file system (EROFS)"
            ),
        ])
        #expect(DaemonDegradation.parse("[]") == nil, "not GetStatus's reply")
    }

    @Test("the warning says since when and why, and for the state directory that the state files fall behind")
    func warning() {
        let directory = DaemonDegradation(
            what: "state_directory", since: "2026-03-01T10:00:00Z",
            reason: "cannot write the state directory /var/lib/lifecycled: Read-only file system (EROFS)"
        )
        #expect(directory.warning == "lifecyclectl: Warning: lifecycled is degraded since 2026-03-01T10:00:00Z: "
            + "cannot write the state directory /var/lib/lifecycled: Read-only file system (EROFS): it keeps its "
            + "records in memory, and the state files shown here fall behind until it heals.")
        let other = DaemonDegradation(what: "other", since: "2026-03-01T10:00:00Z", reason: "something")
        #expect(other.warning == "lifecyclectl: Warning: lifecycled is degraded since 2026-03-01T10:00:00Z: something.")
    }
}
