#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The chaos suite's oracle: PID 1's own journal entries are the truth, lifecycled's dispatches and state files
are checked against them.

Usage:
  chaos_oracle.py --journal FILE --states DIR [--archive DIR] [--units REGEX] [--disturbances FILE]
                  [--tolerance SECONDS] [--self-logged FILE]... [--seen-live FILE]... [--manual FILE] [--samples FILE]

  --journal       `journalctl -o json` output holding at least PID 1's entries (_PID=1) and lifecycled's
                  (SYSLOG_IDENTIFIER=lifecycled), oldest first
  --states        a copy of lifecycled's units directory (UNIT.json or PREFIX~HASH.json state files, by the unit
                  each names)
  --archive       a copy of lifecycled's archive directory (NN.jsonl): a unit without a state file is judged by its
                  newest (last) record there
  --units         the watched units to check (a Python regex matched against the whole name), default ^lc-chaos-.*
  --disturbances  the chaos suite's disturbance log: "START END KIND DETAIL..." per line, START and END in seconds
                  since the epoch (used to find quiet times and to annotate violations)
  --tolerance     how far a dispatch's LIFECYCLE_TIME may be from PID 1's entry, default 0.5 s
  --self-logged   the runs of units PID 1 logs nothing of (LogLevelMax=notice), as each unit recorded them itself:
                  lines "INVOCATION_ID start UNIT SECONDS" (written at ExecStart=) and "INVOCATION_ID stop UNIT
                  SECONDS SERVICE_RESULT" (at ExecStopPost=), SECONDS since the epoch; may be given more than once.
                  The units named there are judged by these lines alone (see "Units PID 1 logs nothing of")
  --seen-live     the same lines, of units whose every run went while lifecycled was up and listening (the chaos
                  suite runs lc-chaos-nostore.service only then): judged like --self-logged, and their state files
                  must count every run exactly (see "A journal that stores nothing")
  --manual        the chaos suite's manual events: "START END UNIT EVENT OUTCOME SEQUENCE MESSAGE..." per call, START
                  and END in seconds since the epoch, OUTCOME ok (lifectl exited 0 and printed SEQUENCE), refused
                  (nothing recorded) or unknown (a timeout, a lost reply), SEQUENCE "-" unless ok
  --samples       JSON lines {"t": SECONDS, "unit": UNIT, "values": [sequence, launches, wakes, sleeps, crashes]}:
                  the state files as sampled while the chaos ran

Prints every violation (class, unit, InvocationID, expected, found, the relevant journal lines), then a summary;
exits 1 when there is any violation, 2 when the evidence itself is unusable, 0 otherwise.

What is checked (only stdlib, so it runs wherever python3 does):

A run is one InvocationID of a watched unit in PID 1's entries (_PID=1, UNIT=, INVOCATION_ID=). It reached start
when PID 1 logged "Starting" (7d4958e8…) or "Started"/"Finished" (39f53479…) for it; its begin is the first of the
two (a oneshot, a Type=notify or a failing start logs "Starting" when it enters activating; a quick Type=simple start
logs only "Started", right when it becomes active). Its end is the first of "Failed with result" (d9b373ed…,
UNIT_RESULT: a failure) and "Deactivated successfully" (7ad2d189…: a clean end), else "Stopped" (9d1aaa27…: a clean
end); the run's last "Main process exited" (98e32220…, COMMAND=ExecStart) before its end gives EXIT_CODE and
EXIT_STATUS (a control process's exit, e.g. "Condition check process exited", has the same MESSAGE_ID and another
COMMAND: it gives none; with no main process exit only UNIT_RESULT is compared). These are the entries PID 1
writes at the very state change lifecycled reads over D-Bus, so they also anchor LIFECYCLE_TIME.

