#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Tests of the chaos oracle on tiny handcrafted journals: a correct history passes, and each kind of wrong history
(a lost run, a duplicate begin, a false sleep, a sequence gap, ...) is caught under its own class. The chaos suite
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

    def judge(self, states, disturbances=()):
        with tempfile.TemporaryDirectory() as d:
            journal = os.path.join(d, "journal.json")
            with open(journal, "w") as f:
                for e in self.lines:
                    f.write(json.dumps(e) + "\n")
            o = oracle.Oracle(oracle.load_journal(journal), states, re.compile(r"lc-chaos-.*"),
                              list(disturbances), 500_000)
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
