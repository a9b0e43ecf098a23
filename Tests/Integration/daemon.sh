#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The daemon against a real systemd: boots this machine's root as a throw-away container, installs lifecycled with
# the project's own scripts/install.sh, drives real units (start, stop, restart, SIGKILL, failed starts, oneshot and
# transient units, replaced executables, daemon-reload and daemon-reexec, restarts and reloads of lifecycled itself)
# and checks the dispatches in the journal (docs/journal.md) and the state files. One container for the whole suite.
# Needs root, systemd-container and jq.
# Usage: Tests/Integration/daemon.sh BUILD_DIR      (the release build: scripts/test passes it)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"

# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"
suite_preflight daemon.sh "$@"
# PID 1's "Started UNIT" / "Finished UNIT" (SD_MESSAGE_UNIT_STARTED).
readonly PID1_UNIT_STARTED=39f53479d3a045ac8e11786248231fbf
readonly LIFECYCLED=$PREFIX_INSIDE/bin/lifecycled
readonly CONFIG=/etc/lifecycled/lifecycled.json
readonly UNITS_DIR=/var/lib/lifecycled/units
# The specific rule first: the first matching rule wins. Debug level: lifecycled then logs each resync with systemd
# ("Resynced with systemd"), which the suite waits for, and every event the engine refused.
readonly BASE_CONFIG='{"watch": [{"pattern": "lc-timeout-*.service", "session_timeout": 0}, "lc-*.service"], "log_level": "debug"}'
readonly WAIT=20 # seconds any polled condition may take

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-daemon.XXXXXX")
export CONTAINER_LOG_DIR=$work

# --- helpers -------------------------------------------------------------------------------------------------------

# assert_no_crash_notice UNIT
assert_no_crash_notice() {
    local crashes
    crashes=$(dispatches "$1" | jq -r --arg id "$ID_CRASH" 'select(.MESSAGE_ID == $id) | .MESSAGE')
    [[ -z $crashes ]] || fail "$1: expected no crash notice, got: $crashes"
}

# Starts a transient `sleep 300` and waits for its first dispatch.
start_transient() {
    c_exec systemd-run --quiet --unit="$1" sleep 300
    wait_dispatches "$1" 1
}

# --- tests ---------------------------------------------------------------------------------------------------------

test_install() {
    local out rc
    write_config "$BASE_CONFIG"
    rc=0
    out=$(install_inside 2>&1) || rc=$?
    ((rc == 0)) || fail "install.sh exited $rc: $out"
    assert_contains "$out" "kept the existing configuration $CONFIG" "install.sh output"
    assert_eq "$BASE_CONFIG" "$(c_exec cat "$CONFIG")" "configuration after install"
    assert_contains "$(unit_prop lifecycled.service ExecStart)" "path=$LIFECYCLED " "ExecStart of lifecycled.service"
    assert_eq enabled "$(c_exec systemctl is-enabled lifecycled.service)" "is-enabled"
    # Type=notify: active only after READY=1.
    assert_eq notify "$(unit_prop lifecycled.service Type)" "Type"
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "ActiveState"
    assert_eq running "$(unit_prop lifecycled.service SubState)" "SubState"
    local status
    status=$(unit_prop lifecycled.service StatusText)
    [[ $status == Watching* ]] || fail "StatusText: expected 'Watching …', got '$status'"

    out=$(c_exec "$LIFECYCLED" --check-config 2>&1) || fail "--check-config of the installed configuration failed: $out"
    assert_contains "$out" "$CONFIG: valid" "--check-config"

    # An unknown key, in a file named on the command line.
    printf '%s\n' '{"watch": ["lc-*.service"], "sesion_timeout": 5}' | c_exec_stdin tee /tmp/lc-bad-key.json >/dev/null
    rc=0
    out=$(c_exec "$LIFECYCLED" --check-config --config /tmp/lc-bad-key.json 2>&1) || rc=$?
    assert_eq 1 "$rc" "exit status of --check-config with an unknown key"
    assert_contains "$out" "/tmp/lc-bad-key.json: sesion_timeout: unknown key" "--check-config with an unknown key"

    # A bad value in a drop-in of the default configuration: the message names the drop-in.
    c_exec mkdir -p "$CONFIG.d"
    printf '%s\n' '{"session_timeout": "soon"}' | c_exec_stdin tee "$CONFIG.d/50-broken.json" >/dev/null
    rc=0
    out=$(c_exec "$LIFECYCLED" --check-config 2>&1) || rc=$?
    c_exec rm -f "$CONFIG.d/50-broken.json"
    assert_eq 1 "$rc" "exit status of --check-config with a bad drop-in"
    assert_contains "$out" "$CONFIG.d/50-broken.json: session_timeout:" "--check-config with a bad drop-in"

    # Invalid JSON: the message names the file, line and column.
    printf '%s\n' '{"watch": ["lc-*.service"' | c_exec_stdin tee /tmp/lc-bad-json.json >/dev/null
    rc=0
    out=$(c_exec "$LIFECYCLED" --check-config --config /tmp/lc-bad-json.json 2>&1) || rc=$?
    assert_eq 1 "$rc" "exit status of --check-config with invalid JSON"
    assert_contains "$out" "/tmp/lc-bad-json.json:2:1: invalid JSON" "--check-config with invalid JSON"

    assert_status 0 c_exec "$LIFECYCLED" --check-config >/dev/null
}

