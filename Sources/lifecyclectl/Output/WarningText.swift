// SPDX-License-Identifier: Apache-2.0

import LifecycleStorage

/// The state store's warnings as `lifecyclectl` reports them on standard error.
///
/// The store's own descriptions speak for the daemon ("the unit is rebuilt …"); a read-only reader changes nothing,
/// so for a file it could not read it says that the unit is left out, and that the file stays where it is.
enum WarningText {
    /// One line, without a newline.
    static func line(_ warning: StateStoreWarning) -> String {
        switch warning.action {
        case .leftInPlace:
            "lifecyclectl: Warning: \(warning.path): cannot be read (\(warning.reason)); left out and left in place."
        case .movedAside, .removedTemporaryFile, .ignored:
            "lifecyclectl: Warning: \(warning.description)."
        }
    }
}
