// SPDX-License-Identifier: Apache-2.0

/// How a failed run ended, read back from its crash notice: systemd's Result, and how the main process ended.
///
/// Its text follows PID 1's own log line "Main process exited, code=killed, status=9/KILL": an exit status is a
/// number (`7`), a signal is its number and name (`9/KILL`).
public struct RunFailure: Sendable, Hashable, Codable {
    /// systemd's `Result`: `exit-code`, `signal`, `core-dump`, `timeout`, `watchdog`, `oom-kill`, `start-limit-hit`,
    /// …
    public var result: String
    /// How the main process ended, as PID 1 spells it in `EXIT_CODE=`: `exited`, `killed` or `dumped`; nil when
    /// there was no main process (e.g. a start-limit hit or a timeout before it started).
    public var exitCode: String?
    /// The exit status, or the signal number when the process was killed or dumped core.
    public var exitStatus: Int64?
    /// When the run failed.
    public var time: Milliseconds

    public init(result: String, exitCode: String? = nil, exitStatus: Int64? = nil, time: Milliseconds) {
        self.result = result
        self.exitCode = exitCode
        self.exitStatus = exitStatus
        self.time = time
    }

    /// The failure a crash notice describes (its data holds the keys of ``CrashDetails/data``); nil for a notice
    /// without `unit_result`.
    public init?(crashNotice: Dispatch) {
        guard case .string(let result)? = crashNotice.customData["unit_result"] else { return nil }
        var exitCode: String?
        if case .string(let code)? = crashNotice.customData["exit_code"] { exitCode = code }
        var exitStatus: Int64?
        if case .int(let status)? = crashNotice.customData["exit_status"] { exitStatus = status }
        self.init(result: result, exitCode: exitCode, exitStatus: exitStatus, time: crashNotice.time)
    }

    /// True when ``exitStatus`` is a signal number rather than an exit status.
    public var isSignal: Bool {
        if let exitCode { return exitCode == "killed" || exitCode == "dumped" }
        return result == "signal" || result == "core-dump"
    }

    /// The status as systemd prints it: `7` for an exit status, `9/KILL` for a signal; nil when unknown.
    public var statusText: String? {
        guard let exitStatus else { return nil }
        guard isSignal, let name = SignalName.name(exitStatus) else { return String(exitStatus) }
        return "\(exitStatus)/\(name)"
    }

    /// `exit-code, status=7`, `signal, status=9/KILL`, or the Result alone when the status is unknown.
    public var summary: String {
        statusText.map { "\(result), status=\($0)" } ?? result
    }

    enum CodingKeys: String, CodingKey {
        case result
        case exitCode = "exit_code"
        case exitStatus = "exit_status"
        case time
    }
}