test_first_start() {
    local unit=lc-first.service entry invocation
    start_transient "$unit"
    invocation=$(unit_prop "$unit" InvocationID)
    [[ $invocation =~ ^[0-9a-f]{32}$ ]] || fail "InvocationID of $unit: '$invocation'"
    entry=$(nth_dispatch "$unit" 1)
    assert_json_field "$entry" MESSAGE_ID "$ID_LAUNCH"
    assert_json_field "$entry" PRIORITY 6
    assert_json_field "$entry" LIFECYCLE_EVENT launch
    assert_json_field "$entry" LIFECYCLE_UNIT "$unit"
    assert_json_field "$entry" OBJECT_SYSTEMD_UNIT "$unit"
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 1
    assert_json_field "$entry" LIFECYCLE_ISFIRSTLAUNCH true
    assert_json_field "$entry" LIFECYCLE_AUTOTRACKED true
    assert_json_field "$entry" LIFECYCLE_INVOCATION_ID "$invocation"
    assert_json_field "$entry" LIFECYCLE_LAUNCHCOUNT 1
    assert_json_field "$entry" LIFECYCLE_WAKECOUNT 1
    assert_json_field "$entry" LIFECYCLE_SLEEPCOUNT 0
    assert_json_field "$entry" LIFECYCLE_TOTALCRASHCOUNT 0
    assert_json_field "$entry" LIFECYCLE_DIDDETECTCRASH ""
    assert_json_field "$entry" MESSAGE "$unit: launch #1 (first launch)"
    assert_eq true "$(jq -r '.LIFECYCLE_PAYLOAD | fromjson | .lifecycle_isfirstlaunch' <<<"$entry")" "payload isfirstlaunch"
    # `journalctl -u UNIT` shows the dispatch beside the unit's own logs.
    assert_journal_has "$(c_exec journalctl --no-pager -o json -u "$unit")" \
        SYSLOG_IDENTIFIER=lifecycled MESSAGE_ID=$ID_LAUNCH "LIFECYCLE_INVOCATION_ID=$invocation"
    # The state file is written before the dispatch.
    assert_eq 1 "$(state "$unit" .sequence)" "state sequence"
    assert_eq launch "$(state "$unit" .state.last_event)" "state last_event"
    assert_eq "$invocation" "$(state "$unit" .invocation_id)" "state invocation_id"
    c_exec systemctl stop "$unit"
}

test_stop_sleeps() {
    local unit=lc-sleep@stop.service entry
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    local invocation
    invocation=$(unit_prop "$unit" InvocationID)
    sleep 1.2 # the unit must be up for at least a second: time itself is the condition
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    entry=$(nth_dispatch "$unit" 2)
    assert_json_field "$entry" MESSAGE_ID "$ID_SLEEP"
    assert_json_field "$entry" LIFECYCLE_EVENT sleep
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 2
    assert_json_field "$entry" LIFECYCLE_SLEEPCOUNT 1
    assert_json_field "$entry" LIFECYCLE_INVOCATION_ID "$invocation"
    assert_json_field "$entry" OBJECT_SYSTEMD_UNIT "$unit"
    assert_ge 1 "$(json_field "$entry" LIFECYCLE_SECONDSAWAKE)" "LIFECYCLE_SECONDSAWAKE"
    assert_ge 1 "$(json_field "$entry" LIFECYCLE_TOTALSECONDSAWAKE)" "LIFECYCLE_TOTALSECONDSAWAKE"
    assert_eq sleep "$(state "$unit" .state.last_event)" "state last_event"
    assert_eq 1 "$(state "$unit" .state.count_sleep)" "state count_sleep"
    assert_eq 2 "$(state "$unit" .sequence)" "state sequence"
}

# The journal's thread (the looks, a recovery's reads) runs 10 nicer than the loop's, so that a live change is not
# kept waiting for a core by a long history's reads (docs/architecture.md, "One thread"). It starts at the first look,
# which a dispatch's confirmation is.
test_journal_thread_niced() {
    local unit=lc-sleep@stop.service pid nice
    wait_for "$WAIT" nothing_pending "$unit" || fail "dispatches of $unit still pending: $(pending_count "$unit")"
    pid=$(unit_prop lifecycled.service MainPID)
    # Field 19 of /proc/PID/task/TID/stat is the thread's nice value (the name in field 2 has no space).
    nice=$(c_exec sh -c "for task in /proc/$pid/task/*; do echo \$(basename \$task) \$(cut -d' ' -f19 \$task/stat); done")
    assert_eq 0 "$(awk -v pid="$pid" '$1 == pid { print $2 }' <<<"$nice")" "the loop's thread's nice value"
    assert_eq 1 "$(awk '$2 == 10' <<<"$nice" | grep -c .)" "threads 10 nicer (the journal's): $nice"
}

test_restart_sleeps_and_wakes() {
    local unit=lc-sleep@restart.service first second entry
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    first=$(unit_prop "$unit" InvocationID)
    c_exec systemctl restart "$unit"
    wait_dispatches "$unit" 3
    second=$(unit_prop "$unit" InvocationID)
    [[ $first != "$second" ]] || fail "the restart kept InvocationID $first"
    entry=$(nth_dispatch "$unit" 2)
    assert_json_field "$entry" MESSAGE_ID "$ID_SLEEP"
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 2
    assert_json_field "$entry" LIFECYCLE_INVOCATION_ID "$first"
    entry=$(nth_dispatch "$unit" 3)
    assert_json_field "$entry" MESSAGE_ID "$ID_WAKE"
    assert_json_field "$entry" LIFECYCLE_EVENT wake
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 3
    assert_json_field "$entry" LIFECYCLE_WAKECOUNT 2
    assert_json_field "$entry" LIFECYCLE_LAUNCHCOUNT 1
    assert_json_field "$entry" LIFECYCLE_SLEEPCOUNT 1
    assert_json_field "$entry" LIFECYCLE_INVOCATION_ID "$second"
    assert_eq 3 "$(dispatch_count "$unit")" "dispatches of $unit"
    c_exec systemctl stop "$unit"
}

test_start_after_session_timeout() {
    local unit=lc-timeout-web.service entry
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 3
    assert_json_field "$(nth_dispatch "$unit" 2)" MESSAGE_ID "$ID_SLEEP"
    entry=$(nth_dispatch "$unit" 3)
    assert_json_field "$entry" MESSAGE_ID "$ID_LAUNCH"
    assert_json_field "$entry" LIFECYCLE_EVENT launch
    assert_json_field "$entry" LIFECYCLE_LAUNCHCOUNT 2
    assert_json_field "$entry" LIFECYCLE_WAKECOUNT 2
    assert_json_field "$entry" LIFECYCLE_SLEEPCOUNT 1
    assert_json_field "$entry" LIFECYCLE_ISFIRSTLAUNCH ""
    assert_json_field "$entry" LIFECYCLE_DIDDETECTCRASH ""
    assert_json_field "$entry" LIFECYCLE_TOTALCRASHCOUNT 0
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 3
    assert_no_crash_notice "$unit"
    c_exec systemctl stop "$unit"
}

