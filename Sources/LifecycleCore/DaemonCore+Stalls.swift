// SPDX-License-Identifier: Apache-2.0

import LifecycleEngine

/// An answer that never comes (docs/architecture.md, "Nothing waits in a circle"): SIGTERM waits for the work in hand
/// only for a while, and the watchdog is no longer told lifecycled is alive, so that systemd restarts it.
extension DaemonCore {
    /// How long an answer may be awaited before the watchdog is no longer told lifecycled is alive (ms): every answer
    /// comes within a bus call's timeout (25 s) or is read again on a timer; so an answer this late never comes.
    static let stallLimit: Milliseconds = 120_000

    /// Tells systemd lifecycled is alive, unless the work in hand has waited for an answer beyond ``stallLimit``: then
    /// nothing would be dispatched again, and systemd's watchdog restarts lifecycled (`WatchdogSec=`, `Restart=`),
    /// whose next start recovers what it missed from PID 1's journal.
    mutating func pingWatchdog() {
        guard let since = awaitedSince, let awaited, uptime - since > Self.stallLimit else {
            effects.append(.notify([.watchdog]))
            return
        }
        log(.error, "No answer for \((uptime - since) / 1_000) s to \(awaited.summary): nothing is dispatched "
            + "meanwhile, so the watchdog is no longer told lifecycled is alive, and systemd restarts it")
    }

    /// How long SIGTERM waits behind work (ms): the answers it waits for come within milliseconds, and a bus call
    /// times out after 25 s; systemd's SIGKILL comes after 90 s.
    static let stopPatience: Milliseconds = 10_000

    /// SIGTERM waited ``stopPatience`` behind work: lifecycled stops without it. The records keep what was done; what
    /// the work would have recorded, the next start recovers from PID 1's journal.
    mutating func stopWithoutWaiting() {
        guard phase != .stopping else { return }
        log(.warning, "Stopping without waiting any longer for \(awaited?.summary ?? "the work in hand"): "
            + "the next start recovers what it would have recorded from PID 1's journal")
        stop()
    }
}

extension DaemonCore.AwaitedAnswer {
    /// What is awaited, for the log.
    var summary: String {
        switch self {
        case .ending(let unit, _, _, _): "how the previous run of \(unit) ended"
        case .version(let transition): "the version of \(transition.unit)"
        case .archive(let units, _, _): "the archived records of \(units.count) units"
        case .cost(let transition): "what the run of \(transition.unit) cost"
        case .runJournal(let transition, _, _): "the journal's account of the failed run of \(transition.unit)"
        }
    }
}
