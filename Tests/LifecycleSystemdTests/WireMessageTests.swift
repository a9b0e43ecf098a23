// SPDX-License-Identifier: Apache-2.0

import Glibc
@testable import LifecycleSystemd
import Testing

/// Reading systemd's signals in place, as the bus relay does (docs/architecture.md, "The bus relay"): messages written
/// byte by byte in both byte orders, with the property types PID 1 sends around the ones lifecycled reads.
struct WireMessageTests {
    static let invocation: [UInt8] = Array(0..<16).map { UInt8($0 * 17) }

    /// A `.Unit` `PropertiesChanged` as PID 1 sends it: the wanted properties among costly ones of every shape.
    static func unitSignal(bigEndian: Bool) -> [UInt8] {
        WireWriter.message(
            bigEndian: bigEndian, path: "/org/freedesktop/systemd1/unit/web_2eservice",
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", signature: "sa{sv}as"
        ) { body in
            body.string("org.freedesktop.systemd1.Unit")
            body.array(alignment: 8) { map in
                map.property("ActiveState", "s") { $0.string("active") }
                map.property("Names", "as") { value in value.array(alignment: 4) { $0.string("web.service") } }
                map.property("ExecStart", "a(sasbttttuii)") { value in
                    value.array(alignment: 8) { commands in
                        for _ in 0..<2 {
                            commands.structure { command in
                                command.string("/bin/true")
                                command.array(alignment: 4) { $0.string("/bin/true"); $0.string("--flag") }
                                command.uint32(0)
                                for time in 0..<4 { command.uint64(UInt64(time)) }
                                command.uint32(1234)
                                command.uint32(1)
                                command.uint32(0)
                            }
                        }
                    }
                }
                map.property("SubState", "s") { $0.string("running") }
                map.property("Nested", "v") { outer in
                    outer.variant("v") { $0.variant("q") { $0.byte(1); $0.byte(2) } }
                }
                map.property("InvocationID", "ay") { value in
                    value.array(alignment: 1) { $0.bytes.append(contentsOf: invocation) }
                }
                map.property("Job", "(uo)") { value in
                    value.structure { $0.uint32(42); $0.string("/org/freedesktop/systemd1/job/42") }
                }
                map.property("Conditions", "a(sbbsi)") { value in
                    value.array(alignment: 8) { conditions in
                        conditions.structure { condition in
                            condition.string("ConditionPathExists")
                            condition.uint32(0)
                            condition.uint32(1)
                            condition.string("/etc/x")
                            condition.uint32(0)
                        }
                    }
                }
                map.property("StateChangeTimestamp", "t") { $0.uint64(1_763_000_000_000_000) }
                map.property("StateChangeTimestampMonotonic", "t") { $0.uint64(9_000_000) }
                map.property("FreezerState", "s") { $0.string("running") }
                map.property("Weights", "a{sd}") { value in
                    value.array(alignment: 8) { entries in
                        entries.structure { $0.string("cpu"); $0.uint64(0x3ff0_0000_0000_0000) }
                    }
                }
                map.property("InactiveExitTimestampMonotonic", "t") { $0.uint64(8_000_000) }
                map.property("ActiveEnterTimestampMonotonic", "t") { $0.uint64(8_500_000) }
                map.property("InactiveEnterTimestampMonotonic", "t") { $0.uint64(7_000_000) }
                map.property("After", "as") { value in value.array(alignment: 4) { $0.string("basic.target") } }
            }
            body.array(alignment: 4) { $0.string("Invalidated") }
        }
    }

    static let expected = UnitProperties(
        activeState: "active", subState: "running", invocationID: "00112233445566778899aabbccddeeff",
        freezerState: "running", stateChangeTimestamp: 1_763_000_000_000_000,
        stateChangeTimestampMonotonic: 9_000_000, jobID: 42, inactiveExitTimestampMonotonic: 8_000_000,
        activeEnterTimestampMonotonic: 8_500_000, inactiveEnterTimestampMonotonic: 7_000_000
    )