test_sigkill_is_a_crash() {
    local unit=lc-crash.service first second entry
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    first=$(unit_prop "$unit" InvocationID)
    c_exec systemctl kill -s KILL "$unit"
    wait_dispatches "$unit" 3 # the crash notice at once, the launch after RestartSec=1
    second=$(unit_prop "$unit" InvocationID)
    entry=$(nth_dispatch "$unit" 2)
    assert_json_field "$entry" MESSAGE_ID "$ID_CRASH"
    assert_json_field "$entry" PRIORITY 4
    assert_json_field "$entry" LIFECYCLE_EVENT crash
    assert_json_field "$entry" LIFECYCLE_UNIT_RESULT signal
    assert_json_field "$entry" LIFECYCLE_EXIT_CODE killed
    assert_json_field "$entry" LIFECYCLE_EXIT_STATUS 9
    assert_json_field "$entry" LIFECYCLE_N_RESTARTS 0
    assert_json_field "$entry" LIFECYCLE_AUTOTRACKED true
    assert_json_field "$entry" LIFECYCLE_INVOCATION_ID "$first"
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 2
    entry=$(nth_dispatch "$unit" 3)
    assert_json_field "$entry" MESSAGE_ID "$ID_LAUNCH"
    assert_json_field "$entry" LIFECYCLE_DIDDETECTCRASH true
    assert_json_field "$entry" LIFECYCLE_TOTALCRASHCOUNT 1
    assert_json_field "$entry" LIFECYCLE_LAUNCHCOUNT 2
    assert_json_field "$entry" LIFECYCLE_SLEEPCOUNT 0
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 3
    assert_json_field "$entry" LIFECYCLE_INVOCATION_ID "$second"
    assert_eq 1 "$(unit_prop "$unit" NRestarts)" "NRestarts"
    assert_eq 1 "$(state "$unit" .state.count_total_crash)" "state count_total_crash"
    c_exec systemctl stop "$unit"
}

test_failed_start_is_a_crash() {
    local unit=lc-nonexistent.service entry
    assert_status 1 c_exec systemctl start "$unit" 2>/dev/null
    wait_for "$WAIT" has_crash_notice "$unit"
    entry=$(dispatches "$unit" | jq -c --arg id "$ID_CRASH" 'select(.MESSAGE_ID == $id)' | head -n 1)
    assert_json_field "$entry" PRIORITY 4
    assert_json_field "$entry" LIFECYCLE_EVENT crash
    assert_json_field "$entry" LIFECYCLE_UNIT_RESULT exit-code
    assert_json_field "$entry" LIFECYCLE_EXIT_CODE exited
    assert_json_field "$entry" LIFECYCLE_EXIT_STATUS 203
    assert_json_field "$entry" OBJECT_SYSTEMD_UNIT "$unit"
    assert_eq failed "$(unit_prop "$unit" ActiveState)" "ActiveState"
}

test_oneshot() {
    local unit=lc-oneshot.service entry invocation
    c_exec systemctl start "$unit" # returns when the oneshot has finished
    wait_dispatches "$unit" 2
    # The finished unit may be unloaded already (InvocationID then reads empty): ask PID 1's journal instead.
    c_exec journalctl --sync
    invocation=$(c_exec journalctl --no-pager -o json _PID=1 "UNIT=$unit" MESSAGE_ID=$PID1_UNIT_STARTED |
        jq -r '.INVOCATION_ID' | tail -n 1)
    [[ $invocation =~ ^[0-9a-f]{32}$ ]] || fail "no INVOCATION_ID in PID 1's 'Finished $unit' entry: '$invocation'"
    entry=$(nth_dispatch "$unit" 1)
    assert_json_field "$entry" MESSAGE_ID "$ID_LAUNCH"
    assert_json_field "$entry" LIFECYCLE_ISFIRSTLAUNCH true
    assert_json_field "$entry" LIFECYCLE_INVOCATION_ID "$invocation"
    entry=$(nth_dispatch "$unit" 2)
    assert_json_field "$entry" MESSAGE_ID "$ID_SLEEP"
    assert_json_field "$entry" LIFECYCLE_SLEEPCOUNT 1
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 2
    assert_json_field "$entry" LIFECYCLE_INVOCATION_ID "$invocation"
    assert_no_crash_notice "$unit"
}

test_transient_exit_0() {
    local unit=lc-transient-ok.service entry
    c_exec systemd-run --quiet --unit="$unit" sh -c 'exit 0'
    wait_dispatches "$unit" 2
    entry=$(nth_dispatch "$unit" 1)
    assert_json_field "$entry" MESSAGE_ID "$ID_LAUNCH"
    assert_json_field "$entry" LIFECYCLE_ISFIRSTLAUNCH true
    entry=$(nth_dispatch "$unit" 2)
    assert_json_field "$entry" MESSAGE_ID "$ID_SLEEP"
    assert_json_field "$entry" LIFECYCLE_SLEEPCOUNT 1
    assert_no_crash_notice "$unit"
    # A finished transient unit is garbage-collected; its state stays.
    wait_for "$WAIT" unit_is_gone "$unit"
    assert_eq sleep "$(state "$unit" .state.last_event)" "state last_event"
    assert_eq 2 "$(state "$unit" .sequence)" "state sequence"
    assert_eq 1 "$(state "$unit" .state.count_sleep)" "state count_sleep"
}
unit_is_gone() { [[ $(unit_prop "$1" LoadState) == not-found ]]; }

