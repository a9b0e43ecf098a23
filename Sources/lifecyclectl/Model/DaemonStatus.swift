// SPDX-License-Identifier: Apache-2.0

/// Whether lifecycled runs on this machine, as far as `lifecyclectl` can tell without D-Bus.
enum DaemonStatus: Sendable, Equatable {
    /// A lifecycled process was found.
    case running(pid: Int32)
    /// No lifecycled process exists in this PID namespace.
    case notRunning
    /// The process table is (partly) hidden from the caller, e.g. by `/proc` mounted with `hidepid=`; saying
    /// "not running" would be a guess.
    case unknown(reason: String)

    /// The process id when running.
    var pid: Int32? {
        if case .running(let pid) = self { return pid }
        return nil
    }

    /// True when running, false when not, nil when unknown.
    var isRunning: Bool? {
        switch self {
        case .running: true
        case .notRunning: false
        case .unknown: nil
        }
    }
}
