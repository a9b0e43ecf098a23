#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Tests of the chaos oracle on tiny handcrafted journals: a correct history passes, and each kind of wrong history
(a lost run, a duplicate begin, a false sleep, a sequence gap, a dispatch for a start ExecCondition= skipped, a lost
run of a unit PID 1 logs nothing of, a history before lifecycled's first start not marked reconciled, ...) is caught
under its own class. The chaos suite
runs these first (no container, well under a second): an oracle that cannot fail proves nothing.

Usage: python3 Tests/Integration/lib/chaos_oracle_test.py [-v]
"""

import datetime
import io
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chaos_oracle as oracle  # noqa: E402

UNIT = "lc-chaos-long.service"
INV1 = "11111111111111111111111111111111"
INV2 = "22222222222222222222222222222222"
INV3 = "33333333333333333333333333333333"
T0 = 1_800_000_000_000_000  # µs since the epoch


def iso(us):
    t = datetime.datetime.fromtimestamp(us / 1e6, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


class History:
    """Builds a journal export: PID 1's entries, lifecycled's dispatches and tracking entries, and state files."""

    def __init__(self):
        self.lines = []
        self.seq = {}

    def pid1(self, at, mid, unit=UNIT, inv=None, **fields):
        e = {"_PID": "1", "MESSAGE_ID": mid, "UNIT": unit, "MESSAGE": oracle.PID1_NAMES.get(mid, mid),
             "__REALTIME_TIMESTAMP": str(T0 + int(at * 1e6))}
        if inv:
            e["INVOCATION_ID"] = inv
        e.update(fields)
        self.lines.append(e)
        return self

    def tracking(self, at):
        self.lines.append({"_PID": "500", "_UID": "0", "SYSLOG_IDENTIFIER": "lifecycled",
                           "MESSAGE_ID": oracle.TRACKING, "MESSAGE": "Tracking: Watching 1 loaded units",
                           "__REALTIME_TIMESTAMP": str(T0 + int(at * 1e6))})
        return self

    def dispatch(self, at, event, inv, when=None, seq=None, unit=UNIT, **fields):
        if seq is None:
            seq = self.seq.get(unit, 0) + 1
        self.seq[unit] = max(seq, self.seq.get(unit, 0))
        e = {"_PID": "500", "_UID": "0", "SYSLOG_IDENTIFIER": "lifecycled", "LIFECYCLE_UNIT": unit,
             "LIFECYCLE_EVENT": event, "LIFECYCLE_SEQUENCE": str(seq), "LIFECYCLE_INVOCATION_ID": inv,
             "LIFECYCLE_TIME": iso(T0 + int((at if when is None else when) * 1e6)),
             "MESSAGE": "%s: %s #%d" % (unit, event, seq), "__REALTIME_TIMESTAMP": str(T0 + int(at * 1e6) + 1000)}
        for k, v in fields.items():
            e["LIFECYCLE_" + k.upper()] = v
        self.lines.append(e)
        return self

    def judge(self, states, disturbances=(), self_logged=(), seen_live=(), manual=(), samples=()):
        with tempfile.TemporaryDirectory() as d:
            journal = os.path.join(d, "journal.json")
            with open(journal, "w") as f:
                for e in self.lines:
                    f.write(json.dumps(e) + "\n")
            selflog = os.path.join(d, "quiet.log")
            with open(selflog, "w") as f:
                f.write("".join(line + "\n" for line in self_logged))
            live = os.path.join(d, "nostore.log")
            with open(live, "w") as f:
                f.write("".join(line + "\n" for line in seen_live))
            calls = os.path.join(d, "manual.log")
            with open(calls, "w") as f:
                f.write("".join(line + "\n" for line in manual))
            sampled = os.path.join(d, "samples.jsonl")
            with open(sampled, "w") as f:
                f.write("".join(json.dumps({"t": (T0 / 1e6 + t), "unit": u, "values": v}) + "\n"
                                for t, u, v in samples))
            o = oracle.Oracle(oracle.load_journal(journal), states, re.compile(r"lc-chaos-.*"),
                              list(disturbances), 500_000, oracle.load_self_logged([selflog]),
                              oracle.load_self_logged([live]), oracle.load_manual(calls),
                              oracle.load_samples(sampled))
            o.run()
            out = io.StringIO()
            o.report(out)
            return o, out.getvalue()


def state(sequence, launch, wake, sleep, crash, unit=UNIT):
    return {unit: {"unit": unit, "sequence": sequence, "state": {
        "count_total_launch": launch, "count_total_wake": wake, "count_total_sleep": sleep,
        "count_total_crash": crash}}}


def good():
    """lifecycled up; run 1 launch+sleep, run 2 wake+crash (SIGKILL), run 3 a launch that detected the crash."""
    h = History()
    h.pid1(0.0, oracle.STARTING, "lifecycled.service", "aa" * 16).pid1(0.2, oracle.STARTED, "lifecycled.service",
                                                                       "aa" * 16).tracking(0.2)
    h.pid1(10.0, oracle.STARTED, inv=INV1).dispatch(10.0, "launch", INV1)
    h.pid1(11.0, oracle.STOPPING, inv=INV1).pid1(11.01, oracle.SUCCESS, inv=INV1).dispatch(11.01, "sleep", INV1)
    h.pid1(11.02, oracle.STOPPED, inv=INV1, JOB_TYPE="stop")
    h.pid1(12.0, oracle.STARTED, inv=INV2).dispatch(12.0, "wake", INV2)
    h.pid1(13.0, oracle.PROCESS_EXIT, inv=INV2, EXIT_CODE="killed", EXIT_STATUS="9")
    h.pid1(13.0, oracle.FAILURE, inv=INV2, UNIT_RESULT="signal")
    h.dispatch(13.0, "crash", INV2, unit_result="signal", exit_code="killed", exit_status="9")
    h.pid1(14.0, oracle.STARTED, inv=INV3).dispatch(14.0, "launch", INV3, diddetectcrash="true")
    h.pid1(15.0, oracle.SUCCESS, inv=INV3).dispatch(15.0, "sleep", INV3)
    return h


GOOD_STATE = state(6, 2, 3, 2, 1)

COND = "lc-chaos-cond.service"
QUIET = "lc-chaos-quiet.service"
SKIP = "99" * 16


def skipped_start(h, at, inv=SKIP, unit=COND):
    """What PID 1 (systemd 252) logs for a start ExecCondition= skips: "Starting", "Skipped due to 'exec-condition'"
    and the job's "Condition check resulted in ... being skipped" (the MESSAGE_ID of "Started"/"Finished")."""
    h.pid1(at, oracle.STARTING, unit, inv)
    h.pid1(at + 0.01, oracle.SKIPPED, unit, inv, UNIT_RESULT="exec-condition")
    h.pid1(at + 0.01, oracle.STARTED, unit, inv, JOB_TYPE="start", JOB_RESULT="done")
    return h


def cond_history():
    """lifecycled up; the oneshot behind ExecCondition=: run 1, a skipped start, run 2, another skipped start."""
    h = History()
    h.pid1(0.0, oracle.STARTING, "lifecycled.service", "aa" * 16).pid1(0.2, oracle.STARTED, "lifecycled.service",
                                                                       "aa" * 16).tracking(0.2)
    h.pid1(10.0, oracle.STARTING, COND, INV1).dispatch(10.0, "launch", INV1, unit=COND)
    h.pid1(10.5, oracle.SUCCESS, COND, INV1).dispatch(10.5, "sleep", INV1, unit=COND)
    h.pid1(10.5, oracle.STARTED, COND, INV1, JOB_TYPE="start", JOB_RESULT="done")
    skipped_start(h, 11.0)
    h.pid1(12.0, oracle.STARTING, COND, INV2).dispatch(12.0, "wake", INV2, unit=COND)
    h.pid1(12.3, oracle.SUCCESS, COND, INV2).dispatch(12.3, "sleep", INV2, unit=COND)
    h.pid1(12.3, oracle.STARTED, COND, INV2, JOB_TYPE="start", JOB_RESULT="done")
    skipped_start(h, 13.0, inv="98" * 16)
    return h


COND_STATE = state(4, 1, 2, 2, 0, unit=COND)

Q1, Q2, Q3 = "a1" * 16, "a2" * 16, "a3" * 16


def quiet_lines(*runs):
    """Self-logged lines: (inv, start, stop) per run, times in seconds after T0; None leaves a line out."""
    out = []
    for inv, start, stop in runs:
        if start is not None:
            out.append("%s start %s %.6f" % (inv, QUIET, T0 / 1e6 + start))
        if stop is not None:
            out.append("%s stop %s %.6f success" % (inv, QUIET, T0 / 1e6 + stop))
    return out


def quiet_history():
    """lifecycled ready at 0.2; the quiet unit's runs Q1 (5-6) and Q2 (6.3-7): a launch and a sleep, a wake and an
    end lifecycled could not know (LIFECYCLE_RUN_END=unknown). PID 1 logs nothing of them."""
    h = History()
    h.pid1(0.0, oracle.STARTING, "lifecycled.service", "aa" * 16).pid1(0.2, oracle.STARTED, "lifecycled.service",
                                                                       "aa" * 16).tracking(0.2)
    h.dispatch(5.0, "launch", Q1, unit=QUIET).dispatch(6.0, "sleep", Q1, unit=QUIET)
    h.dispatch(6.3, "wake", Q2, unit=QUIET).dispatch(7.0, "sleep", Q2, unit=QUIET, run_end="unknown")
    return h, quiet_lines((Q1, 5.0, 6.0), (Q2, 6.3, 7.0))


QUIET_STATE = state(4, 1, 2, 2, 0, unit=QUIET)


class OracleTests(unittest.TestCase):
    def kinds(self, o):
        return sorted({v[0] for v in o.violations})

    def test_a_correct_history_passes(self):
        o, out = good().judge(GOOD_STATE)
        self.assertEqual(o.violations, [], out)
        self.assertIn("3 runs of 1 units", out)

    def test_a_lost_run_is_caught(self):
        h = good()
        h.lines = [e for e in h.lines if e.get("LIFECYCLE_INVOCATION_ID") != INV3]
        h.pid1(16.0, oracle.STARTED, inv="44" * 16).dispatch(16.0, "launch", "44" * 16, seq=5, diddetectcrash="true")
        o, out = h.judge(state(5, 2, 3, 1, 1))
        self.assertIn("lost-begin", self.kinds(o), out)
        self.assertIn("lost-end", self.kinds(o), out)
        self.assertIn("VIOLATION lost-begin: %s run %s" % (UNIT, INV3), out)

    def test_a_duplicate_begin_is_caught(self):
        h = good().dispatch(15.5, "launch", INV3, when=14.0, diddetectcrash="true")
        o, out = h.judge(state(7, 3, 4, 2, 2))
        self.assertIn("duplicate-begin", self.kinds(o), out)
        self.assertIn("sequences 5,7", out)

    def test_a_false_sleep_is_caught(self):
        h = good()
        for e in h.lines:
            if e.get("LIFECYCLE_EVENT") == "crash":
                e["LIFECYCLE_EVENT"] = "sleep"
        o, out = h.judge(state(7, 2, 3, 3, 1))
        self.assertIn("false-sleep", self.kinds(o), out)
        self.assertIn("counters", self.kinds(o), out)  # 3 sleeps, PID 1 logged 2 clean ends

    def test_a_sequence_gap_is_caught(self):
        h = good()
        h.lines[-1]["LIFECYCLE_SEQUENCE"] = "7"
        o, out = h.judge(state(7, 2, 3, 2, 1))
        self.assertEqual(["sequence-gap"], self.kinds(o), out)
        self.assertIn("missing 6", out)

    def test_a_duplicate_sequence_is_caught(self):
        h = good()
        h.lines[-1]["LIFECYCLE_SEQUENCE"] = "5"
        o, out = h.judge(state(5, 2, 3, 2, 1))
        self.assertIn("duplicate-sequence", self.kinds(o), out)

    def test_an_invented_run_is_caught(self):
        h = good().dispatch(16.0, "launch", "55" * 16)
        o, out = h.judge(state(8, 3, 4, 2, 1))
        self.assertIn("invented", self.kinds(o), out)
        self.assertIn("PID 1 never logged this run", out)

    def test_an_end_for_a_run_that_never_ended_is_invented(self):
        h = good()
        h.pid1(20.0, oracle.STARTED, inv="66" * 16).dispatch(20.0, "wake", "66" * 16)
        h.dispatch(21.0, "sleep", "66" * 16)
        o, out = h.judge(state(9, 2, 4, 3, 1))
        self.assertIn("invented", self.kinds(o), out)

    def test_numbering_out_of_run_order_is_caught(self):
        h = good()
        # Run 2's begin numbered after run 3's: the sequence order no longer follows the runs.
        for e in h.lines:
            if e.get("LIFECYCLE_INVOCATION_ID") == INV2 and e.get("LIFECYCLE_EVENT") == "wake":
                e["LIFECYCLE_SEQUENCE"] = "6"
            elif e.get("LIFECYCLE_INVOCATION_ID") == INV3 and e.get("LIFECYCLE_EVENT") == "launch":
                e["LIFECYCLE_SEQUENCE"] = "3"
        o, out = h.judge(GOOD_STATE)
        self.assertIn("out-of-order", self.kinds(o), out)

    def test_counters_that_differ_from_the_dispatches_are_caught(self):
        o, out = good().judge(state(7, 2, 2, 2, 1))
        self.assertEqual(["counters"], self.kinds(o), out)
        self.assertIn("count_total_wake=2, expected 3", out)

    def test_a_missing_state_file_is_caught(self):
        o, out = good().judge({})
        self.assertEqual(["counters"], self.kinds(o), out)

    def test_a_late_time_is_caught(self):
        h = good()
        h.lines[-1]["LIFECYCLE_TIME"] = iso(T0 + 16_000_000)
        o, out = h.judge(GOOD_STATE)
        self.assertEqual(["time"], self.kinds(o), out)
        self.assertIn("+1.000 s", out)

    def test_a_sleep_dispatched_before_the_run_ended_is_caught(self):
        h = good()
        # Run 3's sleep reaches the journal at 14.5, while PID 1 ends the run only at 15.0; its time is the right one.
        h.lines[-1]["__REALTIME_TIMESTAMP"] = str(T0 + 14_500_000)
        o, out = h.judge(GOOD_STATE)
        self.assertEqual(["premature"], self.kinds(o), out)
        self.assertIn("0.500 s before", out)

    def test_wrong_crash_details_are_caught(self):
        h = good()
        for e in h.lines:
            if e.get("LIFECYCLE_EVENT") == "crash":
                e["LIFECYCLE_EXIT_STATUS"] = "15"
        o, out = h.judge(GOOD_STATE)
        self.assertEqual(["crash-details"], self.kinds(o), out)

    def test_a_wake_after_a_failed_run_is_caught(self):
        h = good()
        for e in h.lines:
            if e.get("LIFECYCLE_INVOCATION_ID") == INV3 and e.get("LIFECYCLE_EVENT") == "launch":
                e["LIFECYCLE_EVENT"] = "wake"
                del e["LIFECYCLE_DIDDETECTCRASH"]
        o, out = h.judge(state(7, 1, 3, 2, 0))
        self.assertIn("begin-kind", self.kinds(o), out)

    def test_a_launch_after_a_version_change_is_no_begin_kind_violation(self):
        h = good()
        for e in h.lines:
            if e.get("LIFECYCLE_EVENT") in ("launch", "wake"):
                e["LIFECYCLE_VERSION"] = "v1"
            if e.get("LIFECYCLE_INVOCATION_ID") == INV2 and e.get("LIFECYCLE_EVENT") == "wake":
                e["LIFECYCLE_EVENT"] = "launch"
                e["LIFECYCLE_VERSION"] = "v2"
        o, out = h.judge(state(6, 3, 3, 2, 1))
        self.assertEqual([], self.kinds(o), out)

    def down_history(self, reconciled):
        """lifecycled killed at 20.0 and started again at 23.0; the run begins and ends while it is down."""
        h = good()
        h.pid1(20.0, oracle.PROCESS_EXIT, "lifecycled.service", "aa" * 16, EXIT_CODE="killed", EXIT_STATUS="9")
        h.pid1(20.0, oracle.FAILURE, "lifecycled.service", "aa" * 16, UNIT_RESULT="signal")
        h.pid1(21.0, oracle.STARTED, inv="77" * 16).pid1(22.0, oracle.SUCCESS, inv="77" * 16)
        h.pid1(23.0, oracle.STARTING, "lifecycled.service", "bb" * 16)
        extra = {"reconciled": "true"} if reconciled else {}
        h.dispatch(23.5, "wake", "77" * 16, when=21.0, **extra).dispatch(23.5, "sleep", "77" * 16, when=22.0, **extra)
        h.pid1(23.6, oracle.STARTED, "lifecycled.service", "bb" * 16).tracking(23.6)
        return h.judge(state(8, 2, 4, 3, 1), [(19.9 + T0 / 1e6, 23.6 + T0 / 1e6, "sigkill", "PID 500")])

    def test_a_transition_while_lifecycled_was_down_must_be_reconciled(self):
        o, out = self.down_history(reconciled=False)
        self.assertEqual(["not-reconciled"], self.kinds(o), out)
        self.assertEqual(2, len(o.violations), out)
        self.assertIn("no lifecycled process existed", out)
        o, out = self.down_history(reconciled=True)
        self.assertEqual([], self.kinds(o), out)

    def test_a_live_transition_marked_reconciled_is_caught(self):
        h = good()
        h.lines[-1]["LIFECYCLE_RECONCILED"] = "true"
        o, out = h.judge(GOOD_STATE)
        self.assertEqual(["falsely-reconciled"], self.kinds(o), out)
        # Near a disturbance either marking is accepted.
        o, out = h.judge(GOOD_STATE, [(14.5 + T0 / 1e6, 14.9 + T0 / 1e6, "dbus", "")])
        self.assertEqual([], self.kinds(o), out)

    # --- starts ExecCondition= skips --------------------------------------------------------------------------------

    def test_skipped_starts_without_dispatches_pass_and_are_no_runs(self):
        o, out = cond_history().judge(COND_STATE)
        self.assertEqual([], self.kinds(o), out)
        self.assertIn("2 runs of 1 units (0 failed), 2 starts skipped", out)

    def test_a_dispatch_for_a_skipped_start_is_caught(self):
        h = cond_history().dispatch(11.01, "wake", SKIP, unit=COND)
        o, out = h.judge(state(5, 1, 3, 2, 0, unit=COND))
        self.assertIn("skipped-start", self.kinds(o), out)
        self.assertIn("VIOLATION skipped-start: %s run %s" % (COND, SKIP), out)
        self.assertIn("Skipped due to 'exec-condition'", out)
        # Counted as a run, it also breaks the counters against PID 1's runs.
        self.assertIn("counters", self.kinds(o), out)

    def test_a_skipped_start_ended_as_a_crash_is_caught(self):
        h = cond_history()
        h.lines = [e for e in h.lines if e.get("LIFECYCLE_INVOCATION_ID") != INV2]
        h.dispatch(11.01, "wake", SKIP, unit=COND, seq=3).dispatch(11.01, "crash", SKIP, unit=COND, seq=4,
                                                                    unit_result="exec-condition")
        h.dispatch(12.0, "launch", INV2, unit=COND, seq=5, diddetectcrash="true")
        h.dispatch(12.3, "sleep", INV2, unit=COND, seq=6)
        o, out = h.judge(state(6, 2, 3, 2, 1, unit=COND))
        self.assertIn("skipped-start", self.kinds(o), out)
        self.assertIn("begin-kind", self.kinds(o), out)  # the run after a skipped start is no launch

    def test_a_check_that_fails_is_a_failed_run(self):
        h = cond_history()
        inv = "97" * 16
        h.pid1(14.0, oracle.STARTING, COND, inv)
        h.pid1(14.01, oracle.PROCESS_EXIT, COND, inv, COMMAND="ExecCondition", EXIT_CODE="exited", EXIT_STATUS="255")
        h.pid1(14.01, oracle.FAILURE, COND, inv, UNIT_RESULT="exit-code")
        h.pid1(14.01, oracle.START_FAILED, COND, inv, JOB_TYPE="start", JOB_RESULT="failed")
        o, out = h.judge(state(4, 1, 2, 2, 0, unit=COND))
        self.assertIn("lost-begin", self.kinds(o), out)
        self.assertIn("lost-end", self.kinds(o), out)
        h.dispatch(14.0, "wake", inv, unit=COND).dispatch(14.01, "crash", inv, unit=COND, unit_result="exit-code")
        o, out = h.judge(state(6, 1, 3, 2, 0, unit=COND))
        self.assertEqual([], self.kinds(o), out)
        # The check process's exit is no main process exit: its status is not the run's. The result still is.
        h.lines[-1]["LIFECYCLE_UNIT_RESULT"] = "signal"
        o, out = h.judge(state(6, 1, 3, 2, 0, unit=COND))
        self.assertEqual(["crash-details"], self.kinds(o), out)
        self.assertIn("carrying LIFECYCLE_UNIT_RESULT=exit-code;", out)
        # A main process's exit (COMMAND=ExecStart) still is.
        h = good()
        for e in h.lines:
            if e.get("MESSAGE_ID") == oracle.PROCESS_EXIT:
                e["COMMAND"] = "ExecStart"
            if e.get("LIFECYCLE_EVENT") == "crash":
                e["LIFECYCLE_EXIT_STATUS"] = "15"
        o, out = h.judge(GOOD_STATE)
        self.assertEqual(["crash-details"], self.kinds(o), out)

    # --- units PID 1 logs nothing of ---------------------------------------------------------------------------------

    def test_self_logged_runs_with_their_dispatches_pass(self):
        h, lines = quiet_history()
        o, out = h.judge(QUIET_STATE, self_logged=lines)
        self.assertEqual([], self.kinds(o), out)
        self.assertIn("2 self-logged runs of 1 units (2 begun, 2 at a quiet time)", out)

    def test_a_self_logged_run_at_a_quiet_time_without_a_begin_is_lost(self):
        h, lines = quiet_history()
        lines += quiet_lines((Q3, 7.3, 8.0))
        o, out = h.judge(QUIET_STATE, self_logged=lines)
        self.assertEqual(["lost-begin"], self.kinds(o), out)
        self.assertIn("VIOLATION lost-begin: %s run %s" % (QUIET, Q3), out)

    def test_a_self_logged_run_lifecycled_could_not_see_is_not_demanded(self):
        """lifecycled killed at 20.0, started at 23.0 (ready 23.6): Q3 begins and ends meanwhile; no entry anywhere
        shows it. Q4, begun meanwhile and still going once lifecycled is back, must be begun."""
        h, lines = quiet_history()
        h.pid1(20.0, oracle.PROCESS_EXIT, "lifecycled.service", "aa" * 16, EXIT_CODE="killed", EXIT_STATUS="9")
        h.pid1(20.0, oracle.FAILURE, "lifecycled.service", "aa" * 16, UNIT_RESULT="signal")
        h.pid1(23.0, oracle.STARTING, "lifecycled.service", "bb" * 16)
        h.pid1(23.6, oracle.STARTED, "lifecycled.service", "bb" * 16).tracking(23.6)
        q4 = "a4" * 16
        lines += quiet_lines((Q3, 21.0, 21.5), (q4, 22.0, 30.0))
        disturbances = [(19.9 + T0 / 1e6, 23.6 + T0 / 1e6, "sigkill", "PID 500")]
        o, out = h.judge(QUIET_STATE, disturbances, lines)
        self.assertEqual(["lost-begin"], self.kinds(o), out)
        self.assertIn("VIOLATION lost-begin: %s run %s" % (QUIET, q4), out)
        self.assertNotIn(Q3 + ": expected", out)
        # Begun after lifecycled's start, ended unknown: right, whatever its time says (no PID 1 entry to check).
        h.dispatch(23.5, "wake", q4, unit=QUIET, when=23.5, reconciled="true")
        h.dispatch(30.0, "sleep", q4, unit=QUIET, when=40.0)
        o, out = h.judge(state(6, 1, 3, 3, 0, unit=QUIET), disturbances, lines)
        self.assertEqual([], self.kinds(o), out)

    def test_a_crash_notice_for_a_self_logged_run_is_caught(self):
        h, lines = quiet_history()
        h.lines[-1]["LIFECYCLE_EVENT"] = "crash"
        o, out = h.judge(state(4, 1, 2, 1, 0, unit=QUIET), self_logged=lines)
        self.assertEqual(["false-crash"], self.kinds(o), out)

    def test_a_self_logged_run_pid1_failed_may_end_with_a_crash_without_its_stop_line(self):
        """Q2's ExecStopPost= could not run (status 219/CGROUP): no stop line, but PID 1's "Failed with result",
        which LogLevelMax=notice lets through, says the run failed. Its crash notice is right, and so is the
        launch after it; without PID 1's entry, the same dispatches are a false crash."""
        h = History()
        h.pid1(0.0, oracle.STARTING, "lifecycled.service", "aa" * 16).pid1(0.2, oracle.STARTED, "lifecycled.service",
                                                                           "aa" * 16).tracking(0.2)
        h.dispatch(5.0, "launch", Q1, unit=QUIET).dispatch(6.0, "sleep", Q1, unit=QUIET)
        h.dispatch(6.3, "wake", Q2, unit=QUIET).dispatch(6.5, "crash", Q2, unit=QUIET)
        h.dispatch(7.0, "launch", Q3, unit=QUIET, diddetectcrash="true")
        lines = quiet_lines((Q1, 5.0, 6.0), (Q2, 6.3, None), (Q3, 7.0, None))
        quiet_state = state(5, 2, 3, 1, 1, unit=QUIET)
        o, out = h.judge(quiet_state, self_logged=lines)
        self.assertIn("false-crash", self.kinds(o), out)
        h.pid1(6.5, oracle.FAILURE, QUIET, Q2, UNIT_RESULT="exit-code")
        o, out = h.judge(quiet_state, self_logged=lines)
        self.assertEqual([], self.kinds(o), out)
        # A run whose ExecStart= could not even run recorded nothing at all; PID 1's failure makes it a run too.
        q4 = "a4" * 16
        h.dispatch(8.0, "wake", q4, unit=QUIET).dispatch(8.1, "crash", q4, unit=QUIET)
        o, out = h.judge(state(7, 2, 4, 1, 1, unit=QUIET), self_logged=lines)
        self.assertIn("invented", self.kinds(o), out)
        h.pid1(8.1, oracle.FAILURE, QUIET, q4, UNIT_RESULT="exit-code")
        o, out = h.judge(state(7, 2, 4, 1, 1, unit=QUIET), self_logged=lines)
        self.assertEqual([], self.kinds(o), out)

    def test_a_dispatch_for_a_run_the_unit_never_recorded_is_invented(self):
        h, lines = quiet_history()
        h.dispatch(8.0, "wake", Q3, unit=QUIET)
        o, out = h.judge(state(5, 1, 3, 2, 0, unit=QUIET), self_logged=lines)
        self.assertEqual(["invented"], self.kinds(o), out)
        self.assertIn("the unit never recorded this run", out)

    def test_duplicate_and_lost_ends_of_self_logged_runs_are_caught(self):
        h, lines = quiet_history()
        h.dispatch(7.1, "sleep", Q2, unit=QUIET, run_end="unknown")
        o, out = h.judge(state(5, 1, 2, 3, 0, unit=QUIET), self_logged=lines)
        self.assertEqual(["duplicate-end"], self.kinds(o), out)
        h, lines = quiet_history()
        h.lines.pop()
        o, out = h.judge(state(3, 1, 2, 1, 0, unit=QUIET), self_logged=lines)
        self.assertEqual(["lost-end"], self.kinds(o), out)
        # An end of a run that never recorded its stop, and one without a begin.
        h, lines = quiet_history()
        o, out = h.judge(QUIET_STATE, self_logged=quiet_lines((Q1, 5.0, 6.0), (Q2, 6.3, None)))
        self.assertEqual(["invented"], self.kinds(o), out)
        h, lines = quiet_history()
        h.lines = [e for e in h.lines if e.get("LIFECYCLE_EVENT") != "wake"]
        h.lines[-1]["LIFECYCLE_SEQUENCE"] = "3"
        o, out = h.judge(state(3, 1, 1, 2, 0, unit=QUIET), self_logged=lines)
        self.assertIn("invented", self.kinds(o), out)
        self.assertIn("lost-begin", self.kinds(o), out)

    def test_self_logged_runs_are_numbered_and_counted(self):
        h, lines = quiet_history()
        h.lines[-1]["LIFECYCLE_SEQUENCE"] = "5"
        o, out = h.judge(state(5, 1, 2, 2, 0, unit=QUIET), self_logged=lines)
        self.assertEqual(["sequence-gap"], self.kinds(o), out)
        h, lines = quiet_history()
        o, out = h.judge(state(4, 1, 3, 2, 0, unit=QUIET), self_logged=lines)
        self.assertEqual(["counters"], self.kinds(o), out)
        # Q2's begin numbered before Q1's end.
        h, lines = quiet_history()
        for e in h.lines:
            if e.get("LIFECYCLE_INVOCATION_ID") == Q1 and e.get("LIFECYCLE_EVENT") == "sleep":
                e["LIFECYCLE_SEQUENCE"] = "3"
            elif e.get("LIFECYCLE_INVOCATION_ID") == Q2 and e.get("LIFECYCLE_EVENT") == "wake":
                e["LIFECYCLE_SEQUENCE"] = "2"
        o, out = h.judge(QUIET_STATE, self_logged=lines)
        self.assertEqual(["out-of-order"], self.kinds(o), out)

    def test_a_launch_after_a_clean_self_logged_run_is_caught(self):
        h, lines = quiet_history()
        for e in h.lines:
            if e.get("LIFECYCLE_EVENT") == "wake":
                e["LIFECYCLE_EVENT"] = "launch"
        o, out = h.judge(state(4, 2, 2, 2, 0, unit=QUIET), self_logged=lines)
        self.assertEqual(["begin-kind"], self.kinds(o), out)

    def test_pid1_entries_of_a_self_logged_unit_make_no_runs(self):
        h, lines = quiet_history()
        # A notice PID 1 may still log (LogLevelMax=notice lets it through) is no run of its own.
        h.pid1(5.5, "f" * 32, QUIET, Q1)
        o, out = h.judge(QUIET_STATE, self_logged=lines)
        self.assertEqual([], self.kinds(o), out)

    # --- a journald that stores nothing below notice ---------------------------------------------------------------

    def nostore_history(self):
        """good(), then run 4 (20.0-21.0) while journald stored nothing (window 19.5-22.0): PID 1's info entries of
        it and its dispatches (seq 7, 8) are not in the journal; run 5 after it is."""
        h = good()
        inv4, inv5 = "44" * 16, "45" * 16
        h.pid1(24.0, oracle.STARTED, inv=inv5).dispatch(24.0, "wake", inv5, seq=9)
        h.pid1(25.0, oracle.SUCCESS, inv=inv5).dispatch(25.0, "sleep", inv5, seq=10)
        window = [(T0 / 1e6 + 19.5 + oracle.NOSTORE_BEFORE, T0 / 1e6 + 22.0 - oracle.NOSTORE_AFTER, "nostore", "")]
        return h, window, inv4

    def test_what_a_journal_storing_nothing_hides_is_excused_only_in_its_window(self):
        h, window, _ = self.nostore_history()
        o, out = h.judge(state(10, 2, 5, 4, 1), window)
        self.assertEqual([], self.kinds(o), out)
        self.assertIn("dispatch numbers unseen 2", out)
        # The same gap without the window: lost.
        o, out = h.judge(state(10, 2, 5, 4, 1))
        self.assertIn("sequence-gap", self.kinds(o), out)
        # Counters below what the journal shows are still wrong; above it, right (the unseen run counted).
        o, out = h.judge(state(10, 2, 3, 4, 1), window)
        self.assertEqual(["counters"], self.kinds(o), out)
        self.assertIn("expected at least", out)
        # A window long after a transition does not excuse its dispatch.
        late = [(T0 / 1e6 + 60.0 + oracle.NOSTORE_BEFORE, T0 / 1e6 + 62.0 - oracle.NOSTORE_AFTER, "nostore", "")]
        h2 = good()
        h2.lines = [e for e in h2.lines if e.get("LIFECYCLE_SEQUENCE") != "6"]
        o, out = h2.judge(state(5, 2, 3, 1, 1), late)
        self.assertIn("lost-end", self.kinds(o), out)
        o, out = h2.judge(state(5, 2, 3, 1, 1), [(T0 / 1e6 + 16.0 + oracle.NOSTORE_BEFORE,
                                                  T0 / 1e6 + 18.0 - oracle.NOSTORE_AFTER, "nostore", "")])
        self.assertNotIn("lost-end", self.kinds(o), out)
        # A begin lost outside the window is still lost.
        h.lines = [e for e in h.lines if not (e.get("LIFECYCLE_EVENT") == "wake"
                                              and e.get("LIFECYCLE_SEQUENCE") == "9")]
        o, out = h.judge(state(10, 2, 5, 4, 1), window)
        self.assertIn("lost-begin", self.kinds(o), out)

    def test_an_end_pid1_lost_while_journald_restarted_is_excused_only_in_its_window(self):
        """A run whose failure PID 1 logged while journald restarted into storing nothing below notice: even its
        warnings can be lost then, so lifecycled's crash notice for it is not invented inside the window."""
        h = good()
        inv = "77" * 16
        h.pid1(20.0, oracle.STARTED, inv=inv).dispatch(20.0, "wake", inv)
        h.dispatch(20.5, "crash", inv)
        window = [(T0 / 1e6 + 19.5 + oracle.NOSTORE_BEFORE, T0 / 1e6 + 22.0 - oracle.NOSTORE_AFTER, "nostore", "")]
        o, out = h.judge(state(9, 2, 4, 2, 2), window)
        self.assertNotIn("invented", self.kinds(o), out)
        o, out = h.judge(state(9, 2, 4, 2, 2))
        self.assertIn("invented", self.kinds(o), out)

    def test_a_failure_lost_while_journald_restarted_leaves_only_a_restarts_stop(self):
        """A crash loop's run failed as journald restarted at a window's edge: its "Main process exited" and "Failed
        with result" are lost, the restart's "Stopped" (info, after the window) is there. lifecycled's crash notice
        dated within the window is no false crash; after "Deactivated successfully", or outside a window, it is."""
        h = good()
        inv = "77" * 16
        h.pid1(20.0, oracle.STARTED, inv=inv).dispatch(20.0, "wake", inv)
        h.dispatch(21.5, "crash", inv, unit_result="exit-code")
        h.pid1(22.5, oracle.STOPPED, inv=inv)
        window = [(T0 / 1e6 + 19.5 + oracle.NOSTORE_BEFORE, T0 / 1e6 + 22.0 - oracle.NOSTORE_AFTER, "nostore", "")]
        o, out = h.judge(state(9, 2, 4, 2, 2), window)
        self.assertEqual([], self.kinds(o), out)
        self.assertIn("failures unseen 1", out)
        o, out = h.judge(state(9, 2, 4, 2, 2))
        self.assertIn("false-crash", self.kinds(o), out)
        h.pid1(21.4, oracle.SUCCESS, inv=inv)
        o, out = h.judge(state(9, 2, 4, 2, 2), window)
        self.assertIn("false-crash", self.kinds(o), out)
        # Its begin unseen too (PID 1's "Started" is info): the same (seed 217291).
        h = good()
        h.dispatch(20.0, "wake", inv).dispatch(21.5, "crash", inv, unit_result="exit-code")
        h.pid1(22.5, oracle.STOPPED, inv=inv)
        o, out = h.judge(state(9, 2, 4, 2, 2), window)
        self.assertNotIn("false-crash", self.kinds(o), out)
        self.assertIn("failures unseen 1", out)

    def test_a_gap_before_a_later_sending_is_still_bounded_by_the_transition_before_it(self):
        """Numbers 7 and 8 went to the journal that stored nothing; 5 and 6 (run 3) too, and were sent again after
        the window: the copies the journal holds went out after it. The gap is still the window's."""
        h, window, _ = self.nostore_history()
        for e in h.lines:
            if e.get("LIFECYCLE_INVOCATION_ID") == INV3:
                e["__REALTIME_TIMESTAMP"] = str(T0 + 23_000_000)
        o, out = h.judge(state(10, 2, 5, 4, 1), window)
        self.assertEqual([], self.kinds(o), out)
        # A window that closed before run 3's transitions excuses nothing after them.
        early = [(T0 / 1e6 + 2.0 + oracle.NOSTORE_BEFORE, T0 / 1e6 + 3.0 - oracle.NOSTORE_AFTER, "nostore", "")]
        o, out = h.judge(state(10, 2, 5, 4, 1), early)
        self.assertIn("sequence-gap", self.kinds(o), out)

    def test_a_first_run_after_a_window_may_be_a_wake(self):
        """The unit's first runs went while journald stored nothing: the first run the journal shows is a wake."""
        h = History()
        h.pid1(0.0, oracle.STARTING, "lifecycled.service", "aa" * 16).pid1(0.2, oracle.STARTED, "lifecycled.service",
                                                                           "aa" * 16).tracking(0.2)
        h.pid1(10.0, oracle.STARTED, inv=INV3).dispatch(10.0, "wake", INV3, seq=3)
        h.pid1(11.0, oracle.SUCCESS, inv=INV3).dispatch(11.0, "sleep", INV3, seq=4)
        window = [(T0 / 1e6 + 2.0 + oracle.NOSTORE_BEFORE, T0 / 1e6 + 5.0 - oracle.NOSTORE_AFTER, "nostore", "")]
        o, out = h.judge(state(4, 1, 2, 2, 0), window)
        self.assertEqual([], self.kinds(o), out)
        o, out = h.judge(state(4, 1, 2, 2, 0))
        self.assertIn("begin-kind", self.kinds(o), out)

    def test_a_run_half_seen_in_a_window_is_judged_by_what_is_seen(self):
        h, window, inv4 = self.nostore_history()
        # PID 1's "Started" of run 4 not stored, its failure (a warning) is; the crash notice (a warning) too.
        h.pid1(21.0, oracle.FAILURE, inv=inv4, UNIT_RESULT="exit-code")
        h.dispatch(21.0, "crash", inv4, seq=8, unit_result="exit-code")
        o, out = h.judge(state(10, 2, 5, 4, 1), window)
        self.assertEqual([], self.kinds(o), out)
        self.assertIn("runs begun unseen 1", out)
        # A sleep for a failure PID 1 logged is still false; and outside a window the run is invented.
        h.lines[-1]["LIFECYCLE_EVENT"] = "sleep"
        o, out = h.judge(state(10, 2, 5, 5, 1), window)
        self.assertIn("false-sleep", self.kinds(o), out)
        o, out = h.judge(state(10, 2, 5, 5, 1))
        self.assertIn("invented", self.kinds(o), out)

    def test_a_unit_seen_live_is_counted_whatever_the_journal_stored(self):
        """lc-chaos-nostore.service ran three times in the window: no entry of it in the journal, but its state
        file must count each run."""
        h = good()
        live = "lc-chaos-nostore.service"
        lines = []
        for i, inv in enumerate(("b1" * 16, "b2" * 16, "b3" * 16)):
            lines.append("%s start %s %.6f" % (inv, live, T0 / 1e6 + 20 + i))
            lines.append("%s stop %s %.6f success" % (inv, live, T0 / 1e6 + 20.2 + i))
        window = [(T0 / 1e6 + 19.5 + oracle.NOSTORE_BEFORE, T0 / 1e6 + 23.0 - oracle.NOSTORE_AFTER, "nostore", "")]
        states = dict(GOOD_STATE, **state(6, 1, 3, 3, 0, unit=live))
        o, out = h.judge(states, window, seen_live=lines)
        self.assertEqual([], self.kinds(o), out)
        # A run not counted (or counted twice): caught.
        for wrong in (state(4, 1, 2, 2, 0, unit=live), state(8, 1, 4, 4, 0, unit=live)):
            o, out = h.judge(dict(GOOD_STATE, **wrong), window, seen_live=lines)
            self.assertEqual(["counters"], self.kinds(o), out)
            self.assertIn("runs the unit recorded", out)

    def test_too_many_waiting_dispatches_are_caught(self):
        st = state(6, 2, 3, 2, 1)
        st[UNIT]["pending_dispatches"] = [{}] * (oracle.PENDING_BOUND + 1)
        o, out = good().judge(st)
        self.assertEqual(["counters"], self.kinds(o), out)
        self.assertIn("waiting for the journal", out)

    # --- manual-only units ------------------------------------------------------------------------------------------

    JOB = "lc-chaos-job-a.service"

    def manual_history(self):
        """job-a: launch #1, sleep #2 accepted; a wake refused (lifecycled down); a launch whose outcome is unknown
        (#3, in the journal); a custom event accepted as #4."""
        h = good()
        calls = []

        def call(at, event, outcome, seq=None):
            calls.append("%.6f %.6f %s %s %s %s exit 0: -" % (T0 / 1e6 + at, T0 / 1e6 + at + 0.1, self.JOB, event,
                                                              outcome, seq if seq is not None else "-"))

        call(20.0, "launch", "ok", 1)
        h.dispatch(20.05, "launch", "", unit=self.JOB)
        call(21.0, "sleep", "ok", 2)
        h.dispatch(21.05, "sleep", "", unit=self.JOB)
        call(22.0, "wake", "refused")
        call(23.0, "launch", "unknown")
        h.dispatch(23.05, "launch", "", unit=self.JOB)
        call(24.0, "tick", "ok", 4)
        h.dispatch(24.05, "tick", "", unit=self.JOB)
        return h, calls

    def test_manual_events_accepted_and_unknown_pass(self):
        h, calls = self.manual_history()
        o, out = h.judge(dict(GOOD_STATE, **state(4, 2, 2, 1, 0, unit=self.JOB)), manual=calls)
        self.assertEqual([], self.kinds(o), out)
        self.assertIn("manual events: 3 ok, 1 refused, 1 unknown", out)

    def test_a_manual_number_given_again_is_caught(self):
        """After a restart the archived record was not brought back: the next launch is #1 again."""
        h, calls = self.manual_history()
        calls.append("%.6f %.6f %s launch ok 1 exit 0: -" % (T0 / 1e6 + 30, T0 / 1e6 + 30.1, self.JOB))
        h.dispatch(30.05, "launch", "", unit=self.JOB, seq=1)
        o, out = h.judge(dict(GOOD_STATE, **state(1, 1, 1, 0, 0, unit=self.JOB)), manual=calls)
        self.assertIn("manual-sequence", self.kinds(o), out)
        self.assertIn("duplicate-sequence", self.kinds(o), out)
        self.assertIn("counters", self.kinds(o), out)

    def test_a_lost_or_invented_manual_event_is_caught(self):
        h, calls = self.manual_history()
        h.lines = [e for e in h.lines if e.get("LIFECYCLE_SEQUENCE") != "2" or e.get("LIFECYCLE_UNIT") != self.JOB]
        o, out = h.judge(dict(GOOD_STATE, **state(4, 2, 2, 1, 0, unit=self.JOB)), manual=calls)
        self.assertIn("lost-manual", self.kinds(o), out)
        # The refused wake recorded after all: a dispatch no accepted or unknown call explains.
        h, calls = self.manual_history()
        h.dispatch(24.5, "wake", "", unit=self.JOB)
        o, out = h.judge(dict(GOOD_STATE, **state(5, 2, 3, 1, 0, unit=self.JOB)), manual=calls)
        self.assertEqual(["invented"], self.kinds(o), out)
        self.assertIn("wake seq 5", out)

    # --- counters never go back -------------------------------------------------------------------------------------

    def test_counters_that_go_back_are_caught(self):
        samples = [(12.5, UNIT, [3, 1, 2, 1, 0]), (14.5, UNIT, [5, 2, 3, 1, 1])]
        o, out = good().judge(GOOD_STATE, samples=samples)
        self.assertEqual([], self.kinds(o), out)
        o, out = good().judge(GOOD_STATE, samples=samples + [(13.5, UNIT, [1, 1, 1, 0, 0])])
        self.assertEqual(["went-back"], self.kinds(o), out)
        self.assertIn("sequence, count_total_wake, count_total_sleep went back", out)
        # The final record below the last sample.
        o, out = good().judge(GOOD_STATE, samples=samples + [(16.0, UNIT, [7, 2, 3, 2, 1])])
        self.assertEqual(["went-back"], self.kinds(o), out)

    def test_a_record_in_the_archive_is_read(self):
        h, calls = self.manual_history()
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "archive"))
            with open(os.path.join(d, "archive", "3f.jsonl"), "w") as f:
                f.write(json.dumps(state(2, 1, 1, 1, 0, unit=self.JOB)[self.JOB]) + "\n")
                f.write(json.dumps(state(4, 2, 2, 1, 0, unit=self.JOB)[self.JOB]) + "\n")
            states = oracle.load_states(os.path.join(d, "units"), os.path.join(d, "archive"))
        o, out = h.judge(dict(GOOD_STATE, **states), manual=calls)
        self.assertEqual([], self.kinds(o), out)

    # --- a history before lifecycled's first start -------------------------------------------------------------------

    def history_before_first_start(self, reconciled):
        h = History()
        hist = "lc-chaos-hist.service"
        for i in range(3):
            inv = "%02d" % (i + 50) * 16
            h.pid1(1.0 + i, oracle.STARTED, hist, inv).pid1(1.5 + i, oracle.SUCCESS, hist, inv)
        h.pid1(10.0, oracle.STARTING, "lifecycled.service", "aa" * 16)
        extra = {"reconciled": "true"} if reconciled else {}
        for i in range(3):
            inv = "%02d" % (i + 50) * 16
            h.dispatch(10.1, "launch" if i == 0 else "wake", inv, when=1.0 + i, unit=hist, **extra)
            h.dispatch(10.1, "sleep", inv, when=1.5 + i, unit=hist, **extra)
        h.pid1(10.5, oracle.STARTED, "lifecycled.service", "aa" * 16).tracking(10.5)
        return h.judge(state(6, 1, 3, 3, 0, unit=hist))

    def test_a_history_before_the_first_start_must_be_reconciled(self):
        o, out = self.history_before_first_start(reconciled=True)
        self.assertEqual([], self.kinds(o), out)
        o, out = self.history_before_first_start(reconciled=False)
        self.assertEqual(["not-reconciled"], self.kinds(o), out)
        self.assertEqual(6, len(o.violations), out)
        self.assertIn("lifecycled down (no process) from PID 1's journal start", out)

    def test_a_journal_without_lifecycled_start_is_no_evidence(self):
        h = good()
        h.lines = [e for e in h.lines if e.get("MESSAGE_ID") != oracle.TRACKING]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "j.json")
            with open(path, "w") as f:
                f.write("".join(json.dumps(e) + "\n" for e in h.lines))
            states = os.path.join(d, "states")
            os.mkdir(states)
            saved = sys.stdout
            sys.stdout = io.StringIO()
            try:
                rc = oracle.main(["--journal", path, "--states", states])
            finally:
                sys.stdout = saved
        self.assertEqual(2, rc)


if __name__ == "__main__":
    unittest.main()