A start that ExecCondition= skipped is no run: PID 1 (systemd 252) logs "Starting", then "Skipped due to
'exec-condition'" (0e4284a0…, UNIT_RESULT=exec-condition) and the job's "Condition check resulted in … being
skipped" (39f53479…, JOB_RESULT=done). It takes no place among the unit's runs (sequence order, begin kinds,
counters). A check that itself fails (exit status 255) fails the start: a run that began and failed, like any other.

  skipped-start                      no dispatch at all for a start ExecCondition= skipped
  lost-begin / duplicate-begin   (a) every run that reached start has exactly one launch or wake
  lost-end / duplicate-end       (b) every run PID 1 ended has exactly one end dispatch ...
  false-sleep / false-crash          ... of the matching kind: a sleep for a clean end, a crash notice for a failure,
  crash-details                      the notice carrying UNIT_RESULT, EXIT_CODE and EXIT_STATUS as PID 1 logged them
  invented                       (c) no dispatch for a run PID 1 never logged (or never logged a start, or never
                                     ended), none without an InvocationID, no event other than launch/wake/sleep/crash
  duplicate-sequence / sequence-gap / out-of-order
                                 (d) each unit's LIFECYCLE_SEQUENCE values are exactly 1..N, and in sequence order
                                     the dispatches follow the runs: begin of run k, its end, begin of run k+1, ...
  counters                       (e) the state file's sequence and count_total_* equal the dispatches (launch,
                                     launch+wake, sleep, launches that detected a crash) and PID 1's runs
  time                           (f) LIFECYCLE_TIME within the tolerance of the PID 1 entry that marks the transition
  premature                          no dispatch reached the journal before PID 1 logged the transition it stands for
                                     (PID 1 logs a state change before it sends the signal lifecycled hears, so even a
                                     live dispatch comes after; 50 ms of slack)
  begin-kind                         a begin is a launch for the unit's first run, after a failed run and when the
                                     version changed; otherwise a wake (default session_timeout of a day)
  not-reconciled                 (g) a transition PID 1 logged while no lifecycled process existed (after PID 1 logged
                                     the main process's exit and before it logged "Starting" the next one), or while
                                     the bus daemon was down (after dbus.service's exit and before its "Started"),
                                     or before lifecycled's first "Starting" in the export (the history its first
                                     start rebuilds from PID 1's journal), is marked LIFECYCLE_RECONCILED=true.
                                     Only these windows are asserted: between a new process's "Starting" and READY
                                     either marking is right.
  falsely-reconciled                 a transition in a quiet time (lifecycled up for 2 s, no disturbance from 0.5 s
                                     before its start to 2 s after its end) is not marked reconciled
  evidence                       the journal must reach back to lifecycled's first "Tracking" entry, and hold PID 1's
                                     entries at all; otherwise nothing can be judged

Units PID 1 logs nothing of (--self-logged): PID 1's journal has no entry of their runs, and lifecycled can know
such a run only from systemd's signals and its listing of units, while it listens: a run that began and ended while
no lifecycled process existed, or while it could not hear systemd, left no trace anywhere (docs/journal.md, "Runs
that are not runs, ends that cannot be known"). So a run is demanded only when it was going at a quiet time: some
instant between its "start" line and its "stop" line (or the end of the evidence) at which lifecycled had been
ready for 2 s (PID 1's "Started" of lifecycled.service, as for falsely-reconciled) and no disturbance was on from
0.5 s before its start to 2 s after its end. At such an instant lifecycled holds the unit's current InvocationID
(from the signal of its start, or from the listing its start or last resync took), so that run has its begin. A
run without a "start" line (stopped before its ExecStart= wrote) is never demanded. For these units:
  lost-begin                         a run going at a quiet time has one launch or wake
  duplicate-begin / duplicate-end    no run has more than one begin, or more than one end
  lost-end                           a run that has a begin and recorded its stop has one end: a sleep, known or
                                     LIFECYCLE_RUN_END=unknown (lifecycled may not know when it ended)
  false-crash                        never a crash notice for a run that recorded SERVICE_RESULT=success; a run PID 1
                                     failed ("Failed with result", a warning LogLevelMax=notice lets through) is
                                     failed, with or without its stop line (an ExecStopPost= that could not run,
                                     status 219/CGROUP, writes none)
  invented                           no dispatch for an InvocationID the unit never recorded, no end without the
                                     run's begin, no end for a run that recorded no stop
  sequence checks (d)                as for every unit, in the order the runs recorded themselves
  counters (e)                       the state file against the dispatches only (not against runs: some runs
                                     cannot be known)
  begin-kind                         the first run begun is a launch, the others wakes (no run failed; an unknown end
                                     is no crash), unless a version changed
The time, premature and reconciled checks are skipped for them: there is no PID 1 entry to anchor a dispatch to.

A journal that stores nothing (a "nostore" line in --disturbances: journald restarted with MaxLevelStore=notice, then
without): from 2 s before START (entries may still wait in journald's socket) to 0.5 s after END, journald stores
none of PID 1's info entries ("Starting", "Started", "Deactivated successfully", "Stopped") and none of lifecycled's
dispatches but crash notices (warnings); PID 1's "Failed with result" (a warning) and a failed main process's exit
(a notice) are stored. lifecycled counts on (docs/journal.md, "A journal that stores nothing"): the counters are the
record's, at most 16 sent dispatches of a unit wait for the journal, older ones are given up. So, and only then:
  lost-begin / lost-end              not demanded when the dispatch may have gone out in a window: one closes after
                                     the transition and opens before lifecycled sent its next stored dispatch of the
                                     unit (of a later transition; a unit's dispatches go out in order), and within
                                     30 s of the transition
  invented                           a run PID 1's journal shows no begin of may have dispatches if a window opened
                                     before its first stored entry (at most one begin, at most one end, the end a
                                     crash exactly when PID 1's failure is stored); an end of a run whose end is
                                     not stored is right if a window closed after its last stored entry, and only a
                                     sleep (a failure would be stored); dispatches of a run PID 1's journal never
                                     shows are right if each has its LIFECYCLE_TIME in a window (one begin, one end)
  sequence-gap                       a missing number is excused when a window overlaps the time between the first
                                     sending of the stored numbers around it
  false-crash                        a crash notice dated within a window for a run whose only end in the journal is
                                     a restart's "Stopped" (no "Deactivated successfully"): PID 1's failure entries
                                     are lost while journald restarts at a window's edge (seed 217291); the end's
                                     time is then not judged
  begin-kind                         not judged across a window (a run between may be unseen)
  counters                           for a unit any of this excused: at least what the journal shows, not equal
Each excuse is counted in the summary. None of this makes the window a free pass: numbers given twice, duplicate
begins and ends, a crash notice for a clean run, gaps outside a window, counters below the journal's all still fail,
and two checks need no journal at all:
  counters (--seen-live)             lc-chaos-nostore.service runs only inside windows, while lifecycled is up and
                                     no other disturbance is on, and records each run itself: its state file (or
                                     archived record) must count exactly those runs (wakes = runs begun, sleeps =
                                     clean stops, no crash, sequence = both), whatever the journal stored
  counters (pending)                 no state file keeps more than 16 dispatches waiting for the journal once
                                     settled (chaos.sh waits up to 30 s for it: a journald stall just before the
                                     settle leaves the stall's dispatches waiting until the journal confirms them)

Manual-only units (--manual; autotracking off, systemd never lists them, so lifecycled archives their record after a
restart and their next event must bring it back):
  manual-sequence                    the numbers lifectl was told, in call order, strictly increase: never a number
                                     given again (an archived record not brought back starts again at 1)
  lost-manual                        every accepted event (exit 0) has its dispatch with that number and event
  manual-mismatch                    ... of the event accepted with it
  invented                           every dispatch is an accepted event's, or one whose outcome is unknown, of the
                                     same event, made between the accepted events numbered around it (each unknown
                                     call explains one dispatch at most); a refused call explains none
  sequence checks (d), counters (e)  as for every unit, against the dispatches (a custom event takes a number too)
Their dispatches carry no InvocationID and belong to no run: the run checks do not apply.

Counters never go back (--samples):
  went-back                          in each unit's samples, in time order, no sequence or count_total_* is smaller
                                     than in the sample before; the final state file (or archived record) is at
                                     least the last sample
"""

import argparse
import collections
import datetime
import json
import os
import re
import sys

# PID 1's entries about a run (docs/systemd.md, "PID 1's journal entries about a run").
STARTING = "7d4958e842da4a758f6c1cdc7b36dcc5"
STARTED = "39f53479d3a045ac8e11786248231fbf"
START_FAILED = "be02cf6855d2428ba40df7e9d022f03d"
STOPPING = "de5b426a63be47a7b6ac3eaac82e2f6f"
STOPPED = "9d1aaa27d60140bd96365438aad20286"
SUCCESS = "7ad2d189f7e94e70a38c781354912448"
FAILURE = "d9b373ed55a64feb8242e02dbe79a49c"
PROCESS_EXIT = "98e322203f7a4ed290d09fe03c09fe15"
RESTART_SCHEDULED = "5eb03494b6584870a536b337290809b3"
SKIPPED = "0e4284a0caca4bfc81c0bb6786972673"
PID1_NAMES = {
    STARTING: "Starting", STARTED: "Started", START_FAILED: "Failed-to-start", STOPPING: "Stopping",
    STOPPED: "Stopped", SUCCESS: "Deactivated-successfully", FAILURE: "Failed-with-result",
    PROCESS_EXIT: "Main-process-exited", RESTART_SCHEDULED: "Restart-scheduled", SKIPPED: "Skipped",
}
# lifecycled's own entry each time it starts tracking (docs/journal.md).
TRACKING = "081be4c15c3f4ca9acd5f51507046ad0"
BEGINS = ("launch", "wake")
ENDS = ("sleep", "crash")
# Quiet time: lifecycled up this long, and this far from any disturbance (seconds).
QUIET_AFTER_UP = 2.0
QUIET_BEFORE = 0.5
QUIET_AFTER = 2.0
# How much earlier than PID 1's entry a dispatch may reach the journal (clock reads of two processes).
PREMATURE_SLACK_US = 50_000
# A window in which journald stored nothing below notice (the nostore disturbance, START..END of its line): entries
# sent up to this long before START may still wait in journald's socket for the journald that stores nothing, and
# END is logged once the journald that stores again runs (seconds).
NOSTORE_BEFORE = 2.0
NOSTORE_AFTER = 0.5
# How long after a transition lifecycled may still send its dispatch (a backlog after a stall or a restart), for a
# window to excuse the dispatch's absence (seconds).
NOSTORE_SEND_LAG = 30.0
# How many sent dispatches of one unit may wait for the journal to show them (docs/journal.md, "A journal that
# stores nothing").
PENDING_BOUND = 16
COUNTER_FIELDS = ("sequence", "count_total_launch", "count_total_wake", "count_total_sleep", "count_total_crash")


def field(entry, name):
    """A journal field as a string: journalctl prints repeated fields as arrays and binary ones as byte arrays."""
    value = entry.get(name)
    if value is None:
        return None
    if isinstance(value, list):
        if value and all(isinstance(b, int) for b in value):
            return bytes(value).decode("utf-8", "replace")
        value = value[0] if value else None
        if isinstance(value, list):
            return bytes(value).decode("utf-8", "replace")
    return value if value is None else str(value)


def fmt(us):
    if us is None:
        return "-"
    t = datetime.datetime.fromtimestamp(us / 1e6, datetime.timezone.utc)
    return t.strftime("%H:%M:%S.") + "%03d" % (t.microsecond // 1000)


def parse_lifecycle_time(text):
    """LIFECYCLE_TIME (RFC 3339, UTC, milliseconds) in microseconds since the epoch, None when unreadable."""
    if not text:
        return None
    try:
        t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return int(round(t.timestamp() * 1e6))


class Entry:
    """One journal entry, with its position in the export (the journal's own order)."""

    def __init__(self, pos, raw):
        self.pos = pos
        self.raw = raw
        self.id = field(raw, "MESSAGE_ID") or ""
        self.pid = field(raw, "_PID")
        self.message = field(raw, "MESSAGE") or ""
        # When the sender logged it (PID 1 sends it), else when journald received it: under load journald may
        # take its time, and the transition happened when PID 1 logged it.
        ts = field(raw, "_SOURCE_REALTIME_TIMESTAMP") or field(raw, "__REALTIME_TIMESTAMP")
        self.ts = int(ts) if ts and ts.isdigit() else None

    def get(self, name):
        return field(self.raw, name)


class Run:
    def __init__(self, unit, inv):
        self.unit = unit
        self.inv = inv
        self.entries = []
        self.begin = None
        self.end = None
        self.end_kind = None  # "sleep" or "crash"
        self.end_time_unknown = False  # a failure whose entries a journald restart lost: only its "Stopped" is there
        self.exit = None  # the last "Main process exited" before the end
        self.index = None  # position among the unit's runs that reached start
        self.skipped = False  # ExecCondition= skipped the start: no run

    def finish(self):
        self.skipped = any(e.id == SKIPPED for e in self.entries)
        for e in self.entries:
            if self.begin is None and e.id in (STARTING, STARTED):
                self.begin = e
            if self.end is None and e.id in (SUCCESS, FAILURE):
                self.end = e
                self.end_kind = "crash" if e.id == FAILURE else "sleep"
        if self.end is None:
            stopped = [e for e in self.entries if e.id == STOPPED]
            if stopped:
                self.end, self.end_kind = stopped[0], "sleep"
        if self.end is not None:
            # The main process's exit: PID 1 logs a control process's (ExecCondition=, ExecStartPre=, ...) with the
            # same MESSAGE_ID and another COMMAND.
            exits = [e for e in self.entries if e.id == PROCESS_EXIT and e.pos <= self.end.pos
                     and e.get("COMMAND") in (None, "ExecStart")]
            self.exit = exits[-1] if exits else None


class SelfRun:
    """A run of a unit PID 1 logs nothing of, as the unit recorded it itself (--self-logged)."""

    def __init__(self, unit, inv):
        self.unit = unit
        self.inv = inv
        self.start = None  # µs since the epoch: the run's ExecStart= began
        self.stop = None  # µs since the epoch: its ExecStopPost= ran, the run is over
        self.result = None  # $SERVICE_RESULT at ExecStopPost=, or PID 1's UNIT_RESULT of a failure
        self.failed_by_pid1 = False  # PID 1 logged "Failed with result" for it (its warnings pass LogLevelMax=notice)
        self.failed_at = None  # µs: when, for a run that recorded nothing itself
        self.lines = []
        self.index = None  # position among the unit's recorded runs


# The start of the export, as the opening of a window.
JOURNAL_START = Entry(-1, {})


class Dispatch:
    def __init__(self, entry):
        self.entry = entry
        self.unit = entry.get("LIFECYCLE_UNIT") or ""
        self.event = entry.get("LIFECYCLE_EVENT") or ""
        seq = entry.get("LIFECYCLE_SEQUENCE") or ""
        self.seq = int(seq) if seq.isdigit() else None
        self.inv = entry.get("LIFECYCLE_INVOCATION_ID") or ""
        self.time_text = entry.get("LIFECYCLE_TIME") or ""
        self.time = parse_lifecycle_time(self.time_text)
        self.reconciled = entry.get("LIFECYCLE_RECONCILED") == "true"
        self.version = entry.get("LIFECYCLE_VERSION")
        self.crash_detected = entry.get("LIFECYCLE_DIDDETECTCRASH") == "true"

    def line(self):
        return "dispatch seq=%s %-6s inv=%s time=%s%s pid=%s journal=%s" % (
            self.seq, self.event, self.inv or "-", self.time_text or "-",
            " reconciled" if self.reconciled else "", self.entry.pid, fmt(self.entry.ts))


def pid1_line(e):
    extra = []
    for name in ("JOB_TYPE", "JOB_RESULT", "UNIT_RESULT", "COMMAND", "EXIT_CODE", "EXIT_STATUS", "N_RESTARTS"):
        v = e.get(name)
        if v:
            extra.append("%s=%s" % (name, v))
    return "PID 1 %s %-24s %s%s" % (fmt(e.ts), PID1_NAMES.get(e.id, e.id[:8]), e.message,
                                    (" [" + " ".join(extra) + "]") if extra else "")


class Oracle:
    def __init__(self, entries, states, unit_re, disturbances, tolerance_us, self_logged=(), seen_live=(),
                 manual=(), samples=()):
        self.entries = entries
        # (inv, "start" or "stop", unit, µs, result or None, line); the --seen-live units' lines too.
        self.self_logged = list(self_logged) + list(seen_live)
        self.quiet_units = {line[2] for line in self.self_logged}
        self.live_units = {line[2] for line in seen_live}
        self.manual = list(manual)  # dicts: start, end (µs), unit, event, outcome, seq, line; in call order
        self.manual_units = {c["unit"] for c in self.manual}
        self.samples = list(samples)  # (µs, unit, [sequence, launch, wake, sleep, crash])
        # Windows (µs) in which journald stored nothing below notice.
        self.nostore = [((start - NOSTORE_BEFORE) * 1e6, (end + NOSTORE_AFTER) * 1e6)
                        for start, end, kind, _detail in disturbances if kind == "nostore"]
        self.unstored_units = set()  # units some of whose entries may be missing: counters bounded below only
        self.excused = collections.Counter()  # what a nostore window excused, for the summary
        self.states = states
        self.unit_re = unit_re
        self.disturbances = disturbances
        self.tolerance = tolerance_us
        self.violations = []
        self.notes = []

    # --- evidence ------------------------------------------------------------------------------------------------

    def collect(self):
        self.runs = collections.OrderedDict()  # (unit, inv) -> Run, in the order of their first entry
        self.dispatches = []
        self.tracking = []
        self.lifecycled_pid1 = []
        self.dbus_pid1 = []
        # PID 1 still logs a quiet unit's failures: LogLevelMax=notice lets its warnings through.
        self.quiet_failures = {}  # (unit, inv) -> UNIT_RESULT
        for e in self.entries:
            if e.pid == "1":
                unit = e.get("UNIT")
                inv = e.get("INVOCATION_ID")
                if unit in self.quiet_units and inv and e.id == FAILURE:
                    self.quiet_failures[(unit, inv)] = (e.get("UNIT_RESULT"), e.ts)
                if unit == "lifecycled.service":
                    self.lifecycled_pid1.append(e)
                elif unit == "dbus.service":
                    self.dbus_pid1.append(e)
                if unit and inv and self.unit_re.fullmatch(unit) and unit not in self.quiet_units:
                    run = self.runs.get((unit, inv))
                    if run is None:
                        run = self.runs[(unit, inv)] = Run(unit, inv)
                    run.entries.append(e)
            elif e.get("SYSLOG_IDENTIFIER") == "lifecycled" and e.get("_UID") in (None, "0"):
                if e.get("LIFECYCLE_EVENT") is not None:
                    d = Dispatch(e)
                    if self.unit_re.fullmatch(d.unit):
                        self.dispatches.append(d)
                elif e.id == TRACKING:
                    self.tracking.append(e)
        self.by_unit = collections.defaultdict(list)
        for run in self.runs.values():
            run.finish()
        # A start ExecCondition= skipped is no run: it takes no place among the unit's runs.
        started = [r for r in self.runs.values() if r.begin is not None and not r.skipped]
        started.sort(key=lambda r: r.begin.pos)
        for run in started:
            run.index = len(self.by_unit[run.unit])
            self.by_unit[run.unit].append(run)
        # The runs of the units PID 1 logs nothing of, in the order they recorded themselves.
        self.self_runs = collections.OrderedDict()
        self.self_by_unit = collections.defaultdict(list)
        for inv, what, unit, us, result, line in self.self_logged:
            if not self.unit_re.fullmatch(unit):
                continue
            run = self.self_runs.get((unit, inv))
            if run is None:
                run = self.self_runs[(unit, inv)] = SelfRun(unit, inv)
                run.index = len(self.self_by_unit[unit])
                self.self_by_unit[unit].append(run)
            run.lines.append("self-logged: " + line)
            if what == "start" and run.start is None:
                run.start = us
            elif what == "stop" and run.stop is None:
                run.stop, run.result = us, result
        # A run whose ExecStopPost= could not run (e.g. status 219/CGROUP) recorded no stop, and one whose ExecStart=
        # could not even run recorded nothing, yet systemd failed both: such a run is failed, in its place by time.
        for (unit, inv), (result, ts) in self.quiet_failures.items():
            if not self.unit_re.fullmatch(unit):
                continue
            run = self.self_runs.get((unit, inv))
            if run is None:
                run = self.self_runs[(unit, inv)] = SelfRun(unit, inv)
                run.failed_at = ts
                self.self_by_unit[unit].append(run)
            if run.result in (None, "success"):
                run.result = result or "failed"
                run.failed_by_pid1 = True
                run.lines.append("PID 1: failed with result '%s'" % run.result)
        for runs in self.self_by_unit.values():
            runs.sort(key=lambda r: next(t for t in (r.start, r.stop, r.failed_at, 0) if t is not None))
            for index, run in enumerate(runs):
                run.index = index
        self.disp_by_run = collections.defaultdict(list)
        self.disp_by_unit = collections.defaultdict(list)
        for d in self.dispatches:
            self.disp_by_run[(d.unit, d.inv)].append(d)
            self.disp_by_unit[d.unit].append(d)

    def evidence_ok(self):
        if not self.tracking:
            self.violate("evidence", "-", "-", "lifecycled's first 'Tracking' entry (MESSAGE_ID=%s) in the journal"
                         % TRACKING, "none: the export is cut, or lifecycled never started", [])
            return False
        if not any(e.pid == "1" for e in self.entries):
            self.violate("evidence", "-", "-", "PID 1's entries in the export", "none", [])
            return False
        return True

    # --- windows -------------------------------------------------------------------------------------------------

    def windows(self, pid1_entries, opens, closes):
        """Stretches of PID 1's log (as entry positions) from an entry in `opens` to the next in `closes`."""
        out, start = [], None
        for e in pid1_entries:
            if start is None and e.id in opens:
                start = e
            elif start is not None and e.id in closes:
                out.append((start, e))
                start = None
        if start is not None:
            out.append((start, None))
        return out

    def compute_windows(self):
        gone = (PROCESS_EXIT, SUCCESS, FAILURE)
        # No lifecycled process: from PID 1 logging the main process's exit (or the unit's clean or failed end) to
        # PID 1 logging the next start of it.
        self.down = self.windows(self.lifecycled_pid1, gone, (STARTING, STARTED))
        # Before lifecycled's first start (the history its first start rebuilds) no process existed either.
        first = next((e for e in self.lifecycled_pid1 if e.id in gone + (STARTING, STARTED)), None)
        if first is not None and first.id in (STARTING, STARTED):
            self.down.insert(0, (JOURNAL_START, first))
        # The bus daemon gone: lifecycled cannot hear systemd until it is back.
        self.bus_down = self.windows(self.dbus_pid1, gone, (STARTED,))
        # lifecycled ready (PID 1 logs "Started" at READY=1) to the next exit.
        self.up = self.windows(self.lifecycled_pid1, (STARTED,), gone)

    def in_window(self, e, windows):
        for start, end in windows:
            if start.pos < e.pos and (end is None or e.pos < end.pos):
                return (start, end)
        return None

    # --- a journal that stored nothing below notice ---------------------------------------------------------------

    def excuse(self, unit, what):
        self.unstored_units.add(unit)
        self.excused[what] += 1
        return True

    def next_sent(self, unit, after_us):
        """When lifecycled sent its first stored dispatch of `unit` for a later transition than one at after_us
        (LIFECYCLE_TIME past it by more than the tolerance), None if it sent none: a unit's dispatches go out in
        order, so that transition's dispatch went out before."""
        best = None
        for d in self.disp_by_unit.get(unit, []):
            if d.time is not None and d.time > after_us + self.tolerance and d.entry.ts is not None:
                best = d.entry.ts if best is None else min(best, d.entry.ts)
        return best

    def dispatch_may_be_unstored(self, unit, anchor_us, what):
        """Whether the dispatch of a transition at anchor_us may have gone out while journald stored nothing below
        notice: a window closes after the transition and opens before the unit's next stored dispatch went out, and
        within NOSTORE_SEND_LAG s of the transition."""
        if anchor_us is None or not self.nostore:
            return False
        limit = self.next_sent(unit, anchor_us)
        lag = anchor_us + NOSTORE_SEND_LAG * 1e6
        limit = lag if limit is None else min(limit, lag)
        if any(anchor_us <= we and ws <= limit for ws, we in self.nostore):
            return self.excuse(unit, what)
        return False

    def in_nostore(self, us, slack=0):
        return us is not None and any(ws - slack <= us <= we + slack for ws, we in self.nostore)

    def nostore_between(self, a_us, b_us):
        return a_us is not None and b_us is not None and any(ws <= b_us and a_us <= we for ws, we in self.nostore)

    def nostore_lines(self, *times):
        out = []
        for ws, we in self.nostore:
            if any(t is not None and ws - 5e6 <= t <= we + 5e6 for t in times):
                out.append("journald stored nothing below notice from %s to %s (with slack)" % (fmt(ws), fmt(we)))
        return out

    def quiet(self, e):
        if e.ts is None:
            return False
        if not any(s.pos < e.pos and (end is None or e.pos < end.pos) and e.ts - s.ts >= QUIET_AFTER_UP * 1e6
                   for s, end in self.up):
            return False
        t = e.ts / 1e6
        for start, end, _kind, _detail in self.disturbances:
            if start - QUIET_BEFORE <= t <= end + QUIET_AFTER:
                return False
        return True

    def quiet_span(self, a, b):
        """Whether some instant from a to b (µs since the epoch; b None: no end) is quiet: lifecycled ready for
        QUIET_AFTER_UP s by then, and no disturbance from QUIET_BEFORE s before its start to QUIET_AFTER s after
        its end. The same rule as quiet(), by time instead of by PID 1's entries."""
        inf = float("inf")
        b = inf if b is None else b
        segments = []
        for s, end in self.up:
            if s.ts is None:
                continue
            lo, hi = max(a, s.ts + QUIET_AFTER_UP * 1e6), min(b, inf if end is None or end.ts is None else end.ts)
            if lo <= hi:
                segments.append((lo, hi))
        for start, end, _kind, _detail in self.disturbances:
            cut_lo, cut_hi = (start - QUIET_BEFORE) * 1e6, (end + QUIET_AFTER) * 1e6
            kept = []
            for lo, hi in segments:
                if cut_hi < lo or hi < cut_lo:
                    kept.append((lo, hi))
                    continue
                if lo < cut_lo:
                    kept.append((lo, cut_lo))
                if cut_hi < hi:
                    kept.append((cut_hi, hi))
            segments = kept
        return bool(segments)

    def near_disturbances(self, ts):
        if ts is None:
            return []
        t = ts / 1e6
        out = []
        for start, end, kind, detail in self.disturbances:
            if start - 3 <= t <= end + 3:
                out.append("disturbance %s-%s %s %s (transition %+.3f s from its start)"
                           % (fmt(start * 1e6), fmt(end * 1e6), kind, detail, t - start))
        return out

    def window_lines(self, e):
        lines = []
        if e is None:
            return lines
        w = self.in_window(e, self.down)
        if w:
            lines.append("lifecycled down (no process) from PID 1's %s at %s to its %s at %s" % (
                PID1_NAMES.get(w[0].id, "journal start"), fmt(w[0].ts), PID1_NAMES.get(w[1].id) if w[1] else "end",
                fmt(w[1].ts) if w[1] else "-"))
        w = self.in_window(e, self.bus_down)
        if w:
            lines.append("dbus.service down from %s to %s" % (fmt(w[0].ts), fmt(w[1].ts) if w[1] else "end"))
        return lines + self.near_disturbances(e.ts)

    # --- reporting -----------------------------------------------------------------------------------------------

    def violate(self, kind, unit, inv, expected, found, lines):
        self.violations.append((kind, unit, inv, expected, found, lines))

    def run_lines(self, run, extra=()):
        lines = []
        for e in run.entries if run else []:
            line = pid1_line(e)
            # PID 1 repeats some warnings (a cgroup it cannot kill inside the container): one line with a count.
            if lines and lines[-1][0] == line:
                lines[-1][1] += 1
            else:
                lines.append([line, 1])
        lines = [line if n == 1 else "%s (x%d)" % (line, n) for line, n in lines]
        if run:
            lines += [d.line() for d in sorted(self.disp_by_run.get((run.unit, run.inv), []),
                                                key=lambda d: (d.seq or 0, d.entry.pos))]
        lines += list(extra)
        if run:
            lines += self.window_lines(run.begin or (run.entries[0] if run.entries else None))
            if run.end is not None and run.end is not run.begin:
                for line in self.window_lines(run.end):
                    if line not in lines:
                        lines.append(line)
        return lines

    # --- checks --------------------------------------------------------------------------------------------------

    def check_runs(self):
        for run in self.runs.values():
            disp = self.disp_by_run.get((run.unit, run.inv), [])
            begins = [d for d in disp if d.event in BEGINS]
            ends = [d for d in disp if d.event in ENDS]
            others = [d for d in disp if d.event not in BEGINS + ENDS]
            if run.skipped:
                if disp:
                    self.violate("skipped-start", run.unit, run.inv,
                                 "no dispatch: ExecCondition= skipped this start (PID 1: Skipped due to '%s')"
                                 % next(e.get("UNIT_RESULT") for e in run.entries if e.id == SKIPPED),
                                 ", ".join("%s seq %s" % (d.event, d.seq) for d in disp), self.run_lines(run))
                continue
            if run.begin is None:
                first = run.entries[0] if run.entries else None
                if disp and first is not None and first.ts is not None and any(
                        ws <= first.ts for ws, _we in self.nostore):
                    # Begun while journald stored nothing below notice: PID 1's "Starting"/"Started" is not in
                    # the journal, what followed is. At most one begin and one end, the end of the right kind.
                    self.excuse(run.unit, "runs begun unseen")
                    self.check_unseen_run(run, begins, ends)
                elif disp:
                    self.violate("invented", run.unit, run.inv, "no dispatch: PID 1 logged no start of this run",
                                 "%d dispatch(es)" % len(disp), self.run_lines(run))
                continue
            if not begins:
                if not self.dispatch_may_be_unstored(run.unit, run.begin.ts, "begins unseen"):
                    self.violate("lost-begin", run.unit, run.inv, "one launch or wake",
                                 "none", self.run_lines(run))
            elif len(begins) > 1:
                self.violate("duplicate-begin", run.unit, run.inv, "one launch or wake",
                             "%d: sequences %s" % (len(begins), ",".join(str(d.seq) for d in begins)),
                             self.run_lines(run))
            if run.end is None:
                if ends and self.end_may_be_unstored(run, ends):
                    pass
                elif ends:
                    self.violate("invented", run.unit, run.inv, "no end dispatch: PID 1 never logged this run's end",
                                 ", ".join("%s seq %s" % (d.event, d.seq) for d in ends), self.run_lines(run))
            else:
                kind = run.end_kind
                match = [d for d in ends if d.event == kind]
                wrong = [d for d in ends if d.event != kind]
                what = ("a sleep (PID 1: %s)" % PID1_NAMES[run.end.id] if kind == "sleep" else
                        "a crash notice (PID 1: Failed with result '%s')" % run.end.get("UNIT_RESULT"))
                if wrong and not self.failure_may_be_unstored(run, wrong):
                    self.violate("false-sleep" if kind == "crash" else "false-crash", run.unit, run.inv, what,
                                 ", ".join("%s seq %s" % (d.event, d.seq) for d in wrong), self.run_lines(run))
                if not ends:
                    if not self.dispatch_may_be_unstored(run.unit, run.end.ts, "ends unseen"):
                        self.violate("lost-end", run.unit, run.inv, what, "none", self.run_lines(run))
                elif len(ends) > 1:
                    self.violate("duplicate-end", run.unit, run.inv, what + ", once",
                                 "%d: %s" % (len(ends), ", ".join("%s seq %s" % (d.event, d.seq) for d in ends)),
                                 self.run_lines(run))
                if kind == "crash":
                    for d in match:
                        self.check_crash_details(run, d)
            for d in others:
                self.violate("invented", run.unit, run.inv, "only launch, wake, sleep and crash",
                             "event '%s' seq %s" % (d.event, d.seq), self.run_lines(run))
            timed = run.end is not None and not run.end_time_unknown
            self.check_times(run, begins, [d for d in ends if d.event == run.end_kind] if timed else [])
            self.check_premature(run, begins, ends if timed else [])
            self.check_reconciled(run, begins, ends)

    def end_may_be_unstored(self, run, ends):
        """A run whose end PID 1 logged while journald stored nothing below notice: its clean end ("Deactivated
        successfully", "Stopped": info) is not in the journal; a failure ("Failed with result": a warning) would be,
        except while journald restarts at a window's edges, when PID 1's entries of any priority can be lost. So one
        sleep is right if a window closed after the run's last entry the journal holds, and one crash notice if it
        was dated within a window."""
        last = run.entries[-1] if run.entries else None
        if last is None or last.ts is None or not any(last.ts <= we for _ws, we in self.nostore):
            return False
        if len(ends) == 1 and (ends[0].event == "sleep" or self.in_nostore(ends[0].time)):
            return self.excuse(run.unit, "ends unseen")
        return False

    def failure_may_be_unstored(self, run, wrong):
        """A run whose journal shows only "Stopped" for its end (a restart's stop job: info), one crash notice for it
        dated within a window storing nothing: PID 1's "Main process exited" and "Failed with result" can be lost while
        journald restarts at a window's edges (PID 1 then logs to the kernel's buffer, which a container cannot read),
        so a failure is as possible as a clean end. Not so once PID 1 logged "Deactivated successfully"."""
        if run.end_kind != "sleep" or run.end.id != STOPPED or any(e.id == SUCCESS for e in run.entries):
            return False
        if len(wrong) == 1 and wrong[0].event == "crash" and self.in_nostore(wrong[0].time):
            # A failure then, whose own entries (and so its time) are not in the journal: counted as one, and not
            # held to the "Stopped" that followed it.
            run.end_kind = "crash"
            run.end_time_unknown = True
            return self.excuse(run.unit, "failures unseen")
        return False

    def check_unseen_run(self, run, begins, ends):
        lines = self.run_lines(run) + self.nostore_lines(run.entries[0].ts)
        if len(begins) > 1:
            self.violate("duplicate-begin", run.unit, run.inv, "one launch or wake (its begin unseen: the journal "
                         "stored nothing)", "%d: sequences %s" % (len(begins), ",".join(str(d.seq) for d in begins)),
                         lines)
        if len(ends) > 1:
            self.violate("duplicate-end", run.unit, run.inv, "at most one end", "%d: %s" % (
                len(ends), ", ".join("%s seq %s" % (d.event, d.seq) for d in ends)), lines)
        wrong = [d for d in ends if run.end is not None and d.event != run.end_kind]
        if wrong and not self.failure_may_be_unstored(run, wrong):
            self.violate("false-sleep" if run.end_kind == "crash" else "false-crash", run.unit, run.inv,
                         "a %s (PID 1: %s)" % (run.end_kind, PID1_NAMES[run.end.id]),
                         ", ".join("%s seq %s" % (d.event, d.seq) for d in ends), lines)
        elif ends and run.end is None and not self.end_may_be_unstored(run, ends):
            self.violate("invented", run.unit, run.inv, "no end dispatch: PID 1 never logged this run's end",
                         ", ".join("%s seq %s" % (d.event, d.seq) for d in ends), lines)

    def self_run_lines(self, run):
        lines = list(run.lines)
        lines += [d.line() for d in sorted(self.disp_by_run.get((run.unit, run.inv), []),
                                            key=lambda d: (d.seq or 0, d.entry.pos))]
        for t in (run.start, run.stop):
            for line in self.near_disturbances(t):
                if line not in lines:
                    lines.append(line)
        return lines

    def check_self_logged_runs(self):
        """The runs of units PID 1 logs nothing of, as they recorded themselves: no time, no premature and no
        reconciled check (no PID 1 entry to anchor them to); a begin demanded only of runs lifecycled could see."""
        for run in self.self_runs.values():
            disp = self.disp_by_run.get((run.unit, run.inv), [])
            begins = [d for d in disp if d.event in BEGINS]
            ends = [d for d in disp if d.event in ENDS]
            lines = self.self_run_lines(run)
            if not begins:
                if run.start is not None and self.quiet_span(run.start, run.stop) and \
                        not self.dispatch_may_be_unstored(run.unit, run.start, "begins unseen"):
                    self.violate("lost-begin", run.unit, run.inv,
                                 "one launch or wake: the run was going at a quiet time (lifecycled ready for %.0f s "
                                 "or more, far from any disturbance)" % QUIET_AFTER_UP, "none", lines)
                if ends and not self.dispatch_may_be_unstored(
                        run.unit, next((t for t in (run.start, run.stop, run.failed_at) if t is not None), None),
                        "begins unseen"):
                    self.violate("invented", run.unit, run.inv, "no end without the run's begin",
                                 ", ".join("%s seq %s" % (d.event, d.seq) for d in ends), lines)
            elif len(begins) > 1:
                self.violate("duplicate-begin", run.unit, run.inv, "one launch or wake",
                             "%d: sequences %s" % (len(begins), ",".join(str(d.seq) for d in begins)), lines)
            if run.stop is None and not run.failed_by_pid1:
                if ends:
                    self.violate("invented", run.unit, run.inv, "no end dispatch: the run never recorded its stop",
                                 ", ".join("%s seq %s" % (d.event, d.seq) for d in ends), lines)
            elif begins and not ends and not self.dispatch_may_be_unstored(
                    run.unit, run.stop if run.stop is not None else run.failed_at, "ends unseen"):
                self.violate("lost-end", run.unit, run.inv,
                             "a sleep (known or LIFECYCLE_RUN_END=unknown): the run began and recorded its stop",
                             "none", lines)
            elif len(ends) > 1:
                self.violate("duplicate-end", run.unit, run.inv, "at most one end",
                             "%d: %s" % (len(ends), ", ".join("%s seq %s" % (d.event, d.seq) for d in ends)), lines)
            crashes = [d for d in ends if d.event == "crash"]
            if crashes and run.result in (None, "success"):
                self.violate("false-crash", run.unit, run.inv,
                             "a sleep: the run exited 0 (SERVICE_RESULT=%s)" % (run.result or "-"),
                             ", ".join("crash seq %s" % d.seq for d in crashes), lines)
            for d in disp:
                if d.event not in BEGINS + ENDS:
                    self.violate("invented", run.unit, run.inv, "only launch, wake, sleep and crash",
                                 "event '%s' seq %s" % (d.event, d.seq), lines)

    def check_crash_details(self, run, d):
        want = {"LIFECYCLE_UNIT_RESULT": run.end.get("UNIT_RESULT")}
        if run.exit is not None:
            want["LIFECYCLE_EXIT_CODE"] = run.exit.get("EXIT_CODE")
            want["LIFECYCLE_EXIT_STATUS"] = run.exit.get("EXIT_STATUS")
        bad = ["%s=%s (PID 1: %s)" % (k, d.entry.get(k), v) for k, v in want.items()
               if v is not None and d.entry.get(k) != v]
        if bad:
            self.violate("crash-details", run.unit, run.inv,
                         "the crash notice carrying " + ", ".join("%s=%s" % kv for kv in want.items()),
                         "seq %s: %s" % (d.seq, "; ".join(bad)), self.run_lines(run))

    def check_times(self, run, begins, ends):
        for d, anchor, what in [(d, run.begin, "begin") for d in begins] + [(d, run.end, "end") for d in ends]:
            if d.time is None:
                self.violate("time", run.unit, run.inv, "a readable LIFECYCLE_TIME on the %s" % what,
                             "'%s' on seq %s" % (d.time_text, d.seq), self.run_lines(run))
            elif anchor.ts is not None and abs(d.time - anchor.ts) > self.tolerance:
                self.violate("time", run.unit, run.inv,
                             "the %s's LIFECYCLE_TIME within %.1f s of PID 1's %s at %s" % (
                                 what, self.tolerance / 1e6, PID1_NAMES[anchor.id], fmt(anchor.ts)),
                             "%s %s seq %s: %s, %+.3f s%s" % (
                                 d.event, what, d.seq, d.time_text, (d.time - anchor.ts) / 1e6,
                                 " (LIFECYCLE_RUN_END=unknown: taken as unknown, though PID 1 logged it)"
                                 if d.entry.get("LIFECYCLE_RUN_END") == "unknown" else ""), self.run_lines(run))

    def check_premature(self, run, begins, ends):
        for d, anchor, what in [(d, run.begin, "begin") for d in begins] + [(d, run.end, "end") for d in ends]:
            if anchor.ts is not None and d.entry.ts is not None and d.entry.ts < anchor.ts - PREMATURE_SLACK_US:
                self.violate("premature", run.unit, run.inv,
                             "the %s dispatched after PID 1 logged it (%s at %s)" % (
                                 what, PID1_NAMES[anchor.id], fmt(anchor.ts)),
                             "%s seq %s in the journal at %s, %.3f s before" % (
                                 d.event, d.seq, fmt(d.entry.ts), (anchor.ts - d.entry.ts) / 1e6),
                             self.run_lines(run))

    def check_reconciled(self, run, begins, ends):
        for anchor, disp, what in ((run.begin, begins, "begin"), (run.end, ends, "end")):
            if anchor is None or not disp:
                continue
            down = self.in_window(anchor, self.down)
            bus = self.in_window(anchor, self.bus_down)
            if down or bus:
                for d in disp:
                    if not d.reconciled:
                        reason = ("no lifecycled process existed" if down else "the bus daemon was down")
                        self.violate("not-reconciled", run.unit, run.inv,
                                     "LIFECYCLE_RECONCILED=true on the %s: PID 1 logged it (%s at %s) while %s"
                                     % (what, PID1_NAMES[anchor.id], fmt(anchor.ts), reason),
                                     "%s seq %s without it" % (d.event, d.seq), self.run_lines(run))
            elif self.quiet(anchor):
                for d in disp:
                    if d.reconciled:
                        self.violate("falsely-reconciled", run.unit, run.inv,
                                     "a live %s: PID 1 logged it (%s at %s) while lifecycled had been up for %.0f s "
                                     "or more, far from any disturbance" % (what, PID1_NAMES[anchor.id],
                                                                            fmt(anchor.ts), QUIET_AFTER_UP),
                                     "%s seq %s marked LIFECYCLE_RECONCILED=true" % (d.event, d.seq),
                                     self.run_lines(run))

    def check_unknown_runs(self):
        for (unit, inv), disp in self.disp_by_run.items():
            if (unit, inv) in self.runs or (unit, inv) in self.self_runs or unit in self.manual_units:
                continue
            if inv and all(d.event in BEGINS + ENDS and self.in_nostore(d.time, self.tolerance) for d in disp) \
                    and len([d for d in disp if d.event in BEGINS]) <= 1 \
                    and len([d for d in disp if d.event in ENDS]) <= 1 and unit not in self.quiet_units:
                # A run begun and ended while journald stored nothing below notice: PID 1's entries of it are not
                # in the journal; its dispatches (a crash notice is a warning, a late or repeated one) may be.
                self.excuse(unit, "runs unseen")
                continue
            lines = [d.line() for d in disp]
            for d in disp:
                lines += [x for x in self.near_disturbances(d.time) if x not in lines]
            self.violate("invented", unit, inv or "-",
                         ("no dispatch: the unit never recorded this run" if unit in self.quiet_units else
                          "no dispatch: PID 1 never logged this run") if inv else "an InvocationID on every dispatch",
                         ", ".join("%s seq %s" % (d.event, d.seq) for d in disp), lines)

    def check_sequences(self):
        units = set(self.disp_by_unit) | set(self.by_unit) | set(self.self_by_unit)
        for unit in sorted(units):
            disp = self.disp_by_unit.get(unit, [])
            listing = ["  " + d.line() for d in sorted(disp, key=lambda d: (d.seq or 0, d.entry.pos))]
            seqs = [d.seq for d in disp]
            if None in seqs:
                self.violate("sequence-gap", unit, "-", "a LIFECYCLE_SEQUENCE on every dispatch",
                             "%d without" % seqs.count(None), listing)
            seqs = [s for s in seqs if s is not None]
            counts = collections.Counter(seqs)
            dups = sorted(s for s, n in counts.items() if n > 1)
            if dups:
                self.violate("duplicate-sequence", unit, "-", "each sequence number once",
                             ", ".join("%d x%d" % (s, counts[s]) for s in dups), listing)
            n = max(seqs) if seqs else 0
            missing = [s for s in range(1, n + 1) if s not in counts]
            if missing and self.nostore:
                missing = [k for k in missing if not self.gap_may_be_unstored(unit, k, disp)]
            if missing or any(s < 1 for s in seqs):
                self.violate("sequence-gap", unit, "-", "sequences 1..%d" % n,
                             "missing %s" % ",".join(map(str, missing)) if missing else "numbers below 1", listing)
            # Run order: in sequence order, begin of run k, end of run k, begin of run k+1, ...
            last, last_d = None, None
            for d in sorted(disp, key=lambda d: (d.seq or 0, d.entry.pos)):
                run = self.runs.get((unit, d.inv)) or self.self_runs.get((unit, d.inv))
                if run is None or run.index is None or d.event not in BEGINS + ENDS:
                    continue
                key = (run.index, 0 if d.event in BEGINS else 1)
                if last is not None and key < last:
                    self.violate("out-of-order", unit, d.inv,
                                 "sequence order to follow the runs (begin of run k, its end, begin of run k+1)",
                                 "seq %s (%s of run #%d) after seq %s (%s of run #%d)" % (
                                     d.seq, d.event, run.index + 1, last_d.seq, last_d.event, last[0] + 1),
                                 listing)
                last, last_d = key, d
            self.check_begin_kinds(unit)
            self.check_counters(unit, disp)

    def gap_may_be_unstored(self, unit, k, disp):
        """Whether dispatch number k of `unit`, missing from the journal, may have gone out while journald stored
        nothing below notice: a window between the transition of the stored number before it (LIFECYCLE_TIME: k
        went out after that transition; a stored copy may be a later sending) and the earliest stored copy of a
        number after it (k went out before that)."""
        before = [d.time for d in disp if d.seq is not None and d.seq < k and d.time is not None]
        after = [d.entry.ts for d in disp if d.seq is not None and d.seq > k and d.entry.ts is not None]
        lo = max(before) - self.tolerance if before else float("-inf")
        hi = min(after) if after else float("inf")
        if any(ws <= hi and lo <= we for ws, we in self.nostore):
            return self.excuse(unit, "dispatch numbers unseen")
        return False

    def check_begin_kinds(self, unit):
        if unit in self.quiet_units:
            return self.check_self_logged_begin_kinds(unit)
        prev_run, prev_begin = None, None
        for run in self.by_unit.get(unit, []):
            begins = [d for d in self.disp_by_run.get((unit, run.inv), []) if d.event in BEGINS]
            if len(begins) != 1:
                prev_run, prev_begin = run, None
                continue
            if self.nostore_between(prev_run.begin.ts if prev_run is not None else float("-inf"), run.begin.ts):
                # A run (or the previous one's end) may be unseen: the journal stored nothing meanwhile.
                prev_run, prev_begin = run, begins[0]
                continue
            d = begins[0]
            if prev_run is None:
                want, why = "launch", "the unit's first run"
            elif prev_run.end_kind == "crash":
                want, why = "launch", "the previous run %s failed (%s)" % (prev_run.inv,
                                                                          prev_run.end.get("UNIT_RESULT"))
            elif prev_run.end_kind is None:
                want, why = "launch", "the previous run %s has no end in PID 1's log" % prev_run.inv
            else:
                want, why = "wake", "the previous run %s ended cleanly" % prev_run.inv
            if d.event != want:
                changed = (prev_begin is not None and d.version is not None and prev_begin.version is not None
                           and d.version != prev_begin.version)
                if not (want == "wake" and changed):
                    self.violate("begin-kind", unit, run.inv, "a %s: %s" % (want, why),
                                 "a %s, seq %s (version %s, previous begin's %s)" % (
                                     d.event, d.seq, d.version, prev_begin.version if prev_begin else "-"),
                                 self.run_lines(run) + ["previous run:"] + self.run_lines(prev_run))
            prev_run, prev_begin = run, d

    def check_self_logged_begin_kinds(self, unit):
        """The first run lifecycled began is a launch, every later one a wake: no run failed (each recorded
        SERVICE_RESULT=success) and an unknown end is no crash. A launch for a new version is right too; after a run
        that recorded a failure, no begin is judged."""
        prev_begin, unknown = None, False
        for run in self.self_by_unit.get(unit, []):
            begins = [d for d in self.disp_by_run.get((unit, run.inv), []) if d.event in BEGINS]
            if not begins and self.in_nostore(run.start, 5e6):
                unknown = True  # its begin may have gone to a journal that stored nothing: the next one is unjudged
            elif len(begins) == 1 and unknown:
                prev_begin, unknown = begins[0], False
            elif len(begins) == 1:
                d = begins[0]
                want, why = ("launch", "the first run lifecycled began") if prev_begin is None else (
                    "wake", "no run before it failed")
                changed = (prev_begin is not None and d.version is not None and prev_begin.version is not None
                           and d.version != prev_begin.version)
                if d.event != want and not (want == "wake" and changed):
                    self.violate("begin-kind", unit, run.inv, "a %s: %s" % (want, why),
                                 "a %s, seq %s (version %s, previous begin's %s)" % (
                                     d.event, d.seq, d.version, prev_begin.version if prev_begin else "-"),
                                 self.self_run_lines(run))
                prev_begin = d
            if run.result not in (None, "success"):
                return

    def check_counters(self, unit, disp):
        state = self.states.get(unit)
        runs = self.by_unit.get(unit, [])
        unique = {}
        for d in disp:
            if d.seq is not None:
                unique.setdefault(d.seq, d)
        if state is None:
            if disp:
                self.violate("counters", unit, "-", "a state file", "none, with %d dispatches" % len(disp), [])
            return
        st = state.get("state", {})
        launches = sum(1 for d in unique.values() if d.event == "launch")
        wakes = sum(1 for d in unique.values() if d.event == "wake")
        sleeps = sum(1 for d in unique.values() if d.event == "sleep")
        detected = sum(1 for d in unique.values() if d.event == "launch" and d.crash_detected)
        checks = [
            ("sequence", state.get("sequence"), max(unique) if unique else 0, "the last LIFECYCLE_SEQUENCE"),
            ("count_total_launch", st.get("count_total_launch"), launches, "launch dispatches"),
            ("count_total_wake", st.get("count_total_wake"), launches + wakes, "launch + wake dispatches"),
            ("count_total_sleep", st.get("count_total_sleep"), sleeps, "sleep dispatches"),
            ("count_total_crash", st.get("count_total_crash"), detected, "launches with LIFECYCLE_DIDDETECTCRASH"),
            ("count_total_wake", st.get("count_total_wake"), len(runs), "runs PID 1 started"),
            ("count_total_sleep", st.get("count_total_sleep"),
             sum(1 for r in runs if r.end_kind == "sleep"), "clean ends PID 1 logged"),
            ("count_total_crash", st.get("count_total_crash"),
             sum(1 for a, b in zip(runs, runs[1:]) if a.end_kind == "crash"), "failed runs PID 1 started again"),
        ]
        if unit in self.quiet_units or unit in self.manual_units:
            # PID 1 logs none of their runs, and lifecycled can know only some of them; a manual-only unit has none.
            checks = checks[:5]
        if unique and isinstance(state.get("sequence"), int) and state["sequence"] > max(unique) and self.nostore:
            # Its last dispatches may have gone to a journal that stored nothing.
            last = [d.time for d in disp if d.seq == max(unique) and d.time is not None]
            if last and any(we >= max(last) - self.tolerance for _ws, we in self.nostore):
                self.excuse(unit, "dispatch numbers unseen")
        if unit in self.unstored_units:
            # Some of its entries may be missing from the journal: the state file counts at least what it shows.
            bad = ["%s=%s, expected at least %s (%s)" % (name, got, want, why) for name, got, want, why in checks
                   if not isinstance(got, int) or got < want]
        else:
            bad = ["%s=%s, expected %s (%s)" % (name, got, want, why) for name, got, want, why in checks if got != want]
        if unit in self.live_units:
            # Every run of it went while lifecycled was up and listening: the state file counts each of them,
            # whatever the journal stored.
            runs = self.self_by_unit.get(unit, [])
            started = sum(1 for r in runs if r.start is not None)
            stopped = sum(1 for r in runs if r.stop is not None and r.result == "success")
            live = [("count_total_wake", st.get("count_total_wake"), started, "runs the unit recorded"),
                    ("count_total_sleep", st.get("count_total_sleep"), stopped, "clean stops the unit recorded"),
                    ("count_total_crash", st.get("count_total_crash"), 0, "no run failed"),
                    ("sequence", state.get("sequence"), started + stopped, "a begin and an end a run")]
            bad += ["%s=%s, expected %s (%s)" % (name, got, want, why) for name, got, want, why in live if got != want]
        pending = len(state.get("pending_dispatches") or [])
        if pending > PENDING_BOUND:
            bad.append("%d dispatches waiting for the journal, at most %d" % (pending, PENDING_BOUND))
        if bad:
            self.violate("counters", unit, "-", "the state file to equal the dispatches and PID 1's runs"
                         + (" (at least)" if unit in self.unstored_units else ""),
                         "; ".join(bad), ["state file: " + json.dumps(
                             {"sequence": state.get("sequence"),
                              **{k: v for k, v in st.items() if k.startswith("count_total")}}, sort_keys=True)]
                         + self.nostore_lines(*[d.entry.ts for d in disp]))

    # --- manual-only units -----------------------------------------------------------------------------------------

    def check_manual(self):
        """Each accepted call (exit 0) has its dispatch, numbered as lifectl was told; every dispatch is an accepted
        call's, or one whose outcome is unknown (a timeout, a lost reply) made between the accepted calls numbered
        around it; numbers told never go back or repeat. The numbering 1..N and the counters: check_sequences."""
        for unit in sorted(self.manual_units):
            calls = [c for c in self.manual if c["unit"] == unit]
            disp = self.disp_by_unit.get(unit, [])
            by_seq = collections.defaultdict(list)
            for d in disp:
                by_seq[d.seq].append(d)
            listing = [c["line"] for c in calls if c["outcome"] != "refused"][-30:]
            last = None
            for c in calls:
                if c["outcome"] != "ok":
                    continue
                if last is not None and c["seq"] <= last["seq"]:
                    self.violate("manual-sequence", unit, "-",
                                 "each accepted event numbered past the one before (never again a number given)",
                                 "%s told sequence %d after %s told %d" % (c["event"], c["seq"], last["event"],
                                                                          last["seq"]), [last["line"], c["line"]])
                last = c
                found = by_seq.get(c["seq"], [])
                if not found:
                    if not (self.nostore_between(c["start"], c["end"]) and self.excuse(unit, "manual events unseen")):
                        self.violate("lost-manual", unit, "-", "the %s accepted as sequence %d in the journal"
                                     % (c["event"], c["seq"]), "no dispatch numbered %d" % c["seq"],
                                     [c["line"]] + [d.line() for d in disp if d.seq is not None
                                                    and abs(d.seq - c["seq"]) <= 2])
                elif any(d.event != c["event"] for d in found):
                    self.violate("manual-mismatch", unit, "-", "dispatch %d to be the %s accepted with that number"
                                 % (c["seq"], c["event"]), ", ".join(d.event for d in found),
                                 [c["line"]] + [d.line() for d in found])
            told = {c["seq"]: i for i, c in enumerate(calls) if c["outcome"] == "ok"}
            used = set()
            for k in sorted(k for k in by_seq if k is not None and k not in told):
                d = by_seq[k][0]
                lo = max([i for s, i in told.items() if s < k], default=-1)
                hi = min([i for s, i in told.items() if s > k], default=len(calls))
                match = next((i for i in range(lo + 1, hi) if i not in used and calls[i]["outcome"] == "unknown"
                              and calls[i]["event"] == d.event), None)
                if match is None:
                    self.violate("invented", unit, "-", "a dispatch only for an accepted event, or one whose outcome "
                                 "is unknown, made between the accepted events numbered around it",
                                 "%s seq %d" % (d.event, k), [d.line()] + listing)
                else:
                    used.add(match)

    # --- counters never go back --------------------------------------------------------------------------------

    def check_samples(self):
        """The state files as sampled during the run (and at the end, the archive's record for a unit no longer in
        units/): no counter and no sequence ever smaller than before."""
        last = {}
        for t, unit, values in sorted(self.samples, key=lambda x: x[0]):
            if not self.unit_re.fullmatch(unit):
                continue
            prev = last.get(unit)
            if prev is not None:
                back = [f for f, a, b in zip(COUNTER_FIELDS, prev[1], values)
                        if isinstance(a, int) and isinstance(b, int) and b < a]
                if back:
                    self.violate("went-back", unit, "-", "sequence and counters that never go back",
                                 "%s went back" % ", ".join(back),
                                 ["sample at %s: %s" % (fmt(prev[0]), prev[1]), "sample at %s: %s" % (fmt(t), values)]
                                 + self.near_disturbances(t))
            last[unit] = (t, values)
        for unit, (t, values) in sorted(last.items()):
            state = self.states.get(unit)
            if state is None:
                continue
            st = state.get("state", {})
            now = [state.get("sequence")] + [st.get(f) for f in COUNTER_FIELDS[1:]]
            back = [f for f, a, b in zip(COUNTER_FIELDS, values, now) if isinstance(a, int) and isinstance(b, int)
                    and b < a]
            if back:
                self.violate("went-back", unit, "-", "the final record at least the last sample",
                             "%s went back" % ", ".join(back),
                             ["sample at %s: %s" % (fmt(t), values), "final record: %s" % now])

    # --- all -----------------------------------------------------------------------------------------------------

    def run(self):
        self.collect()
        if not self.evidence_ok():
            return
        self.compute_windows()
        self.check_runs()
        self.check_self_logged_runs()
        self.check_unknown_runs()
        self.check_manual()
        self.check_sequences()
        self.check_samples()

    def report(self, out):
        order = ["evidence", "skipped-start", "lost-begin", "lost-end", "duplicate-begin", "duplicate-end",
                 "false-sleep", "false-crash", "invented", "lost-manual", "manual-sequence", "manual-mismatch",
                 "duplicate-sequence", "sequence-gap", "out-of-order", "counters", "went-back", "crash-details", "begin-kind", "premature", "time", "not-reconciled", "falsely-reconciled"]
        self.violations.sort(key=lambda v: (order.index(v[0]) if v[0] in order else 99, v[1], v[2]))
        for kind, unit, inv, expected, found, lines in self.violations:
            out.write("VIOLATION %s: %s run %s: expected %s; found %s\n" % (kind, unit, inv, expected, found))
            for line in lines[:40]:
                out.write("    %s\n" % line)
            if len(lines) > 40:
                out.write("    ... %d more lines\n" % (len(lines) - 40))
        by_kind = collections.Counter(v[0] for v in self.violations)
        runs = [r for r in self.runs.values() if r.begin is not None and not r.skipped] if hasattr(self, "runs") else []
        skipped = sum(1 for r in self.runs.values() if r.skipped) if hasattr(self, "runs") else 0
        self_runs = list(getattr(self, "self_runs", {}).values())
        seen = sum(1 for r in self_runs if any(d.event in BEGINS for d in self.disp_by_run.get((r.unit, r.inv), [])))
        visible = sum(1 for r in self_runs if r.start is not None and hasattr(self, "up")
                      and self.quiet_span(r.start, r.stop))
        outcomes = collections.Counter(c["outcome"] for c in self.manual)
        out.write("oracle: manual events: %d ok, %d refused, %d unknown; %d samples of state files; %d windows "
                  "storing nothing below notice, excused: %s\n" % (
                      outcomes["ok"], outcomes["refused"], outcomes["unknown"], len(self.samples), len(self.nostore),
                      ", ".join("%s %d" % kv for kv in sorted(self.excused.items())) or "nothing"))
        out.write("oracle: %d runs of %d units (%d failed), %d starts skipped, %d self-logged runs of %d units "
                  "(%d begun, %d at a quiet time), %d dispatches (%d reconciled), %d lifecycled down "
                  "windows, %d bus down windows, %d disturbances; %d violation(s)%s\n" % (
                      len(runs), len({r.unit for r in runs}), sum(1 for r in runs if r.end_kind == "crash"), skipped,
                      len(self_runs), len({r.unit for r in self_runs}), seen, visible,
                      len(getattr(self, "dispatches", [])),
                      sum(1 for d in getattr(self, "dispatches", []) if d.reconciled),
                      len(getattr(self, "down", [])), len(getattr(self, "bus_down", [])), len(self.disturbances),
                      len(self.violations),
                      (": " + ", ".join("%s %d" % (k, n) for k, n in sorted(by_kind.items()))) if by_kind else ""))


def load_journal(path):
    entries = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                raw = json.loads(line)
            except ValueError:
                continue  # journalctl never writes a partial line; a stray one is not evidence
            entries.append(Entry(len(entries), raw))
    return entries


def load_states(directory, archive=None):
    """UNIT.json (or PREFIX~HASH.json) state files, by the unit each names; then, for a unit without one, its newest
    (last) record in the archive's NN.jsonl files."""
    states = {}
    if archive and os.path.isdir(archive):
        for name in sorted(os.listdir(archive)):
            if not name.endswith(".jsonl"):
                continue
            with open(os.path.join(archive, name), encoding="utf-8", errors="replace") as f:
                for line in f:
                    try:
                        data = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(data, dict) and data.get("unit"):
                        states[data["unit"]] = data
    if not directory or not os.path.isdir(directory):
        return states
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            continue
        unit = data.get("unit") or name[:-len(".json")]
        states[unit] = data
    return states


def load_self_logged(paths):
    """Lines "INVOCATION_ID start|stop UNIT SECONDS [SERVICE_RESULT]" of each file, in order."""
    out = []
    for path in paths or []:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) < 4 or parts[1] not in ("start", "stop"):
                    continue
                try:
                    us = int(round(float(parts[3]) * 1e6))
                except ValueError:
                    continue
                out.append((parts[0], parts[1], parts[2], us, parts[4] if len(parts) > 4 else None, line.strip()))
    return out


def load_manual(path):
    """Lines "START END UNIT EVENT OUTCOME SEQUENCE MESSAGE..." of the chaos suite's manual events, in call order."""
    out = []
    if not path:
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split(None, 6)
            if len(parts) < 6 or parts[4] not in ("ok", "refused", "unknown"):
                continue
            try:
                start, end = int(float(parts[0]) * 1e6), int(float(parts[1]) * 1e6)
            except ValueError:
                continue
            seq = int(parts[5]) if parts[5].isdigit() else None
            outcome = parts[4] if parts[4] != "ok" or seq is not None else "unknown"
            out.append({"start": start, "end": end, "unit": parts[2], "event": parts[3], "outcome": outcome,
                        "seq": seq, "line": "manual call: " + line.strip()})
    return out


def load_samples(path):
    """JSON lines {"t": seconds, "unit": UNIT, "values": [sequence, launch, wake, sleep, crash]}."""
    out = []
    if not path:
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                data = json.loads(line)
                out.append((int(data["t"] * 1e6), data["unit"], list(data["values"])))
            except (ValueError, KeyError, TypeError):
                continue
    return out


def load_disturbances(path):
    out = []
    if not path:
        return out
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split(None, 3)
            if len(parts) < 3:
                continue
            try:
                out.append((float(parts[0]), float(parts[1]), parts[2], parts[3].strip() if len(parts) > 3 else ""))
            except ValueError:
                continue
    return out


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--journal", required=True)
    p.add_argument("--states", required=True)
    p.add_argument("--units", default=r"lc-chaos-.*")
    p.add_argument("--disturbances")
    p.add_argument("--tolerance", type=float, default=0.5)
    p.add_argument("--self-logged", action="append", default=[])
    p.add_argument("--seen-live", action="append", default=[])
    p.add_argument("--archive")
    p.add_argument("--manual")
    p.add_argument("--samples")
    args = p.parse_args(argv)
    oracle = Oracle(load_journal(args.journal), load_states(args.states, args.archive), re.compile(args.units),
                    load_disturbances(args.disturbances), int(args.tolerance * 1e6),
                    load_self_logged(args.self_logged), load_self_logged(args.seen_live),
                    load_manual(args.manual), load_samples(args.samples))
    oracle.run()
    oracle.report(sys.stdout)
    if any(v[0] == "evidence" for v in oracle.violations):
        return 2
    return 1 if oracle.violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
