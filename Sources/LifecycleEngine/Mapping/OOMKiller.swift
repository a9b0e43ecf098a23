// SPDX-License-Identifier: Apache-2.0

/// Who killed a process of a run for want of memory: the kernel's OOM killer or systemd-oomd.
///
/// Both are told by PID 1, not by the killer: `src/core/cgroup.c` watches the unit's cgroup and logs, with the
/// unit's `UNIT=` and `INVOCATION_ID=` (`USER_UNIT=`, `USER_INVOCATION_ID=` from a user manager):
/// - `unit_check_oom()`: the cgroup's `memory.events` `oom_kill` counter grew, so the kernel killed a process:
///   `SD_MESSAGE_UNIT_OUT_OF_MEMORY` (`fe6faa94…`), "A process of this unit has been killed by the OOM killer.",
///   no other field.
/// - `unit_check_oomd_kill()`: the cgroup's `user.oomd_ooms` xattr, which systemd-oomd raises before it kills
///   (`src/oom/oomd-util.c`, `oomd_cgroup_kill()`), grew: `SD_MESSAGE_UNIT_OOMD_KILL` (`d989611b…`), "systemd-oomd
///   killed N process(es) in this unit." with `N_PROCESSES=` (read from the `user.oomd_kill` xattr; without it,
///   "killed some process(es)" and no `N_PROCESSES`). cgroup v2 only.
///
/// Both are logged at notice level: the kernel's when the cgroup's `memory.events` changes or the cgroup empties,
/// systemd-oomd's when the cgroup empties; either with the run's InvocationID, so among the run's entries, though
/// not always before its Result. systemd-oomd itself only writes plain lines naming the cgroup path ("Killed
/// /system.slice/x.service due to memory pressure for … being …", `src/oom/oomd-manager.c`), with no MESSAGE_ID and
/// no unit name, and since v252 a D-Bus `Killed(cgroup, reason)` signal: neither is needed here.
///
/// With `OOMPolicy=stop` (the default) or `kill`, the service then fails with `UNIT_RESULT=oom-kill`; since v251
/// (systemd PR #22629) for systemd-oomd's kills too, so the Result alone does not say who killed. With
/// `OOMPolicy=continue` a kernel kill leaves the run going and its Result is not `oom-kill`. Systemd v259 also
/// counts kills in the `OOMKills` and `ManagedOOMKills` properties (PR #38906); v252 has neither.
public enum OOMKiller: String, Sendable, Hashable, Codable, CaseIterable {
    /// The kernel's OOM killer (the cgroup's `memory.events` `oom_kill`).
    case kernel
    /// systemd-oomd (memory pressure or swap use past the unit's `ManagedOOM…=` limits).
    case oomd

    /// systemd's Result for a unit whose process an OOM killer killed.
    public static let oomKillResult = "oom-kill"

    /// Who OOM-killed a process of the run whose entries (all of one InvocationID, oldest first) are `entries`;
    /// nil when they name no killer.
    ///
    /// When both killed during the run, the later message wins: it is the kill nearer the run's end, the one that
    /// ended it (systemd-oomd kills the whole cgroup). An `oom-kill` Result without either message (the messages
    /// fell to `LogLevelMax=` or rate limiting) gives nil: it says that an OOM kill ended the run, not whose, and
    /// ``isOOMKill(_:)`` still tells it.
    public static func killer(in entries: [RunEnding.Entry]) -> OOMKiller? {
        for entry in entries.reversed() {
            switch entry.messageID {
            case RunRecord.MessageID.unitOutOfMemory: return .kernel
            case RunRecord.MessageID.unitOOMDKill: return .oomd
            default: continue
            }
        }
        return nil
    }

    /// True when `entries` (all of one InvocationID) tell that an OOM killer killed a process of the run: either
    /// killer's message, or PID 1's "Failed with result 'oom-kill'".
    public static func isOOMKill(_ entries: [RunEnding.Entry]) -> Bool {
        killer(in: entries) != nil
            || entries.contains {
                $0.messageID == RunEnding.MessageID.unitFailureResult && $0.fields["UNIT_RESULT"] == oomKillResult
            }
    }
}
