// SPDX-License-Identifier: Apache-2.0

import CSystemd
import Glibc
@testable import LifecycleSystemd
import LifecycleEngine
import Testing

struct BusPrimitivesTests {
    @Test("escapes unit names into object paths the way systemd does", arguments: [
        ("probe-simple.service", "/org/freedesktop/systemd1/unit/probe_2dsimple_2eservice"),
        ("modprobe@efi_pstore.service", "/org/freedesktop/systemd1/unit/modprobe_40efi_5fpstore_2eservice"),
        (#"etc-machine\x2did.mount"#, "/org/freedesktop/systemd1/unit/etc_2dmachine_5cx2did_2emount"),
    ])
    func objectPaths(name: String, path: String) throws {
        let encoded = try BusObjectPath.encode(prefix: "/org/freedesktop/systemd1/unit", externalID: name)
        #expect(encoded.rawValue == path)
        #expect(encoded.decode(prefix: "/org/freedesktop/systemd1/unit") == name)
        #expect(encoded.decode(prefix: "/org/freedesktop/systemd1/job") == nil)
    }

    @Test("decodes a signal's path as sd_bus_path_decode does, where the header holds it", arguments: [
        "/org/freedesktop/systemd1/unit/probe_2dsimple_2eservice", "/org/freedesktop/systemd1/unit/cron_2eservice",
        "/org/freedesktop/systemd1/unit/modprobe_40efi_5fpstore_2eservice", "/org/freedesktop/systemd1/unit/plain",
        "/org/freedesktop/systemd1/unit/_", "/org/freedesktop/systemd1/unit/__", "/org/freedesktop/systemd1/unit/a_2",
        "/org/freedesktop/systemd1/unit/a_zz_2E_2e", "/org/freedesktop/systemd1/unit/_c3_a9t_c3_a9_2eservice",
        "/org/freedesktop/systemd1/unit/bad_ff_fe", "/org/freedesktop/systemd1/unit/nested/deeper",
        "/org/freedesktop/systemd1/unit", "/org/freedesktop/systemd1/units/x", "/org/freedesktop/systemd1/job/7",
        "/org/freedesktop/systemd1", "/",
    ])
    func pathDecoding(path: String) {
        let prefix = "/org/freedesktop/systemd1/unit"
        let decoded = path.withCString { BusObjectPath.decode($0, prefix: Array(prefix.utf8)) }
        #expect(decoded == Self.libsystemdDecode(path, prefix: prefix), "\(path)")
        #expect(BusObjectPath(path).decode(prefix: prefix) == decoded, "\(path)")
    }

    /// `sd_bus_path_decode(3)` itself, the reference the Swift decoding is held to.
    private static func libsystemdDecode(_ path: String, prefix: String) -> String? {
        var raw: UnsafeMutablePointer<CChar>?
        guard sd_bus_path_decode(path, prefix, &raw) > 0, let raw else { return nil }
        defer { free(raw) }
        return String(cString: raw)
    }

    @Test("formats an InvocationID as 32 lower-case hex digits")
    func invocationID() {
        #expect(UnitProperties.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(UnitProperties.hex(Array(0..<16)) == "000102030405060708090a0b0c0d0e0f")
        #expect(UnitProperties.hex([]) == "")
    }

    @Test("converts durations to microseconds, rounding up", arguments: [
        (Duration.seconds(25), UInt64(25_000_000)),
        (.milliseconds(1), 1000),
        (.microseconds(1), 1),
        (.nanoseconds(1), 1),
        (.nanoseconds(1001), 2),
        (.zero, 0),
        (.seconds(-1), 0),
    ])
    func microseconds(duration: Duration, expected: UInt64) {
        #expect(duration.microsecondsRoundedUp == expected)
    }

    @Test("turns sd_bus_get_timeout's absolute deadline into a rounded-up poll timeout")
    func pollTimeout() {
        #expect(BusThread.milliseconds(until: 1_000, now: 2_000) == 0)
        #expect(BusThread.milliseconds(until: 2_001, now: 2_000) == 1)
        #expect(BusThread.milliseconds(until: 12_000, now: 2_000) == 10)
        #expect(BusThread.milliseconds(until: 12_001, now: 2_000) == 11)
        #expect(BusThread.milliseconds(until: .max, now: 0) == Int32.max)
    }

    @Test("backs off exponentially up to the cap")
    func backOff() {
        let policy = ReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1))
        #expect(policy.delay(afterFailures: 0) == .milliseconds(100))
        #expect(policy.delay(afterFailures: 1) == .milliseconds(200))
        #expect(policy.delay(afterFailures: 3) == .milliseconds(800))
        #expect(policy.delay(afterFailures: 4) == .seconds(1))
        #expect(policy.delay(afterFailures: 1000) == .seconds(1))
    }

    @Test("maps unit names to their type interface")
    func typeInterfaces() {
        #expect(SystemdNames.typeInterface(forUnit: "a.service") == "org.freedesktop.systemd1.Service")
        #expect(SystemdNames.typeInterface(forUnit: "a.b.socket") == "org.freedesktop.systemd1.Socket")
        #expect(SystemdNames.typeInterface(forUnit: "multi-user.target") == nil)
        #expect(SystemdNames.typeInterface(forUnit: "noext") == nil)
    }

    @Test("finds a wanted property's name among names of every length: the one equal, not one of its length")
    func propertyNames() {
        let wanted = BusPropertyNames(["ActiveState", "SubState", "Result", "InvocationID", "Id", "", "LoadState"])
        func index(_ name: String) -> Int? {
            Array(name.utf8).withUnsafeBytes { wanted.index(of: $0) }
        }
        #expect(index("ActiveState") == 0)
        #expect(index("SubState") == 1)
        #expect(index("LoadState") == 6, "one of two wanted names of its length")
        #expect(index("InvocationID") == 3)
        #expect(index("Id") == 4)
        #expect(index("") == 5)
        #expect(index("NRestarts") == nil, "the length of LoadState, not its name")
        #expect(index("Result2") == nil)
        #expect(index("InactiveEnterTimestampMonotonic") == nil, "longer than every wanted name")
        #expect(wanted.all == 0b111_1111)
    }
}