# Transient units that finish and are garbage-collected before lifecycled gets to their start (lifecycled is
# SIGSTOPped meanwhile): each is recorded, launch and sleep, and none is asked about by name, which would make PID 1
# load it again (a call on /org/freedesktop/systemd1/unit/<escaped name> loads the unit). Here the source has seen each
# UnitRemoved before the version read, so it asks nothing; the race where PID 1 collects a unit between the two is
# what the version read by invocation ID closes (SystemdUnitSourceTests; goals.sh counts it under load). The units
# are listed with ListUnitsByPatterns, which loads nothing either (`systemctl show` would).
test_collected_units_not_loaded_again() {
    local count=20 i lc_pid by_name removed_twice names
    c_exec systemd-run --quiet --unit=gc-monitor.service -p StandardOutput=file:/run/gc-monitor.json stdbuf -oL \
        busctl monitor --json=short org.freedesktop.systemd1
    sleep 1
    lc_pid=$(unit_prop lifecycled.service MainPID)
    c_exec kill -STOP "$lc_pid"
    for ((i = 0; i < count; i++)); do
        c_exec systemd-run --quiet --unit="lc-gc-$i.service" true
    done
    wait_for "$WAIT" gc_units_gone
    c_exec kill -CONT "$lc_pid"
    for ((i = 0; i < count; i++)); do
        wait_dispatches "lc-gc-$i.service" 2
    done
    sleep 1
    c_exec systemctl stop gc-monitor.service
    c_exec cat /run/gc-monitor.json >"$work/gc-monitor.json"
    by_name=$(jq -rR 'fromjson? | select(.type == "method_call" and (.path // "" | startswith("/org/freedesktop/systemd1/unit/lc_2dgc_2d")))
        | "\(.member) \(.path)"' "$work/gc-monitor.json")
    [[ -z $by_name ]] || fail "collected units were asked about by name: $(head -5 <<<"$by_name")"
    names=$(jq -rR 'fromjson? | select(.type == "signal" and .member == "UnitRemoved") | .payload.data[0]' \
        "$work/gc-monitor.json" | grep '^lc-gc-' | sort | uniq -c)
    assert_eq "$count" "$(grep -c . <<<"$names")" "units removed"
    removed_twice=$(awk '$1 != 1' <<<"$names")
    [[ -z $removed_twice ]] || fail "loaded again after they were collected (times removed, unit): $removed_twice"
}
gc_units_gone() { [[ -z $(c_exec systemctl list-units --all --no-legend --plain 'lc-gc-*') ]]; }

# write_app COMMENT: (re)writes the "application" lc-app.service runs, as a new file renamed into place.
write_app() {
    c_exec mkdir -p /opt/lc-bin
    printf '#!/bin/sh\n# %s\nexec sleep 300\n' "$1" | c_exec_stdin install -m 0755 /dev/stdin /opt/lc-bin/app.new
    c_exec mv /opt/lc-bin/app.new /opt/lc-bin/app
}

test_executable_replaced() {
    local unit=lc-app.service entry version1
    write_app "version 1"
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 3
    assert_json_field "$(nth_dispatch "$unit" 3)" MESSAGE_ID "$ID_WAKE"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 4
    version1=$(state "$unit" .state.app_version)

    write_app "version 2, a longer comment"
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 5
    entry=$(nth_dispatch "$unit" 5)
    assert_json_field "$entry" MESSAGE_ID "$ID_LAUNCH"
    assert_json_field "$entry" LIFECYCLE_ISFIRSTLAUNCHUPDATE true
    assert_json_field "$entry" LIFECYCLE_LAUNCHCOUNT 1
    assert_json_field "$entry" LIFECYCLE_WAKECOUNT 1
    assert_json_field "$entry" LIFECYCLE_SLEEPCOUNT 0
    assert_json_field "$entry" LIFECYCLE_DAYSSINCEUPDATE 0
    assert_json_field "$entry" LIFECYCLE_TOTALLAUNCHCOUNT 2
    assert_json_field "$entry" LIFECYCLE_ISFIRSTLAUNCH ""
    assert_json_field "$entry" LIFECYCLE_DIDDETECTCRASH ""
    [[ $(state "$unit" .state.app_version) != "$version1" ]] || fail "the stored version did not change: $version1"
    c_exec systemctl stop "$unit"
}

test_reload_and_reexec_dispatch_nothing() {
    local running=lc-sleep@storm-running.service stopped=lc-sleep@storm-stopped.service failed=lc-exit3.service
    c_exec systemctl start "$running"
    wait_dispatches "$running" 1
    c_exec systemctl start "$stopped"
    wait_dispatches "$stopped" 1
    c_exec systemctl stop "$stopped"
    wait_dispatches "$stopped" 2
    c_exec systemctl start "$failed" || true
    wait_for "$WAIT" has_crash_notice "$failed"
    wait_for "$WAIT" c_exec systemctl is-failed --quiet "$failed"
    # Settle: whatever lifecycled still had to do about them is done once a marker has been dispatched.
    run_marker lc-marker-storm-before.service

    local before crashes_before owner_changes lifecycled_pid
    before=$(all_dispatch_count)
    crashes_before=$(all_dispatches | jq -r --arg id "$ID_CRASH" 'select(.MESSAGE_ID == $id) | .MESSAGE' | grep -c . || true)
    owner_changes=$(daemon_log_count "systemd's bus name changed owner")
    lifecycled_pid=$(unit_prop lifecycled.service MainPID)
    local resyncs
    resyncs=$(resync_count)

    c_exec systemctl daemon-reload
    c_exec systemctl daemon-reload
    c_exec systemctl daemon-reload
    c_exec systemctl daemon-reexec
    c_exec systemctl daemon-reload
    c_exec systemctl daemon-reexec
    c_exec systemctl daemon-reload
    # lifecycled notices each re-execution (systemd's bus name gets a new owner) and resyncs.
    wait_daemon_log "systemd's bus name changed owner" $((owner_changes + 2))
    # Every daemon-reload and -reexec makes lifecycled resync; let the last one finish before the marker (a unit
    # that starts during a resync is another matter: see test_start_right_after_daemon_reload).
    wait_resyncs_settled $((resyncs + 1))
    assert_eq active "$(unit_prop "$running" ActiveState)" "ActiveState of $running"
    assert_eq failed "$(unit_prop "$failed" ActiveState)" "ActiveState of $failed"
    assert_eq inactive "$(unit_prop "$stopped" ActiveState)" "ActiveState of $stopped"

    run_marker lc-marker-storm-after.service
    local after crashes_after
    after=$(all_dispatch_count)
    crashes_after=$(all_dispatches | jq -r --arg id "$ID_CRASH" 'select(.MESSAGE_ID == $id) | .MESSAGE' | grep -c . || true)
    if ((after != before + 2)); then
        fail "expected $before dispatches plus the marker's 2 after the daemon-reloads and -reexecs, got $after:"$'\n'"$(
            all_dispatches | tail -n $((after - before)) | jq -r '"    " + .MESSAGE')"
    fi
    assert_eq "$crashes_before" "$crashes_after" "crash notices"
    assert_eq "$lifecycled_pid" "$(unit_prop lifecycled.service MainPID)" "MainPID of lifecycled (no restart)"
    assert_eq 0 "$(unit_prop lifecycled.service NRestarts)" "NRestarts of lifecycled"

    # The running unit is still tracked: its stop is a sleep that continues its sequence.
    c_exec systemctl stop "$running"
    wait_dispatches "$running" 2
    assert_json_field "$(nth_dispatch "$running" 2)" MESSAGE_ID "$ID_SLEEP"
    assert_json_field "$(nth_dispatch "$running" 2)" LIFECYCLE_SEQUENCE 2
}

