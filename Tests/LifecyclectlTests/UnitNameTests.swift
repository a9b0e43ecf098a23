// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import Testing

@testable import lifecyclectl

/// Unit names from the command line, completed like systemctl completes them.
struct UnitNameTests {
    @Test(
        "a name without a unit type suffix gets .service",
        arguments: [
            ("nginx", "nginx.service"),
            ("nginx.service", "nginx.service"),
            ("backup.timer", "backup.timer"),
            ("dbus.socket", "dbus.socket"),
            ("getty@tty1", "getty@tty1.service"),
            ("foo.bar", "foo.bar.service"),
            ("system-getty.slice", "system-getty.slice"),
        ]
    )
    func completes(argument: String, expected: String) throws {
        #expect(try UnitName.normalize(argument) == expected)
    }

    @Test(
        "names that cannot be a unit's are usage errors",
        arguments: ["", "a/b", "/etc/fstab", ".hidden", "tab\there", String(repeating: "x", count: 300)]
    )
    func rejects(argument: String) {
        #expect(throws: ValidationError.self) { try UnitName.normalize(argument) }
    }

    @Test("a name of systemd's 255 bytes is accepted, with or without its suffix; one more byte is not")
    func longestName() throws {
        let stem = "app@" + String(repeating: "a", count: 243)
        #expect(try UnitName.normalize(stem + ".service") == stem + ".service")
        #expect(try UnitName.normalize(stem) == stem + ".service")
        #expect(throws: ValidationError.self) { try UnitName.normalize(stem + "a") }
    }

    @Test("the reasons read as sentences")
    func messages() {
        let empty = #expect(throws: ValidationError.self) { try UnitName.normalize("") }
        #expect(empty?.message == "The unit name must not be empty.")
        let slash = #expect(throws: ValidationError.self) { try UnitName.normalize("a/b") }
        #expect(slash?.message == "Invalid unit name \"a/b\": a unit name cannot contain '/'.")
        let hidden = #expect(throws: ValidationError.self) { try UnitName.normalize(".hidden") }
        #expect(hidden?.message == "Invalid unit name \".hidden.service\": the name starts with '.'.")
    }
}