    @Test("reads a unit's PropertiesChanged in place, every shape of property skipped, in both byte orders",
          arguments: [false, true])
    func unitSignal(bigEndian: Bool) throws {
        try Self.unitSignal(bigEndian: bigEndian).withUnsafeBytes { bytes in
            let message = try WireMessage(bytes)
            #expect(message.isSignal("org.freedesktop.DBus.Properties", "PropertiesChanged"))
            #expect(!message.isSignal("org.freedesktop.DBus.Properties", "PropertiesChanged", path: "/other"))
            #expect(message.withPath { String(cString: $0) } == "/org/freedesktop/systemd1/unit/web_2eservice")
            var body = try message.body("sa{sv}as")
            #expect(try body.string() == "org.freedesktop.systemd1.Unit")
            let values = try UnitProperties(changed: &body)
            #expect(values == Self.expected)
            // The map is left whole, once every wanted property came: the invalidated names follow.
            let arrayEnd = try body.enterArray(elementAlignment: 4)
            #expect(try body.string() == "Invalidated")
            #expect(body.offset == arrayEnd)
            #expect(arrayEnd == bytes.count)
        }
    }

    @Test("a body of another signature, or a property of another type, is an error, not a value")
    func mismatches() throws {
        let signal = WireWriter.message(
            path: "/org/freedesktop/systemd1/unit/web_2eservice", interface: "org.freedesktop.DBus.Properties",
            member: "PropertiesChanged", signature: "sa{sv}as"
        ) { body in
            body.string("org.freedesktop.systemd1.Unit")
            body.array(alignment: 8) { map in map.property("ActiveState", "u") { $0.uint32(1) } }
            body.array(alignment: 4) { _ in }
        }
        try signal.withUnsafeBytes { bytes in
            let message = try WireMessage(bytes)
            #expect(throws: SystemdError.self) { _ = try message.body("so") }
            var body = try message.body("sa{sv}as")
            _ = try body.string()
            let error = #expect(throws: SystemdError.self) { _ = try UnitProperties(changed: &body) }
            #expect(error?.errno == ENXIO)
        }
    }

    @Test("a message cut short anywhere, or lying about its lengths, is refused without reading past it")
    func truncated() throws {
        let whole = Self.unitSignal(bigEndian: false)
        // Every cut of the body: the header claims more than there is.
        for cut in stride(from: 1, to: whole.count, by: 7) {
            let bytes = Array(whole[..<cut])
            _ = bytes.withUnsafeBytes { raw in
                #expect(throws: SystemdError.self) { _ = try WireMessage(raw) }
            }
        }
        // A body whose string lengths lie: each 32-bit word in turn made huge, the header kept.
        let header = try whole.withUnsafeBytes { try WireMessage($0).bodyOffset }
        for word in stride(from: header, to: whole.count - 4, by: 4) {
            var bytes = whole
            bytes.replaceSubrange(word..<(word + 4), with: [0xff, 0xff, 0xff, 0x7f])
            bytes.withUnsafeBytes { raw in
                do {
                    let message = try WireMessage(raw)
                    var body = try message.body("sa{sv}as")
                    _ = try body.string()
                    _ = try UnitProperties(changed: &body)
                } catch {
                    let code = (error as? SystemdError)?.errno
                    #expect(code == EBADMSG || code == ENXIO)
                }
            }
        }
    }

    @Test("variants nested past the limit are refused, not followed")
    func nesting() throws {
        let signal = WireWriter.message(
            path: "/org/freedesktop/systemd1/unit/x", interface: "org.freedesktop.DBus.Properties",
            member: "PropertiesChanged", signature: "sa{sv}as"
        ) { body in
            body.string("org.freedesktop.systemd1.Unit")
            body.array(alignment: 8) { map in
                map.property("Deep", "v") { value in
                    for _ in 0..<200 { value.signature("v") }
                    value.signature("u")
                    value.uint32(1)
                }
            }
            body.array(alignment: 4) { _ in }
        }
        try signal.withUnsafeBytes { bytes in
            var body = try WireMessage(bytes).body("sa{sv}as")
            _ = try body.string()
            let error = #expect(throws: SystemdError.self) { _ = try UnitProperties(changed: &body) }
            #expect(error?.errno == EBADMSG)
        }
    }

    @Test("a message's length comes from its first 16 bytes; a wrong byte order or version is refused")
    func length() throws {
        let whole = Self.unitSignal(bigEndian: true)
        let lengths = try whole.withUnsafeBytes { raw in
            try [15, 16].map {
                try WireMessage.length(ofMessageStartingWith: UnsafeRawBufferPointer(rebasing: raw[..<$0]))
            }
        }
        #expect(lengths == [nil, whole.count])
        for (index, byte) in [(0, UInt8(ascii: "x")), (3, UInt8(2))] {
            var bytes = whole
            bytes[index] = byte
            _ = bytes.withUnsafeBytes { raw in
                #expect(throws: SystemdError.self) { _ = try WireMessage.length(ofMessageStartingWith: raw) }
            }
        }
    }
}
