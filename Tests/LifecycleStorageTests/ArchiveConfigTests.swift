// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage
import Testing

/// `archive_after_minutes`: how long the record of a unit systemd unloaded stays before it is archived.
struct ArchiveConfigTests {
    static let file = "/etc/lifecycled/lifecycled.json"

    private func decode(_ text: String) throws(ConfigError) -> LifecycleConfiguration {
        try ConfigLoader.decode(try ConfigLoader.parse(Array(text.utf8), file: Self.file), file: Self.file)
    }

    @Test("the default is an hour; 0 archives at once and -1 never")
    func values() throws {
        #expect(try decode("{}").archiveAfterMinutes == 60)
        #expect(try decode(#"{"archive_after_minutes": 0}"#).archiveAfterMinutes == 0)
        #expect(try decode(#"{"archive_after_minutes": -1}"#).archiveAfterMinutes == -1)
        #expect(try decode(#"{"archive_after_minutes": 1440}"#).archiveAfterMinutes == 1440)
    }

    @Test("archive_retention_days: 90 by default; 0 and -1 (forever) are taken")
    func retention() throws {
        #expect(try decode("{}").archiveRetentionDays == 90)
        #expect(try decode(#"{"archive_retention_days": 0}"#).archiveRetentionDays == 0)
        #expect(try decode(#"{"archive_retention_days": -1}"#).archiveRetentionDays == -1)
        #expect(try decode(#"{"archive_retention_days": 365}"#).archiveRetentionDays == 365)
    }

    @Test(
        "bad values of either key are refused, naming the key",
        arguments: [
            (#"{"archive_retention_days": "90"}"#, "archive_retention_days: expected an integer number of days, found a string"),
            (#"{"archive_retention_days": 0.5}"#, "archive_retention_days: expected an integer number of days, found 0.5"),
            (
                #"{"archive_retention_days": 9223372036854775807}"#,
                "archive_retention_days: 9223372036854775807 days is out of range (at most 106751991167; use -1 for forever)"
            ),
            (#"{"archive_after_minutes": "60"}"#, "archive_after_minutes: expected an integer number of minutes, found a string"),
            (#"{"archive_after_minutes": 1.5}"#, "archive_after_minutes: expected an integer number of minutes, found 1.5"),
            (
                #"{"archive_after_minutes": 9223372036854775807}"#,
                "archive_after_minutes: 9223372036854775807 minutes is out of range (at most 153722867280912; use -1 for never)"
            ),
        ]
    )
    func badValues(_ text: String, _ message: String) {
        do {
            _ = try decode(text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.description == "\(Self.file): \(message)")
        }
    }
}
