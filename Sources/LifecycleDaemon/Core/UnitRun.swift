// SPDX-License-Identifier: Apache-2.0

/// One run of a unit: the unit's name and the run's InvocationID.
public struct UnitRun: Sendable, Hashable {
    public var unit: String
    public var invocationID: String

    public init(unit: String, invocationID: String) {
        self.unit = unit
        self.invocationID = invocationID
    }
}