test_lifecycled_restart_keeps_running_unit() {
    local unit=lc-sleep@survive.service entry invocation old_pid new_pid sequence
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    invocation=$(unit_prop "$unit" InvocationID)
    old_pid=$(unit_prop lifecycled.service MainPID)
    c_exec systemctl restart lifecycled.service # Type=notify: returns once the new one is READY
    new_pid=$(unit_prop lifecycled.service MainPID)
    [[ $new_pid != "$old_pid" && $new_pid != 0 ]] || fail "lifecycled was not restarted (MainPID $old_pid -> $new_pid)"
    run_marker lc-marker-survive.service
    assert_eq 1 "$(dispatch_count "$unit")" "dispatches of $unit after lifecycled's restart"
    assert_no_crash_notice "$unit"
    assert_eq active "$(unit_prop "$unit" ActiveState)" "ActiveState of $unit"
    assert_eq "$invocation" "$(unit_prop "$unit" InvocationID)" "InvocationID of $unit"
    sequence=$(state "$unit" .sequence)
    assert_eq 1 "$sequence" "state sequence after the restart"

    sleep 1.1 # so that the run has been awake for at least a second
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    entry=$(nth_dispatch "$unit" 2)
    assert_json_field "$entry" MESSAGE_ID "$ID_SLEEP"
    assert_json_field "$entry" LIFECYCLE_SEQUENCE $((sequence + 1))
    assert_json_field "$entry" LIFECYCLE_INVOCATION_ID "$invocation"
    assert_json_field "$entry" LIFECYCLE_LAUNCHCOUNT 1
    assert_json_field "$entry" LIFECYCLE_WAKECOUNT 1
    assert_json_field "$entry" LIFECYCLE_SLEEPCOUNT 1
    assert_json_field "$entry" LIFECYCLE_TOTALCRASHCOUNT 0
    assert_ge 1 "$(json_field "$entry" LIFECYCLE_SECONDSAWAKE)" "LIFECYCLE_SECONDSAWAKE"
    assert_eq $((sequence + 1)) "$(state "$unit" .sequence)" "state sequence"
}

# A second lifecycled on the service's state directory (started by hand beside it) would number and write every
# dispatch twice: it must refuse to start, naming the process that holds the directory, and change nothing.
test_second_lifecycled_refused() {
    local unit=lc-sleep@second.service pid out status=0
    pid=$(unit_prop lifecycled.service MainPID)
    # timeout: a second lifecycled that is not refused runs on (exit status 124).
    out=$(c_exec timeout 5 "$LIFECYCLED" 2>&1) || status=$?
    assert_eq 1 "$status" "exit status of a second lifecycled on the same state directory"
    assert_contains "$out" "in use by process $pid" "the second lifecycled's error"
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    sleep 0.5 # a second writer would have sent its own copy by now
    assert_eq 1 "$(dispatch_count "$unit")" "dispatches of $unit with a second lifecycled refused"
    assert_eq "$pid" "$(unit_prop lifecycled.service MainPID)" "MainPID of the running lifecycled"
    c_exec systemctl stop "$unit"
}

# reload_lifecycled TEXT: SIGHUP, then waits until lifecycled logs one more line containing TEXT. The signal is sent
# directly: `systemctl reload` validates first (ExecReload=lifecycled --check-config) and would never deliver it for a
# broken configuration, whose handling by the daemon itself is what these tests check.
reload_lifecycled() {
    local before
    before=$(daemon_log_count "$1")
    c_exec systemctl kill --signal=HUP --kill-whom=main lifecycled.service
    wait_daemon_log "$1" $((before + 1))
}

# assert_reload_error TEXT: lifecycled's latest reload error is at error level and contains TEXT.
assert_reload_error() {
    local entry
    entry=$(daemon_log | jq -c 'select(.MESSAGE | tostring | contains("Failed to reload the configuration"))' | tail -n 1)
    assert_json_field "$entry" PRIORITY 3
    assert_contains "$(json_field "$entry" MESSAGE)" "$1" "reload error"
}

