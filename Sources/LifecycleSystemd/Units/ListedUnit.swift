// SPDX-License-Identifier: Apache-2.0

/// One entry of `ListUnits*`'s `a(ssssssouso)` reply.
struct ListedUnit: Sendable, Hashable {
    var name: String
    var loadState: String
    var activeState: String
    var subState: String
    var path: String
    /// The pending job's id, 0 for none.
    var jobID: UInt32

    /// Reads the whole `a(ssssssouso)`: (id, description, load state, active state, sub state, following, unit
    /// path, job id, job type, job path).
    static func readList(from message: BusMessage) throws(SystemdError) -> [ListedUnit] {
        try message.readArray("(ssssssouso)") { array throws(SystemdError) in
            try array.readContainer(.structure, "ssssssouso") { entry throws(SystemdError) in
                let name = try entry.readString()
                _ = try entry.readString()
                let loadState = try entry.readString()
                let activeState = try entry.readString()
                let subState = try entry.readString()
                _ = try entry.readString()
                let path = try entry.readObjectPath()
                let jobID = try UInt32(from: entry)
                try entry.skip("so")
                return ListedUnit(
                    name: name, loadState: loadState, activeState: activeState, subState: subState, path: path,
                    jobID: jobID
                )
            }
        }
    }

    /// Whether the unit is really there: `ListUnitsByPatterns` also returns units that are only referenced
    /// (`not-found`), and reading their properties would load them.
    var isLoaded: Bool {
        loadState != "not-found"
    }
}
