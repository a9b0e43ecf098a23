// SPDX-License-Identifier: Apache-2.0

import ArgumentParser
import LifecycleStorage

/// Unit names as typed on the command line, completed the way systemctl completes them.
enum UnitName {
    /// The unit type suffixes of systemd.unit(5). A name that ends in none of them gets `.service`, as with systemctl:
    /// `nginx` means `nginx.service`, and `foo.bar` means `foo.bar.service`.
    static let typeSuffixes: Set<Substring> = [
        "service", "socket", "target", "device", "mount", "automount", "swap", "timer", "path", "slice", "scope",
    ]

    /// The full unit name that `argument` stands for.
    ///
    /// This is a local check only: it never asks systemd whether the unit exists.
    ///
    /// - Parameter argument: a unit name as typed, with or without its type suffix.
    /// - Returns: the unit name with its suffix, e.g. `nginx.service`.
    /// - Throws: `ValidationError` (exit status 64) for an empty name, a name containing `/` (systemctl would take a
    ///   path for a mount or device unit, which lifecycled does not track by path), or a name that cannot name a
    ///   state file.
    static func normalize(_ argument: String) throws(ValidationError) -> String {
        guard !argument.isEmpty else { throw ValidationError("The unit name must not be empty.") }
        guard !argument.contains("/") else {
            throw ValidationError("Invalid unit name \"\(argument)\": a unit name cannot contain '/'.")
        }
        var name = argument
        if let dot = name.lastIndex(of: "."), typeSuffixes.contains(name[name.index(after: dot)...]) {
            // Already a full name.
        } else {
            name += ".service"
        }
        do {
            try StateStore.validateUnitName(name)
        } catch {
            throw ValidationError("\(error.description).")
        }
        return name
    }
}
