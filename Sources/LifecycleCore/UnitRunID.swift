// SPDX-License-Identifier: Apache-2.0

/// Which run of which unit: the unit's name and the run's InvocationID.
public struct UnitRunID: Sendable, Hashable {
    public var unit: String
    public var invocationID: String

    public init(unit: String, invocationID: String) {
        self.unit = unit
        self.invocationID = invocationID
    }
}
