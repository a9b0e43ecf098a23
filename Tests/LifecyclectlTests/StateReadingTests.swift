// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine
import LifecycleStorage
import Testing

@testable import lifecyclectl

/// The real state store, read-only as `lifecyclectl` opens it, over a temporary state directory.
struct StateReadingTests {
    @Test("a corrupt file is reported, left out and left in place; the other units are read")
    func corruptFile() throws {
        let directory = try TemporaryDirectory()
        try StateStore(directory: directory.path).save(Fixtures.nginx)
        try directory.write("{\"schema_version\": 1, \"unit\": ", to: "units/broken.service.json")

        let contents = try StateStore(directory: directory.path, readOnly: true).loadAll()

        #expect(contents.records == [Fixtures.nginx])
        #expect(contents.warnings.count == 1)
        let line = try #require(contents.warnings.first.map(WarningText.line))
        #expect(
            line.hasPrefix(
                "lifecyclectl: Warning: \(directory.path)/units/broken.service.json: cannot be read (invalid JSON"
            )
        )
        #expect(line.hasSuffix("); left out and left in place."))
        #expect(directory.list("units") == ["broken.service.json", "nginx.service.json"])
    }

    @Test("a unit of a 250-byte name is read by status, its JSON and metrics, from its hashed state file")
    func longName() throws {
        let directory = try TemporaryDirectory()
        let unit = "app@" + String(repeating: "a", count: 238) + ".service"
        #expect(unit.utf8.count == 250)
        var record = Fixtures.nginx
        record.unit = unit
        let escaped = #"dev-disk-by\x2dlabel-"# + String(repeating: "b", count: 222) + ".device"
        #expect(escaped.utf8.count == 250)
        var other = Fixtures.cron
        other.unit = escaped
        let writer = StateStore(directory: directory.path)
        for saved in [record, other, Fixtures.nginx] { try writer.save(saved) }
        #expect(!directory.list("units").contains(unit + ".json"))

        let contents = try StateStore(directory: directory.path, readOnly: true).loadAll()
        #expect(contents.warnings.isEmpty)
        #expect(contents.records == [record, other, Fixtures.nginx])
        let table = StatusTable.render(
            contents.records, now: Fixtures.now, timeZone: Fixtures.utc, daemon: .notRunning, colour: false
        )
        #expect(table.contains(unit))
        let json = StatusJSON.render(contents.records, now: Fixtures.now, timeZone: Fixtures.utc, daemon: .notRunning)
        #expect(json.contains("\"unit\":\"\(unit)\""))
        let metrics = LifecycleMetrics(
            records: contents.records, now: Fixtures.now, crashLoop: CrashLoopRule(), version: "test"
        ).render()
        #expect(metrics.contains("name=\"\(unit)\""))
        let names = try StateStore(directory: directory.path, readOnly: true).unitNames()
        #expect(names.sorted() == [other.unit, unit, "nginx.service"].sorted())
    }

    @Test("other warnings keep the store's wording")
    func otherWarnings() {
        let warning = StateStoreWarning(
            path: "/s/units/x.json",
            unit: nil,
            action: .ignored,
            reason: "the name is empty"
        )
        #expect(WarningText.line(warning) == "lifecyclectl: Warning: /s/units/x.json: ignored (the name is empty).")
    }

    @Test("a missing state directory holds no unit, and the table says so")
    func missingDirectory() throws {
        let directory = try TemporaryDirectory()
        let contents = try StateStore(directory: directory.path + "/absent", readOnly: true).loadAll()
        #expect(contents.records.isEmpty && contents.warnings.isEmpty)
        let table = StatusTable.render(
            contents.records,
            now: Fixtures.now,
            timeZone: Fixtures.utc,
            daemon: .notRunning,
            colour: false
        )
        #expect(table.hasSuffix("\nNo unit has been tracked yet.\n"))
        #expect(directory.list() == [])  // nothing was created
    }
}
