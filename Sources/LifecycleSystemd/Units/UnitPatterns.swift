// SPDX-License-Identifier: Apache-2.0

import Glibc

/// The unit name globs a source watches, matched the way `ListUnitsByPatterns` matches them.
///
/// systemd compares each pattern with the unit's primary name using `fnmatch(3)` with `FNM_NOESCAPE`, so a backslash
/// is an ordinary character (`dev-disk-by\x2duuid-….device` is an exact name). An empty list matches every unit.
/// Applying the same rule to incoming signals keeps what the source reports consistent with its initial listing.
public struct UnitPatterns: Sendable, Hashable {
    /// The globs, e.g. `nginx.service`, `*.service`, `getty@*.service`.
    public let patterns: [String]

    public init(_ patterns: [String]) {
        self.patterns = patterns
    }

    /// Whether `name` is watched.
    public func matches(_ name: String) -> Bool {
        patterns.isEmpty || patterns.contains { fnmatch($0, name, FNM_NOESCAPE) == 0 }
    }
}
