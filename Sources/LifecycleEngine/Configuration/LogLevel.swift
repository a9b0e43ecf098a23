// SPDX-License-Identifier: Apache-2.0

/// The least severe log message that lifecycled emits, from the most verbose to the least.
///
/// The names are swift-log's `Logger.Level` names, so the daemon maps them one to one; they are ordered by severity.
public enum LogLevel: String, Sendable, Hashable, CaseIterable, Comparable {
    case trace
    case debug
    case info
    case notice
    case warning
    case error
    case critical

    private var severity: Int {
        switch self {
        case .trace: 0
        case .debug: 1
        case .info: 2
        case .notice: 3
        case .warning: 4
        case .error: 5
        case .critical: 6
        }
    }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        lhs.severity < rhs.severity
    }
}
