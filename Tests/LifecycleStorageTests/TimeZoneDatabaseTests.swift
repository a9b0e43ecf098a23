// SPDX-License-Identifier: Apache-2.0

import Foundation
import LifecycleEngine
import LifecycleStorage
import Testing

/// Zone names, `TZ` and `/etc/localtime`, resolved from the system's tz database as glibc and systemd do.
struct TimeZoneDatabaseTests {
    let system = TimeZoneDatabase()
    /// 2026-07-01T00:00:00Z: summer in the north.
    let july: Int64 = 1_782_864_000

    @Test("a zone name is a file under the database directory")
    func named() throws {
        let berlin = try system.zone(named: "Europe/Berlin")
        #expect(berlin.name == "Europe/Berlin")
        #expect(berlin.secondsFromGMT(at: july) == 7_200)
        #expect(try system.zone(named: "Asia/Kathmandu").secondsFromGMT(at: july) == 20_700)
        #expect(try system.zone(named: "UTC").secondsFromGMT(at: july) == 0)
    }

    @Test("an unknown zone names itself and the file looked for")
    func unknown() {
        #expect(throws: TimeZoneError.unknownZone(name: "Mars/Olympus", path: "/usr/share/zoneinfo/Mars/Olympus")) {
            try system.zone(named: "Mars/Olympus")
        }
        #expect(throws: TimeZoneError.unknownZone(name: "Europe", path: "/usr/share/zoneinfo/Europe")) {
            try system.zone(named: "Europe")
        }
        let description = TimeZoneError.unknownZone(name: "Mars/Olympus", path: "/usr/share/zoneinfo/Mars/Olympus")
            .description
        #expect(description.hasPrefix(#"unknown time zone "Mars/Olympus" (no such file /usr/share/zoneinfo/Mars/"#))
    }

    @Test("names that would leave the database directory are refused", arguments: [
        "", "/etc/passwd", "../../etc/passwd", "Europe/../../../etc/passwd", "..", "Europe/..",
    ])
    func escaping(name: String) {
        #expect(throws: TimeZoneError.invalidName(name: name)) { try system.zone(named: name) }
    }

    @Test("a file that is not TZif is refused with the reason")
    func notTZif() throws {
        let directory = try TemporaryDirectory()
        try directory.write("not a zone", to: "Bad/Zone")
        let database = TimeZoneDatabase(directory: directory.path)
        let expected = TimeZoneError.invalidData(
            path: directory.path + "/Bad/Zone",
            reason: TimeZoneDataError("not a TZif file")
        )
        #expect(throws: expected) {
            try database.zone(named: "Bad/Zone")
        }
    }

    @Test("TZ: empty is UTC; a name, with or without ':', or an absolute path is a zone file")
    func environmentFiles() {
        #expect(system.machineZone(tz: "") == MachineTimeZone(rules: .utc, origin: "TZ"))
        #expect(system.machineZone(tz: ":") == MachineTimeZone(rules: .utc, origin: "TZ"))
        let path = "/usr/share/zoneinfo/Europe/Berlin"
        for tz in ["Europe/Berlin", ":Europe/Berlin", path, ":" + path] {
            let zone = system.machineZone(tz: tz)
            #expect(zone.rules.name == "Europe/Berlin", "\(tz)")
            #expect(zone.rules.secondsFromGMT(at: july) == 7_200, "\(tz)")
            #expect(zone.origin == "TZ")
            #expect(zone.problem == nil)
        }
    }

    @Test("TZ: a POSIX string when no such zone file exists; UTC with a problem when it is neither")
    func environmentRules() {
        let newYork = system.machineZone(tz: "EST5EDT,M3.2.0,M11.1.0")
        #expect(newYork.rules.name == "EST5EDT,M3.2.0,M11.1.0")
        #expect(newYork.rules.secondsFromGMT(at: july) == -14_400)
        #expect(newYork.problem == nil)
        #expect(system.machineZone(tz: "UTC0").rules.secondsFromGMT(at: july) == 0)
        #expect(system.machineZone(tz: "<+0545>-5:45").rules.secondsFromGMT(at: july) == 20_700)
        for tz in ["Mars/Olympus", "../../etc/passwd", "/nonexistent"] {
            let zone = system.machineZone(tz: tz)
            #expect(zone.rules == .utc, "\(tz)")
            #expect(zone.problem?.contains("TZ=\"\(tz)\"") == true, "\(tz)")
        }
    }

    @Test("/etc/localtime: the rules of the file, named after the link's target below the zone directory")
    func localtimeLink() throws {
        let directory = try TemporaryDirectory()
        let link = directory.path + "/localtime"
        try FileManager.default.createSymbolicLink(
            atPath: link,
            withDestinationPath: "/usr/share/zoneinfo/Asia/Kathmandu"
        )
        let zone = TimeZoneDatabase(localtime: link).machineZone(tz: nil)
        #expect(zone == MachineTimeZone(rules: try system.zone(named: "Asia/Kathmandu"), origin: link))

        // systemd's relative form, ../usr/share/zoneinfo/NAME, from /etc.
        let newYorkFile = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/America/New_York"))
        try directory.write([UInt8](newYorkFile), to: "usr/share/zoneinfo/America/New_York")
        try FileManager.default.createDirectory(atPath: directory.path + "/etc", withIntermediateDirectories: true)
        let relative = directory.path + "/etc/localtime"
        try FileManager.default.createSymbolicLink(
            atPath: relative,
            withDestinationPath: "../usr/share/zoneinfo/America/New_York"
        )
        let newYork = TimeZoneDatabase(localtime: relative).machineZone(tz: nil)
        #expect(newYork.rules.name == "America/New_York")
        #expect(newYork.rules.secondsFromGMT(at: july) == -14_400)
    }

    @Test("/etc/localtime: a plain copy has rules but no name; missing is UTC; garbage is UTC with a problem")
    func localtimeOther() throws {
        let directory = try TemporaryDirectory()
        let copy = try directory.write(
            [UInt8](try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Europe/Berlin"))),
            to: "copy"
        )
        let copied = TimeZoneDatabase(localtime: copy).machineZone(tz: nil)
        #expect(copied.rules.name == copy)
        #expect(copied.rules.secondsFromGMT(at: july) == 7_200)
        let missing = TimeZoneDatabase(localtime: directory.path + "/missing").machineZone(tz: nil)
        #expect(missing == MachineTimeZone(rules: .utc, origin: "default"))
        let garbage = try directory.write("garbage", to: "garbage")
        let broken = TimeZoneDatabase(localtime: garbage).machineZone(tz: nil)
        #expect(broken.rules == .utc)
        #expect(broken.problem?.contains("not a TZif file") == true)
        // TZ, when set, wins over /etc/localtime.
        #expect(TimeZoneDatabase(localtime: copy).machineZone(tz: "UTC0").rules.secondsFromGMT(at: july) == 0)
    }

    @Test("the programs' precedence: the command line, then time_zone, then the machine's")
    func precedence() throws {
        let configured = LifecycleConfiguration(timeZone: "Asia/Kathmandu")
        let kathmandu = try system.zone(named: "Asia/Kathmandu")
        let berlin = try system.zone(named: "Europe/Berlin")
        #expect(try configured.localTimeZone(overriding: berlin, tz: "UTC0") == berlin)
        #expect(try configured.localTimeZone(tz: "UTC0") == kathmandu)
        #expect(try LifecycleConfiguration().localTimeZone(tz: "Europe/Berlin") == berlin)
        #expect(throws: TimeZoneError.self) { try LifecycleConfiguration(timeZone: "Mars/Olympus").localTimeZone() }
    }
}