test_sighup_with_broken_config() {
    local pid entry
    pid=$(unit_prop lifecycled.service MainPID)

    # An unknown key: refused, the old configuration stays.
    write_config '{"watch": ["lc-*.service", "hup-new-*.service"], "bogus_key": 1}'
    reload_lifecycled "Failed to reload the configuration"
    assert_reload_error "$CONFIG: bogus_key: unknown key"
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "ActiveState after a bad reload"
    assert_eq "$pid" "$(unit_prop lifecycled.service MainPID)" "MainPID after a bad reload"
    assert_contains "$(unit_prop lifecycled.service StatusText)" "$CONFIG" "StatusText after a bad reload"

    # Invalid JSON: the same.
    write_config '{"watch": ["lc-*.service", "hup-new-*.service"'
    reload_lifecycled "Failed to reload the configuration"
    assert_reload_error "$CONFIG:2:1: invalid JSON"
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "ActiveState after a second bad reload"

    # The old configuration still tracks: the lc-timeout-* rule (session_timeout 0) and lc-*.
    start_transient lc-hup-old.service
    entry=$(nth_dispatch lc-hup-old.service 1)
    assert_json_field "$entry" MESSAGE_ID "$ID_LAUNCH"
    assert_json_field "$entry" LIFECYCLE_ISFIRSTLAUNCH true
    # hup-new-* is only in the refused configurations.
    c_exec systemd-run --quiet --wait --unit=hup-new-early.service true
    run_marker lc-marker-hup.service
    assert_eq 0 "$(dispatch_count hup-new-early.service)" "dispatches of hup-new-early.service (not watched yet)"

    # A valid configuration with a new pattern takes effect.
    write_config '{"watch": [{"pattern": "lc-timeout-*.service", "session_timeout": 0}, "lc-*.service", "hup-new-*.service"]}'
    reload_lifecycled "Reloaded the configuration"
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "ActiveState after a good reload"
    assert_eq "$pid" "$(unit_prop lifecycled.service MainPID)" "MainPID after a good reload"
    # The run of the newly watched unit before the reload is rebuilt from PID 1's journal (history_from_journal), as
    # on a first start.
    wait_dispatches hup-new-early.service 2
    assert_eq "1 launch true,2 sleep true" \
        "$(dispatches hup-new-early.service | jq -r '.LIFECYCLE_SEQUENCE + " " + .LIFECYCLE_EVENT + " " + .LIFECYCLE_RECONCILED' | paste -sd, -)" \
        "dispatches of hup-new-early.service after the reload that watches it: sequence, event, reconciled"
    start_transient hup-new-x.service
    entry=$(nth_dispatch hup-new-x.service 1)
    assert_json_field "$entry" MESSAGE_ID "$ID_LAUNCH"
    assert_json_field "$entry" LIFECYCLE_ISFIRSTLAUNCH true
    # Units watched before are still tracked after the re-subscription.
    c_exec systemctl stop lc-hup-old.service
    wait_dispatches lc-hup-old.service 2
    assert_json_field "$(nth_dispatch lc-hup-old.service 2)" MESSAGE_ID "$ID_SLEEP"
    assert_json_field "$(nth_dispatch lc-hup-old.service 2)" LIFECYCLE_SEQUENCE 2
    c_exec systemctl stop hup-new-x.service
    wait_dispatches hup-new-x.service 2
}

test_corrupt_state_file() {
    local unit=lc-sleep@corrupt.service entry aside
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    assert_eq 2 "$(state "$unit" .sequence)" "state sequence before"

    c_exec systemctl stop lifecycled.service
    printf 'garbage{\n' | c_exec_stdin tee "$UNITS_DIR/$unit.json" >/dev/null
    write_config "$BASE_CONFIG" # whatever earlier tests left
    c_exec systemctl start lifecycled.service
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "ActiveState with a corrupt state file"

    aside=$(c_exec sh -c "ls -1 '$UNITS_DIR/$unit.json.corrupt-'*" 2>/dev/null | head -n 1) || true
    [[ -n $aside ]] || fail "no $UNITS_DIR/$unit.json.corrupt-* file: $(c_exec ls -1 "$UNITS_DIR")"
    assert_eq "garbage{" "$(c_exec cat "$aside")" "content of $aside"
    # Rebuilt from the unit's own dispatches in the journal: its launch and its sleep.
    assert_eq "2 1 1" "$(state "$unit" '"\(.sequence) \(.state.count_total_launch) \(.state.count_total_sleep)"')" \
        "rebuilt state: sequence, launches, sleeps"
    entry=$(daemon_log | jq -c --arg f "$aside" 'select(.MESSAGE | tostring | contains($f))' | tail -n 1)
    [[ -n $entry ]] || fail "no log line names $aside"
    assert_json_field "$entry" PRIORITY 4

    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 3
    entry=$(nth_dispatch "$unit" 3)
    # A wake within the session, numbered on: the unit's past survived its corrupt state file.
    assert_json_field "$entry" MESSAGE_ID "$ID_WAKE"
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 3
    assert_json_field "$entry" LIFECYCLE_TOTALLAUNCHCOUNT 1
    assert_json_field "$entry" LIFECYCLE_WAKECOUNT 2
    c_exec test -f "$UNITS_DIR/$unit.json"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 4
}

