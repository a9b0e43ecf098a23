// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleStorage
import Testing

@testable import lifecyclectl

/// `lifecyclectl status [PATTERN…] [--failed]`: which units are listed.
struct UnitFilterTests {
    private func listed(_ arguments: [String], failed: Bool = false) throws -> [String] {
        let filter = try UnitFilter(arguments: arguments, failedOnly: failed)
        return [Fixtures.nginx, Fixtures.cron, Fixtures.bad, Fixtures.killed, Fixtures.fresh]
            .filter(filter.includes).map(\.unit)
    }

    @Test("no argument lists every unit; names are completed as systemctl completes them; globs match full names")
    func patterns() throws {
        #expect(try listed([]).count == 5)
        #expect(try listed(["nginx"]) == ["nginx.service"])
        #expect(try listed(["cron.service", "worker@*"]) == ["cron.service", "worker@bad.service"])
        #expect(try listed(["*.service"]).count == 5)
        #expect(try listed(["[cn]*"]) == ["nginx.service", "cron.service"])
        #expect(try listed(["nothing-*"]) == [])
    }

    @Test("--failed keeps the units whose last run failed, combined with the patterns")
    func failedOnly() throws {
        #expect(try listed([], failed: true) == ["worker@bad.service", "spinner.service"])
        #expect(try listed(["spin*"], failed: true) == ["spinner.service"])
        #expect(try listed(["nginx"], failed: true) == [])
    }

    @Test("a plain name without a state file is reported; a pattern that matches nothing is not")
    func missing() throws {
        let filter = try UnitFilter(arguments: ["ghost", "nginx", "nothing-*"], failedOnly: false)
        #expect(filter.missingNames(in: [Fixtures.nginx]) == ["ghost.service"])
    }

    @Test("an invalid name or pattern is a usage error naming it")
    func invalid() {
        #expect(throws: ValidationError.self) { try UnitFilter(arguments: ["a/b"], failedOnly: false) }
        #expect(throws: ValidationError.self) { try UnitFilter(arguments: ["web-[0-9"], failedOnly: false) }
    }
}
