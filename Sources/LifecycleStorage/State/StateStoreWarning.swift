// SPDX-License-Identifier: Apache-2.0

/// Something the state store noticed and handled while loading, for the daemon to log at warning level.
///
/// None of these stops the daemon: the affected unit is rebuilt from the journal or the file is left alone.
public struct StateStoreWarning: Sendable, Equatable, CustomStringConvertible {
    /// What happened to the file.
    public enum Action: Sendable, Equatable {
        /// The file could not be parsed and was renamed to `path`; the unit is rebuilt from its dispatches in the journal.
        case movedAside(to: String)
        /// The file could not be parsed and was left in place, because the store is read-only.
        case leftInPlace
        /// A temporary file of an interrupted save was deleted.
        case removedTemporaryFile
        /// A file in the state directory that is not a state file was ignored.
        case ignored
    }

    /// The file concerned.
    public var path: String
    /// The unit the file belongs to, when known.
    public var unit: String?
    /// What the store did about it.
    public var action: Action
    /// Why, e.g. `invalid JSON at line 1, column 12: unexpected end of input`.
    public var reason: String

    /// Creates a warning.
    public init(path: String, unit: String?, action: Action, reason: String) {
        self.path = path
        self.unit = unit
        self.action = action
        self.reason = reason
    }

    public var description: String {
        switch action {
        case .movedAside(let destination):
            return "\(path): cannot be read (\(reason)); moved aside to \(destination), the unit is rebuilt from its dispatches in the journal"
        case .leftInPlace:
            return "\(path): cannot be read (\(reason)); the unit is rebuilt from its dispatches in the journal"
        case .removedTemporaryFile:
            return "\(path): removed (\(reason))"
        case .ignored:
            return "\(path): ignored (\(reason))"
        }
    }
}
