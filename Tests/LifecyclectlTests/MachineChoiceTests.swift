// SPDX-License-Identifier: Apache-2.0

import LifecycleSchema
import Testing

@testable import lifecyclectl

/// `lifecyclectl runs --directory`: one machine's dispatches, chosen by hostname or machine id.
struct MachineChoiceTests {
    private let dispatches = Fixtures.journaled([
        ["_HOSTNAME": "web-1", "_MACHINE_ID": FleetRowTests.idA, "LIFECYCLE_SEQUENCE": "1"],
        ["_HOSTNAME": "web-2", "_MACHINE_ID": FleetRowTests.idB, "LIFECYCLE_SEQUENCE": "1"],
        ["_HOSTNAME": "web-1", "_MACHINE_ID": FleetRowTests.idA, "LIFECYCLE_SEQUENCE": "2"],
    ])

    @Test("by hostname or machine id; one machine needs no choice")
    func chosen() throws {
        #expect(try MachineChoice.dispatches(dispatches, machine: "web-1").map(\.sequence) == [1, 2])
        #expect(try MachineChoice.dispatches(dispatches, machine: FleetRowTests.idB).count == 1)
        #expect(try MachineChoice.dispatches(Array(dispatches.prefix(1)), machine: nil).count == 1)
        #expect(try MachineChoice.dispatches([], machine: nil).isEmpty)
    }

    @Test("several machines without --machine, or an unknown machine: an error naming the machines")
    func refused() {
        #expect(throws: MachineChoice.Problem.ambiguous(["web-1", "web-2"])) {
            try MachineChoice.dispatches(dispatches, machine: nil)
        }
        #expect(throws: MachineChoice.Problem.noMatch("web-3", available: ["web-1", "web-2"])) {
            try MachineChoice.dispatches(dispatches, machine: "web-3")
        }
    }
}
