// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

extension DispatchJournalEntry {
    /// The readable `MESSAGE` of a dispatch.
    ///
    /// - `nginx.service: launch #12` (the total launch count), followed by `, version updated` on the first launch
    ///   after an update, ` (first launch)` on the very first, and ` (crash detected, 3 crashes in total)` when the
    ///   previous run died;
    /// - `nginx.service: wake #5` (the total wake count);
    /// - `nginx.service: sleep after 3600 s awake` (the session's seconds awake, `lifecycle_secondsawake`);
    /// - `nginx.service: crash (signal, status 9/KILL)` (systemd's Result and the exit status, or the signal's number
    ///   and name as systemd prints them);
    /// - `nginx.service: custom event deploy`;
    /// - `backup.service: missed the run backup.timer was due to start at 2026-03-01T03:00:00.000Z (dependency)`.
    ///
    /// The numbers come from the engine's data points, not from the merged payload, so custom data that reuses a
    /// data point's key cannot change the message.
    public static func message(unit: String, dispatch: Dispatch, kind: DispatchKind) -> String {
        switch kind {
        case .launch:
            guard let data = dispatch.lifecycle else { return "\(unit): launch" }
            var text = "\(unit): launch #\(data.totalLaunchCount)"
            if data.isFirstLaunchUpdate { text += ", version updated" }
            if data.isFirstLaunch { text += " (first launch)" }
            if data.didDetectCrash {
                let crashes = data.totalCrashCount == 1 ? "1 crash" : "\(data.totalCrashCount) crashes"
                text += " (crash detected, \(crashes) in total)"
            }
            return text
        case .wake:
            guard let data = dispatch.lifecycle else { return "\(unit): wake" }
            return "\(unit): wake #\(data.totalWakeCount)"
        case .sleep:
            guard let seconds = dispatch.lifecycle?.secondsAwake else { return "\(unit): sleep" }
            return "\(unit): sleep after \(seconds) s awake"
        case .crash:
            // A signal reads as systemd writes it (status 9/KILL), from the keys of CrashDetails.data.
            guard let failure = RunFailure(crashNotice: dispatch) else { return "\(unit): crash" }
            return "\(unit): crash (\(failure.result)\(failure.statusText.map { ", status \($0)" } ?? ""))"
        case .custom:
            return "\(unit): custom event \(dispatch.name)"
        case .missed:
            let data = dispatch.customData
            let timer = data[DispatchField.PayloadKey.timer].map(fieldValue) ?? "its timer"
            let due = data[DispatchField.PayloadKey.timerDueTime].map(fieldValue).map { " at \($0)" } ?? ""
            let cause = data[DispatchField.PayloadKey.missedCause].map(fieldValue).map { " (\($0))" } ?? ""
            return "\(unit): missed the run \(timer) was due to start\(due)\(cause)"
        }
    }
}