# docs/engine-semantics.md §10, "Runs of a systemd unit": a daemon-reload itself is no event, but a run that begins or
# ends right after one is a real run.
test_start_right_after_daemon_reload() {
    local i unit known=lc-sleep@reload-known.service problems=() count entry
    # New units, started the moment the reload is over.
    for i in 1 2 3 4 5 6; do
        c_exec sh -c "systemctl daemon-reload && systemctl start lc-sleep@reload-new$i.service"
    done
    # A known unit, restarted the moment the reload is over.
    c_exec systemctl start "$known"
    wait_dispatches "$known" 1
    for i in 1 2 3 4 5 6; do
        c_exec sh -c "systemctl daemon-reload && systemctl restart $known"
    done
    wait_resyncs_settled 1
    run_marker lc-marker-reload.service

    for i in 1 2 3 4 5 6; do
        unit=lc-sleep@reload-new$i.service
        count=$(dispatches "$unit" | jq -r --arg id "$ID_LAUNCH" 'select(.MESSAGE_ID == $id) | .MESSAGE' | grep -c . || true)
        ((count == 1)) || problems+=("$unit, started right after a daemon-reload: expected 1 launch, got $count")
        c_exec systemctl stop "$unit"
    done
    count=$(dispatch_count "$known")
    ((count == 13)) || problems+=("$known: expected 13 dispatches (launch, then sleep and wake for each of 6 restarts right after a daemon-reload), got $count:"$'\n'"$(
        dispatches "$known" | jq -r '"      " + .LIFECYCLE_SEQUENCE + " " + .LIFECYCLE_INVOCATION_ID + " " + .MESSAGE')")
    entry=$(dispatches "$known" | tail -n 1)
    [[ $(json_field "$entry" LIFECYCLE_TOTALCRASHCOUNT) == 0 ]] ||
        problems+=("$known: clean restarts were counted as crashes: $(json_field "$entry" MESSAGE)")
    [[ $(json_field "$entry" LIFECYCLE_WAKECOUNT) == 7 && $(json_field "$entry" LIFECYCLE_LAUNCHCOUNT) == 1 ]] ||
        problems+=("$known: last dispatch should be wake #7 of launch 1, got: $(json_field "$entry" MESSAGE)")
    c_exec systemctl stop "$known"
    if ((${#problems[@]})); then
        printf '  %s\n' "${problems[@]}" >&2
        fail "${#problems[@]} problem(s) after starts and restarts right after a daemon-reload"
    fi
}

# docs/guarantees.md, "Reliability": nothing is lost across lifecycled's own restart; a clean stop it did not see is
# still a sleep, so the next start is not a crash.
test_stop_while_lifecycled_is_down() {
    local unit=lc-sleep@while-down.service first entry
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    first=$(unit_prop "$unit" InvocationID)
    c_exec systemctl stop lifecycled.service
    c_exec systemctl stop "$unit"
    c_exec systemctl start lifecycled.service
    c_exec systemctl start "$unit"
    run_marker lc-marker-while-down.service # lifecycled handles events in order: the unit's come first
    local listing
    listing=$(dispatches "$unit" | jq -r '"    " + .LIFECYCLE_SEQUENCE + " " + .LIFECYCLE_INVOCATION_ID + " " + .MESSAGE')
    entry=$(dispatches "$unit" | jq -c --arg id "$first" 'select(.LIFECYCLE_EVENT == "sleep" and .LIFECYCLE_INVOCATION_ID == $id)')
    [[ -n $entry ]] || fail "no sleep recorded for run $first, stopped cleanly while lifecycled was down; dispatches:"$'\n'"$listing"
    entry=$(dispatches "$unit" | tail -n 1)
    assert_json_field "$entry" MESSAGE_ID "$ID_WAKE" "last dispatch of $unit ($(json_field "$entry" MESSAGE))"
    assert_json_field "$entry" LIFECYCLE_TOTALCRASHCOUNT 0
    c_exec systemctl stop "$unit"
}

# The state files, as NAME<TAB>sha256 lines.
state_digests() { c_exec sh -c "cd '$UNITS_DIR' && sha256sum -- *.json" | awk '{ print $2 "\t" $1 }' | sort; }
# True when no state file holds a dispatch the journal has not confirmed yet (the confirmation saves the file again).
nothing_pending_anywhere() {
    [[ $(c_exec sh -c "cat '$UNITS_DIR'/*.json" | jq -s 'map(.pending_dispatches // [] | length) | add') == 0 ]]
}

test_state_survives_and_clean_stop() {
    local before after files loaded
    wait_for "$WAIT" nothing_pending_anywhere || fail "dispatches still unconfirmed in the state files"
    before=$(state_digests)
    files=$(grep -c . <<<"$before")
    ((files >= 10)) || fail "expected the state files of the earlier tests, got $files: $before"
    c_exec systemctl restart lifecycled.service
    after=$(state_digests)
    assert_eq "$before" "$after" "state files after restarting lifecycled"
    loaded=$(daemon_log | jq -r 'select(.MESSAGE | tostring | startswith("Loaded ")) | .MESSAGE' | tail -n 1)
    assert_eq "Loaded $files unit state files from $UNITS_DIR" "$loaded" "start-up log line"

    local pid
    pid=$(unit_prop lifecycled.service MainPID)
    assert_status 0 c_exec timeout 30 systemctl stop lifecycled.service
    assert_eq inactive "$(unit_prop lifecycled.service ActiveState)" "ActiveState after stop"
    assert_eq success "$(unit_prop lifecycled.service Result)" "Result after stop"
    assert_eq 1 "$(unit_prop lifecycled.service ExecMainCode)" "ExecMainCode (1 = exited, 2 = killed, 3 = dumped)"
    assert_eq 0 "$(unit_prop lifecycled.service ExecMainStatus)" "ExecMainStatus"
    local stopped
    stopped=$(daemon_log | jq -r --arg pid "$pid" 'select(._PID == $pid and (.MESSAGE | tostring | startswith("Stopped after "))) | .MESSAGE')
    [[ -n $stopped ]] || fail "lifecycled (PID $pid) did not log 'Stopped after N dispatches'"
    local cores
    cores=$(c_exec journalctl --no-pager -o json -u lifecycled.service |
        jq -r 'select((.MESSAGE | tostring | test("core|dumped"; "i")) or .UNIT_RESULT == "core-dump") | .MESSAGE')
    [[ -z $cores ]] || fail "core dump reported: $cores"
    assert_eq "$before" "$(state_digests)" "state files after stopping lifecycled"
}

is_activating() { [[ $(unit_prop "$1" ActiveState) == activating ]]; }
is_active() { [[ $(unit_prop "$1" ActiveState) == active ]]; }
# state_sequence_is UNIT N: UNIT's state file numbers its last dispatch N (made, whether or not in the journal yet).
state_sequence_is() { [[ $(state "$1" .sequence) == "$2" ]]; }

# A run seen while still activating: its begin waits for the start-up, and the unit's custom event made meanwhile
# waits behind it. Stopping lifecycled while a begin waits writes it before lifecycled exits; a SIGKILL leaves it in
# the state file, and the next start sends it once. Each without the start-up, which its end then carries.
test_begin_waits_for_startup() {
    local unit=lc-slowpre.service entry startup
    c_exec systemctl start --no-block "$unit"
    wait_for "$WAIT" is_activating "$unit"
    wait_for "$WAIT" state_sequence_is "$unit" 1
    c_exec "$PREFIX_INSIDE/bin/lifecyclectl" track "$unit" deployed >/dev/null
    assert_eq 0 "$(dispatch_count "$unit")" "dispatches of $unit in the journal while it starts"
    wait_dispatches "$unit" 2
    entry=$(nth_dispatch "$unit" 1)
    assert_json_field "$entry" LIFECYCLE_EVENT launch
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 1
    startup=$(json_field "$entry" LIFECYCLE_RUN_STARTUP_SECONDS)
    awk -v v="$startup" 'BEGIN { exit !(v != "" && v >= 2.9 && v <= 6) }' ||
        fail "LIFECYCLE_RUN_STARTUP_SECONDS on the launch of a start with ExecStartPre=/bin/sleep 3: '$startup'"
    entry=$(nth_dispatch "$unit" 2)
    assert_json_field "$entry" LIFECYCLE_EVENT deployed
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 2

    # lifecycled stopped while the next run starts.
    c_exec systemctl restart --no-block "$unit"
    wait_for "$WAIT" state_sequence_is "$unit" 4 # the sleep, and the wake that waits
    wait_for "$WAIT" is_activating "$unit"
    c_exec systemctl stop lifecycled.service
    wait_dispatches "$unit" 4
    entry=$(nth_dispatch "$unit" 4)
    assert_json_field "$entry" LIFECYCLE_EVENT wake
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 4
    assert_json_field "$entry" LIFECYCLE_RUN_STARTUP_SECONDS ""
    c_exec systemctl start lifecycled.service
    wait_for "$WAIT" is_active "$unit"

    # lifecycled SIGKILLed while the next run starts (Restart=on-failure starts it again). Its main process only: on
    # this hybrid cgroup v1 host, signalling the whole control group fails now and then with EIO.
    c_exec systemctl restart --no-block "$unit"
    wait_for "$WAIT" state_sequence_is "$unit" 6
    is_activating "$unit" || fail "$unit was no longer starting when lifecycled was to be killed"
    c_exec systemctl kill --kill-whom=main -s KILL lifecycled.service
    wait_dispatches "$unit" 6
    wait_for "$WAIT" is_active "$unit"
    wait_for "$WAIT" nothing_pending "$unit"
    assert_eq 6 "$(dispatch_count "$unit")" "dispatches of $unit: its wake sent once after the SIGKILL"
    entry=$(nth_dispatch "$unit" 6)
    assert_json_field "$entry" LIFECYCLE_EVENT wake
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 6
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 7
    startup=$(json_field "$(nth_dispatch "$unit" 7)" LIFECYCLE_RUN_STARTUP_SECONDS)
    awk -v v="$startup" 'BEGIN { exit !(v != "" && v >= 2.9 && v <= 6) }' ||
        fail "LIFECYCLE_RUN_STARTUP_SECONDS on the sleep after a wake written without it: '$startup'"
}

# --- run -----------------------------------------------------------------------------------------------------------

container_install_trap
container_boot "lc-daemon-$$" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
echo "container lc-daemon-$$ booted in $CONTAINER_BOOT_SECONDS s"
copy_test_units

run_test "install.sh installs and starts lifecycled; --check-config" test_install
if ! c_exec systemctl is-active --quiet lifecycled.service; then
    echo "lifecycled is not running: the other tests are skipped" >&2
    c_exec journalctl --no-pager -u lifecycled.service >&2 || true
    container_poweroff
    finish_tests || true
    exit 1
fi
run_test "first start is a first launch" test_first_start
run_test "stop is a sleep with seconds awake" test_stop_sleeps
run_test "the journal's thread runs 10 nicer than the loop's" test_journal_thread_niced
run_test "restart within the session is sleep then wake" test_restart_sleeps_and_wakes
run_test "start after the session timeout is a launch" test_start_after_session_timeout
run_test "SIGKILL with Restart=on-failure: crash notice, then a crash launch" test_sigkill_is_a_crash
run_test "failed start (exit 203): crash notice" test_failed_start_is_a_crash
run_test "oneshot: launch then sleep" test_oneshot
run_test "transient unit exiting 0: launch, sleep, state kept" test_transient_exit_0
run_test "transient units collected before lifecycled saw them start are recorded, never asked about by name" \
    test_collected_units_not_loaded_again
run_test "replaced executable: update launch" test_executable_replaced
run_test "daemon-reload and daemon-reexec dispatch nothing" test_reload_and_reexec_dispatch_nothing
run_test "restart of lifecycled: no dispatch, state survives" test_lifecycled_restart_keeps_running_unit
run_test "SIGHUP: a broken configuration is refused, a good one applies, the units it adds rebuilt from PID 1's journal" \
    test_sighup_with_broken_config
run_test "a second lifecycled on the same state directory refuses to start" test_second_lifecycled_refused
run_test "corrupt state file is moved aside, the unit is rebuilt from its dispatches" test_corrupt_state_file
run_test "a unit started or restarted right after daemon-reload is tracked" test_start_right_after_daemon_reload
run_test "a clean stop while lifecycled is down is a sleep, not a crash" test_stop_while_lifecycled_is_down
run_test "a begin seen activating waits for its start-up, a custom event behind it; stopping or killing lifecycled meanwhile loses and repeats nothing" \
    test_begin_waits_for_startup
run_test "state files survive a restart; clean stop" test_state_survives_and_clean_stop

container_poweroff
if ((_tests_failed == 0)); then # from lib/assert.sh
    rm -rf "$work"
else
    echo "console log kept in $work"
fi
finish_tests # the last line: "N passed, N failed"
