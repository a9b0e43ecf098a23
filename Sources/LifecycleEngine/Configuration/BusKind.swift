// SPDX-License-Identifier: Apache-2.0

/// Which D-Bus bus lifecycled watches: the system manager's units or a user manager's.
public enum BusKind: String, Sendable, Hashable, CaseIterable {
    /// The system bus and PID 1's units (the default).
    case system
    /// The calling user's session bus and the units of their `systemd --user` manager.
    case user
}
