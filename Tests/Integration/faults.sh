#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# lifecycled under faults, against a real systemd (docs/guarantees.md, "Reliability"): boots this machine's root as a
# throw-away container, installs lifecycled with scripts/install.sh and checks that no transition is lost, invented or
# duplicated when lifecycled is killed with SIGKILL during a churn of units, when the bus daemon restarts, when
# systemd re-executes, when the state file system is full, when the state directory is read-only or missing (then
# lifecycled is degraded, and heals by itself once the directory is writable again), when a state file is truncated
# and when the journal refuses writes (also combined with a SIGKILL), drops entries (its rate limit), stalls or
# rotates its file during a churn, when retention removes delivered dispatches and the saved journal position, after
# the wall clock was set back or stepped, for starts that ExecCondition= skips and units PID 1 logs nothing of; that
# a unit whose name is 250 bytes keeps its state file over a restart; and that hostile configuration files, D-Bus
# calls and replay lines get clear errors. One container for the whole suite, about a minute; FAULTS_TESTS=REGEX runs
# only matching tests.
# Needs root, systemd-container and jq (python3 with GObject introspection inside the container, when present, sends
# the 1 MB D-Bus strings that busctl's argument size limit cannot).
# Usage: Tests/Integration/faults.sh BUILD_DIR      (the release build: scripts/test passes it)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"
# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"
suite_preflight faults.sh "$@"

# PID 1's own entries about a run (docs/systemd.md, "PID 1's journal entries about a run").
readonly PID1_STARTED=39f53479d3a045ac8e11786248231fbf PID1_SUCCESS=7ad2d189f7e94e70a38c781354912448 \
    PID1_FAILED=d9b373ed55a64feb8242e02dbe79a49c PID1_PROCESS_EXIT=98e322203f7a4ed290d09fe03c09fe15 \
    PID1_SKIPPED=0e4284a0caca4bfc81c0bb6786972673
readonly LIFECYCLED=$PREFIX_INSIDE/bin/lifecycled CTL=$PREFIX_INSIDE/bin/lifecyclectl
readonly CONFIG=/etc/lifecycled/lifecycled.json
readonly STATE_DIR=/var/lib/lifecycled UNITS_DIR=/var/lib/lifecycled/units
readonly NAME=org.lifecycled.Lifecycle1 OBJECT=/org/lifecycled/Lifecycle1 INTERFACE=org.lifecycled.Lifecycle1.Manager
# job-* report their own lifecycle; lc-*.service are autotracked. Debug level: lifecycled then logs each resync.
readonly BASE_CONFIG='{"watch": [{"pattern": "job-*", "autotracking_enabled": false}, "lc-*.service"], "log_level": "debug"}'
readonly WAIT=20  # seconds any polled condition may take
readonly KILLS=6  # SIGKILLs of lifecycled during the churn
# The churn's units: transient lc-f-N.service and the long-running lc-sleep@fk-*.service (fr-* in the rotation test).
readonly CHURN_RE='^(lc-f-[0-9]+|lc-sleep@f[kr]-[a-z]+)\.service$'

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-faults.XXXXXX")
export CONTAINER_LOG_DIR=$work

# --- helpers -------------------------------------------------------------------------------------------------------

lifecycled_pid() { unit_prop lifecycled.service MainPID; }

# One line per dispatch of UNIT: "SEQUENCE EVENT INVOCATION [reconciled] MESSAGE", for failure messages.
dispatch_listing() {
    dispatches "$1" | jq -r '"    " + ([.LIFECYCLE_SEQUENCE, .LIFECYCLE_EVENT, (.LIFECYCLE_INVOCATION_ID // "-"),
        (if .LIFECYCLE_RECONCILED == "true" then "reconciled" else "" end), .MESSAGE] | join(" "))'
}
# The "SEQUENCE EVENT" pairs of UNIT's dispatches, space-separated, e.g. "1 launch,2 sleep".
dispatch_summary() { dispatches "$1" | jq -r '.LIFECYCLE_SEQUENCE + " " + .LIFECYCLE_EVENT' | paste -sd, -; }

# last_daemon_log TEXT: lifecycled's latest log line containing TEXT, as a JSON object.
last_daemon_log() { daemon_log | jq -c --arg t "$1" 'select(.MESSAGE | tostring | contains($t))' | tail -n 1; }

# The counters of UNIT's state file as "sequence=… launch=… wake=… sleep=… crash=… last=…".
state_counters() {
    state "$1" '"sequence=\(.sequence) launch=\(.state.count_total_launch) wake=\(.state.count_total_wake) sleep=\(.state.count_total_sleep) crash=\(.state.count_total_crash) last=\(.state.last_event)"'
}

lifecycled_active() { [[ $(unit_prop lifecycled.service ActiveState) == active ]]; }
# lifecycled_replaced OLD_PID: lifecycled is active again under another PID.
lifecycled_replaced() {
    local pid
    pid=$(lifecycled_pid)
    [[ $pid != 0 && $pid != "$1" ]] && lifecycled_active
}
name_owned() {
    [[ $(c_exec busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s $NAME) == "b true" ]]
}

# call_error METHOD ARGS...: the D-Bus error name of a call of lifecycled's Manager, via dbus-send (empty on success).
call_error() {
    local method=$1
    shift
    { c_exec dbus-send --system --print-reply --dest=$NAME $OBJECT "$INTERFACE.$method" "$@" 2>&1 || true; } |
        sed -n 's/^Error \([^:]*\):.*/\1/p'
}

# report_problems TITLE LINE...: prints the lines (at most 40) and fails when there is any.
report_problems() {
    local title=$1
    shift
    (($#)) || return 0
    printf '  %s\n' "$@" | head -n 40 >&2
    (($# <= 40)) || printf '  … and %d more\n' $(($# - 40)) >&2
    fail "$title: $# problem(s)"
}

# --- 1. SIGKILL during a churn of units ----------------------------------------------------------------------------

# Runs inside the container (churn.sh FIRST LONG): transient units lc-f-N (N from FIRST + 1) that exit 0 after up to
# 0.4 s, and every third round a start or stop of one of three long-running units (lc-sleep@LONG-a, -b, -c), until
# /run/lc-faults-stop exists; then stops the long-running ones.
write_churn_script() {
    cat >"$work/churn.sh" <<'EOF'
#!/bin/bash
i=$1
longs=("$2-a" "$2-b" "$2-c")
while [[ ! -e /run/lc-faults-stop ]]; do
    i=$((i + 1))
    systemd-run --quiet --unit="lc-f-$i.service" sh -c "sleep 0.$((RANDOM % 5))" || echo "systemd-run lc-f-$i failed" >&2
    if ((i % 3 == 0)); then
        unit="lc-sleep@${longs[RANDOM % 3]}.service"
        if systemctl is-active --quiet "$unit"; then systemctl stop "$unit"; else systemctl start "$unit"; fi
    fi
    sleep "0.0$((RANDOM % 10))"
done
for long in "${longs[@]}"; do systemctl stop "lc-sleep@$long.service"; done
echo "$i transient units"
EOF
}

# random_seconds MIN MAX: a random duration in seconds, with milliseconds.
random_seconds() { awk -v a="$1" -v b="$2" -v r="$RANDOM" 'BEGIN { printf "%.3f", a + (b - a) * r / 32767 }'; }

# start_churn FIRST LONG: starts churn.sh FIRST LONG in the background (its PID in churn_pid); end_churn stops it,
# checks that every systemd-run went through (the output in churn_lines) and waits until none of its units runs.
start_churn() {
    write_churn_script
    c_copy "$work/churn.sh" /opt/lc-faults/churn.sh 0755
    c_exec rm -f /run/lc-faults-stop
    c_exec /opt/lc-faults/churn.sh "$1" "$2" >"$work/churn.log" 2>&1 &
    churn_pid=$!
    # If the test stops early, the churn must stop too.
    trap 'c_exec touch /run/lc-faults-stop 2>/dev/null || true; wait '"$churn_pid"' 2>/dev/null || true' EXIT
}

end_churn() {
    c_exec touch /run/lc-faults-stop
    wait "$churn_pid" || fail "the churn script failed: $(cat "$work/churn.log")"
    trap - EXIT
    churn_lines=$(cat "$work/churn.log")
    [[ $churn_lines != *failed* ]] || fail "systemd-run failed during the churn: $churn_lines"
    wait_for 30 not churn_units_running
}

churn_units_running() {
    [[ -n $(c_exec systemctl list-units --no-legend --plain --state=active,activating,deactivating 'lc-f-*' 'lc-sleep@f?-*') ]]
}

# analyse_churn [REGEX]: compares every run PID 1 recorded for the churn's units (those REGEX matches, CHURN_RE by
# default) with lifecycled's dispatches and state files; prints one problem per line (none when all is well) and a
# summary line.
analyse_churn() {
    local re=${1:-$CHURN_RE} pid1 disp states windows
    c_exec journalctl --sync
    pid1=$(c_exec journalctl --no-pager -o json _PID=1 MESSAGE_ID=$PID1_STARTED MESSAGE_ID=$PID1_SUCCESS \
        MESSAGE_ID=$PID1_FAILED --output-fields=MESSAGE_ID,UNIT,INVOCATION_ID |
        jq -c --arg re "$re" 'select((.UNIT // "") | test($re)) |
            {u: .UNIT, inv: .INVOCATION_ID, id: .MESSAGE_ID, ts: (.__REALTIME_TIMESTAMP | tonumber)}' | jq -s -c .)
    disp=$(c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled _UID=0 \
        --output-fields=LIFECYCLE_UNIT,LIFECYCLE_EVENT,LIFECYCLE_SEQUENCE,LIFECYCLE_INVOCATION_ID,LIFECYCLE_RECONCILED,_PID |
        jq -c --arg re "$re" 'select(.LIFECYCLE_EVENT and ((.LIFECYCLE_UNIT // "") | test($re))) |
            {u: .LIFECYCLE_UNIT, ev: .LIFECYCLE_EVENT, seq: (.LIFECYCLE_SEQUENCE | tonumber), inv: (.LIFECYCLE_INVOCATION_ID // ""),
             rec: (.LIFECYCLE_RECONCILED == "true"), pid: ._PID, ts: (.__REALTIME_TIMESTAMP | tonumber)}' | jq -s -c .)
    states=$(c_exec sh -c "cd '$UNITS_DIR' && for f in lc-f-*.json lc-sleep@f?-*.json; do [ -e \"\$f\" ] && cat \"\$f\"; done; true" |
        jq -c --arg re "$re" 'select(.unit | test($re)) | {unit, sequence, state}' | jq -s -c .)
    # lifecycled's down times: from PID 1's "Main process exited" to its next "Started lifecycled.service" (READY=1).
    windows=$(c_exec journalctl --no-pager -o json _PID=1 UNIT=lifecycled.service MESSAGE_ID=$PID1_PROCESS_EXIT \
        MESSAGE_ID=$PID1_STARTED --output-fields=MESSAGE_ID |
        jq -c '{id: .MESSAGE_ID, ts: (.__REALTIME_TIMESTAMP | tonumber)}' | jq -s -c --arg exit $PID1_PROCESS_EXIT '
            reduce .[] as $e ({open: null, out: []};
                if $e.id == $exit then (if .open == null then .open = $e.ts else . end)
                elif .open != null then .out += [{down: .open, up: $e.ts}] | .open = null
                else . end) | .out')
    printf '%s\n' "$pid1" >"$work/churn-pid1.json"
    printf '%s\n' "$disp" >"$work/churn-dispatches.json"
    printf '%s\n' "$states" >"$work/churn-states.json"
    printf '%s\n' "$windows" >"$work/churn-windows.json"
    jq -n -r --slurpfile pid1 "$work/churn-pid1.json" --slurpfile disp "$work/churn-dispatches.json" \
        --slurpfile states "$work/churn-states.json" --slurpfile windows "$work/churn-windows.json" \
        --arg started $PID1_STARTED --arg success $PID1_SUCCESS --arg failure $PID1_FAILED -f /dev/stdin <<'JQ'
def ms: (. / 1000000 | floor | strftime("%H:%M:%S")) + "." + ((. / 1000 | floor) % 1000 | tostring | ("00" + .)[-3:]);
# PID 1 logs lifecycled's death a moment after it happened: a run that began up to 0.5 s before counts as "around".
def down($t): [$windows[0][] | select(.down - 500000 <= $t and $t <= .up)]
    | if length > 0 then
        (if $t < .[0].down then ", \((.[0].down - $t) / 1000 | floor) ms before PID 1 logged lifecycled's death" else "" end)
        + ", lifecycled down \(.[0].down | ms)-\(.[0].up | ms)"
      else "" end;
def begins: map(select(.ev == "launch" or .ev == "wake"));
def seqs: map(.seq | tostring) | join(",");
($pid1[0] | group_by([.u, .inv]) | map({u: .[0].u, inv: .[0].inv,
    started: ([.[] | select(.id == $started) | .ts] | first),
    ended: ([.[] | select(.id == $success) | .ts] | first),
    failed: any(.[]; .id == $failure)})) as $runs
| ($disp[0] | group_by([.u, .inv]) | map({key: "\(.[0].u) \(.[0].inv)", value: .}) | from_entries) as $by_run
| ($runs | map({key: "\(.u) \(.inv)", value: true}) | from_entries) as $known_runs
| ($states[0] | map({key: .unit, value: .}) | from_entries) as $state
| ([$runs[].u] + [$disp[0][].u] | unique) as $units
| [
    ($runs[] | . as $r | ($by_run["\($r.u) \($r.inv)"] // []) as $d
        | ($d | begins) as $b | ($d | map(select(.ev == "sleep"))) as $e
        | ([(if $r.started != null and ($b | length) == 0 then "no launch/wake" else empty end),
            (if $r.ended != null and ($e | length) == 0 then "no sleep" else empty end)]) as $missing
        | (if ($missing | length) > 0 then
              "lost: \($r.u) run \($r.inv): \($missing | join(", "))"
              + (if $state[$r.u] == null then ", and no state file" else "" end)
              + " (PID 1: "
              + ([(if $r.started != null then "Started at \($r.started | ms)\(down($r.started))" else empty end),
                  (if $r.ended != null then "Deactivated successfully at \($r.ended | ms)\(down($r.ended))" else empty end)]
                 | join("; ")) + ")"
           else empty end),
          (if ($b | length) > 1 then
              "duplicated begin: \($r.u) run \($r.inv) has \($b | length) launch/wake dispatches, sequences \($b | seqs)"
           else empty end),
          (if ($e | length) > 1 then
              "duplicated end: \($r.u) run \($r.inv) has \($e | length) sleeps, sequences \($e | seqs)"
           else empty end),
          (if $r.failed then "failed run: \($r.u) run \($r.inv) failed (the churn's units all exit 0)" else empty end)),
    ($disp[0][] | select(.ev == "launch" or .ev == "wake" or .ev == "sleep" or .ev == "crash")
        | select($known_runs["\(.u) \(.inv)"] | not)
        | "invented: \(.u) \(.ev) sequence \(.seq) for run '\(.inv)', which PID 1 never recorded"),
    ($disp[0] | group_by(.u)[] | . as $d | ($d[0].u) as $u | ($d | map(.seq)) as $s
        | ($s | group_by(.) | map(select(length > 1) | "\(.[0]) x\(length)") | join(", ")) as $dups
        | (if $dups != "" then "duplicated sequence: \($u): \($dups) (\($d | map("\(.seq) \(.ev)") | join(", ")))" else empty end),
          (($s | unique) as $us | ($us | max) as $max
            | if $us != [range(1; $max + 1)] then
                "sequence gap: \($u): \($us | map(tostring) | join(",")) is not 1..\($max)"
              else empty end),
          (if $state[$u] == null then empty
           elif $state[$u].sequence != ($s | max) then
               "state sequence: \($u): state file says \($state[$u].sequence), the journal's last is \($s | max)"
           else empty end)),
    ($units[] | . as $u | [$runs[] | select(.u == $u)] as $ur
        | ($ur | map(select(.started != null)) | length) as $starts
        | ($ur | map(select(.ended != null)) | length) as $clean
        | if $state[$u] == null then
            (if $disp[0] | any(.u == $u) then "no state file: \($u), which systemd ran \($starts) time(s)" else empty end)
          else ($state[$u].state) as $c
            | ([(if $c.count_total_wake != $starts then "count_total_wake \($c.count_total_wake), but PID 1 started it \($starts) time(s)" else empty end),
                (if $c.count_total_sleep != $clean then "count_total_sleep \($c.count_total_sleep), but PID 1 recorded \($clean) clean end(s)" else empty end),
                (if $c.count_total_launch != 1 then "count_total_launch \($c.count_total_launch), expected 1 (every later run is a wake within the session)" else empty end),
                (if $c.count_total_crash != 0 then "count_total_crash \($c.count_total_crash), expected 0 (no run failed)" else empty end)]
              | if length > 0 then "counters: \($u): " + join("; ") else empty end)
          end)
  ] as $problems
| ($problems[]),
  ("SUMMARY \($runs | length) runs of \($units | length) units, \($disp[0] | length) dispatches (\($disp[0] | map(select(.rec)) | length) reconciled), \($windows[0] | length) down times of lifecycled: \($windows[0] | map("\(.down | ms)-\(.up | ms)") | join(" "))")
JQ
}

test_kill9_during_churn() {
    local i old_pid restarts_before restarts_after output summary kill_log=()
    restarts_before=$(unit_prop lifecycled.service NRestarts)
    start_churn 0 fk

    for ((i = 1; i <= KILLS; i++)); do
        if ((i == 3)); then
            # The moment the new lifecycled exists: it is loading its state files, reconciling or re-sending.
            kill_log+=("kill $i: $(c_exec timeout "$WAIT" sh -c "$KILL_ON_RESTART" sh "$old_pid")")
            old_pid=${kill_log[-1]#*PID }
            old_pid=${old_pid%%,*}
        else
            # At a random moment, at least ~2.5 s after the last start (5 starts in 10 s would hit the start limit).
            sleep "$(random_seconds 2.2 3.6)"
            old_pid=$(lifecycled_pid)
            [[ $old_pid != 0 ]] || fail "lifecycled has no main process before kill $i"
            kill_log+=("kill $i: PID $old_pid, $(unit_prop lifecycled.service ActiveState)/$(unit_prop lifecycled.service SubState)")
            c_exec kill -KILL "$old_pid"
        fi
        if ((i != 2)); then
            wait_for "$WAIT" lifecycled_replaced "$old_pid"
        fi
    done
    wait_for "$WAIT" lifecycled_replaced "$old_pid"
    end_churn
    printf '  %s\n' "${kill_log[@]}"
    printf '  churn: %s\n' "$churn_lines"
    restarts_after=$(unit_prop lifecycled.service NRestarts)
    assert_eq $((restarts_before + KILLS)) "$restarts_after" "NRestarts of lifecycled after $KILLS SIGKILLs"
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "ActiveState of lifecycled after the churn"
    run_marker lc-marker-churn.service

    output=$(analyse_churn)
    summary=$(grep '^SUMMARY ' <<<"$output" | sed 's/^SUMMARY //')
    printf '  %s\n' "$summary"
    printf '  lifecycled re-sent %s dispatches at start ("Sending again dispatch"); starts: %s\n' \
        "$(daemon_log_count "Sending again dispatch")" "$(daemon_log_count "Loaded ")"
    local problems=()
    mapfile -t problems < <(grep -v '^SUMMARY ' <<<"$output" | grep . || true)
    if ((${#problems[@]})); then
        local kind
        local n
        for kind in "lost" "duplicated begin" "duplicated end" "duplicated sequence" "sequence gap" \
            "state sequence" "invented" "failed run" "no state file" "counters"; do
            n=$(printf '%s\n' "${problems[@]}" | grep -c "^$kind:" || true)
            ((n == 0)) || printf '  %s: %d\n' "$kind" "$n" >&2
        done
        n=$(printf '%s\n' "${problems[@]}" | grep '^lost:' | grep -c 'no launch/wake' || true)
        printf '  runs without their launch/wake: %d, without their sleep: %d; lost runs that began while lifecycled was down or being killed: %d\n' \
            "$n" "$(printf '%s\n' "${problems[@]}" | grep '^lost:' | grep -c 'no sleep' || true)" \
            "$(printf '%s\n' "${problems[@]}" | grep '^lost:' | grep -c 'Started at [^;]*lifecycled down' || true)" >&2
    fi
    report_problems "runs of the churn against lifecycled's dispatches and state files" "${problems[@]}"
}
# Runs inside (sh -c SCRIPT sh OLD_PID): waits for lifecycled's next main process and kills it at once, during its
# start-up; prints "PID P, STATE/SUBSTATE".
# shellcheck disable=SC2016 # expanded inside the container
readonly KILL_ON_RESTART='
while :; do
    eval "$(systemctl show -p MainPID -p ActiveState -p SubState lifecycled.service)"
    if [ "$MainPID" != 0 ] && [ "$MainPID" != "$1" ]; then
        kill -KILL "$MainPID" && echo "PID $MainPID, $ActiveState/$SubState" && exit 0
    fi
done'
not() { ! "$@"; }

# The class of run the churn loses, made deterministic: a unit with no state file that starts while lifecycled is
# down (here stopped cleanly) and is still running when lifecycled starts.
test_new_unit_started_while_down() {
    local unit=lc-sleep@new-while-down.service invocation got
    c_exec systemctl stop lifecycled.service
    c_exec systemctl start "$unit"
    invocation=$(unit_prop "$unit" InvocationID)
    c_exec systemctl start lifecycled.service
    c_exec systemctl stop "$unit"
    run_marker lc-marker-new-while-down.service
    got=$(dispatch_summary "$unit")
    [[ $got == "1 launch,2 sleep" ]] || fail "$unit, first started (run $invocation) while lifecycled was stopped," \
        "then stopped after lifecycled started: expected '1 launch,2 sleep', got '${got:-none}'; lifecycled's log about it:"$'\n'"$(
            daemon_log | jq -r --arg u "$unit" 'select(.MESSAGE | tostring | contains($u)) | "    " + .MESSAGE')"
}

# --- 2. restart of the bus daemon ----------------------------------------------------------------------------------

test_dbus_restart() {
    local before_up=lc-sleep@db-up.service during=lc-sleep@db-during.service after=lc-sleep@db-after.service
    local reconnects resyncs entry invocation started_during
    c_exec systemctl start "$before_up"
    wait_dispatches "$before_up" 1
    reconnects=$(daemon_log_count "Reconnected to the bus")
    resyncs=$(resync_count)

    # The second unit starts right after the bus daemon is back, before lifecycled has reconnected.
    c_exec sh -c "systemctl restart dbus.service && systemctl start $during"
    started_during=$(unit_prop "$during" InvocationID)
    wait_daemon_log "Reconnected to the bus" $((reconnects + 1))
    c_exec journalctl --sync
    printf '  %s started at %s; lifecycled reconnected at %s\n' "$during" "$(
        c_exec journalctl --no-pager -o short-precise _PID=1 MESSAGE_ID=$PID1_STARTED "INVOCATION_ID=$started_during" |
            awk '{ print $3 }' | tail -n 1)" "$(last_daemon_log "Reconnected to the bus" | jq -r '.__REALTIME_TIMESTAMP | tonumber |
            ((. / 1000000 | floor | strftime("%H:%M:%S")) + "." + (. % 1000000 | tostring | ("00000" + .)[-6:]))')"
    wait_resyncs_settled $((resyncs + 1))
    entry=$(last_daemon_log "Lost the connection to the bus")
    [[ -n $entry ]] || fail "lifecycled logged no lost connection"
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "ActiveState of lifecycled"
    assert_eq 0 "$(unit_prop lifecycled.service NRestarts)" "NRestarts of lifecycled"

    # A start and a stop after the reconnection are tracked.
    c_exec systemctl start "$after"
    wait_dispatches "$after" 1
    invocation=$(unit_prop "$after" InvocationID)
    c_exec systemctl stop "$after"
    wait_dispatches "$after" 2
    assert_eq "1 launch,2 sleep" "$(dispatch_summary "$after")" "dispatches of $after, started after the reconnection"
    assert_json_field "$(nth_dispatch "$after" 2)" LIFECYCLE_INVOCATION_ID "$invocation"

    # The unit that ran across the restart keeps its sequence.
    c_exec systemctl stop "$before_up"
    wait_dispatches "$before_up" 2
    assert_eq "1 launch,2 sleep" "$(dispatch_summary "$before_up")" "dispatches of $before_up, running across the restart"

    # The unit started while lifecycled was disconnected: its launch and, once stopped, its sleep.
    c_exec systemctl stop "$during"
    run_marker lc-marker-dbus.service
    local got
    got=$(dispatch_summary "$during")
    [[ $got == "1 launch,2 sleep" ]] || fail "$during, started (run $started_during) while lifecycled was disconnected" \
        "from the bus, then stopped: expected dispatches '1 launch,2 sleep', got '${got:-none}':"$'\n'"$(dispatch_listing "$during")"$'\n'"  lifecycled's log about it:"$'\n'"$(
            daemon_log | jq -r --arg u "$during" 'select(.MESSAGE | tostring | contains($u)) | "    " + .MESSAGE')"
}

# A run that begins and ends while the bus daemon is stopped: lifecycled hears no signal of it and systemd's listing
# after the reconnection shows it stopped; only PID 1's journal has the run. (systemctl reaches PID 1 over its private
# socket meanwhile.) Stopping dbus.socket would stop lifecycled too (Requires=dbus.socket), and with the socket left
# listening lifecycled's first reconnect would start dbus again at once; so for this test the unit file goes without
# that one dependency (and is put back after).
readonly UNIT_FILE=/etc/systemd/system/lifecycled.service
test_run_while_bus_away() {
    local unit=lc-sleep@db-away.service reconnects resyncs invocation got
    c_exec sh -c "cp $UNIT_FILE $UNIT_FILE.orig && sed -i '/^Requires=dbus.socket/d' $UNIT_FILE"
    c_exec systemctl daemon-reload
    reconnects=$(daemon_log_count "Reconnected to the bus")
    resyncs=$(resync_count)
    c_exec systemctl stop dbus.socket dbus.service
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    invocation=$(c_exec journalctl --no-pager -o json _PID=1 "UNIT=$unit" MESSAGE_ID=$PID1_SUCCESS | jq -r '.INVOCATION_ID' | tail -n 1)
    c_exec systemctl start dbus.socket dbus.service
    wait_for "$WAIT" has_daemon_log "Reconnected to the bus" $((reconnects + 1)) ||
        fail "lifecycled did not reconnect; its log since:"$'\n'"$(daemon_log | jq -r '.MESSAGE' | tail -n 12)"
    wait_resyncs_settled $((resyncs + 1))
    run_marker lc-marker-db-away.service
    got=$(dispatches "$unit" | jq -r '[.LIFECYCLE_SEQUENCE, .LIFECYCLE_EVENT, .LIFECYCLE_INVOCATION_ID, .LIFECYCLE_RECONCILED] | join(" ")' | paste -sd, -)
    [[ $got == "1 launch $invocation true,2 sleep $invocation true" ]] || fail "$unit ran (run $invocation) while dbus" \
        "was stopped: expected its reconciled launch and sleep, got '${got:-none}'"
    assert_eq 0 "$(unit_prop lifecycled.service NRestarts)" "NRestarts of lifecycled"
    wait_for "$WAIT" name_owned
    restore_unit_file
}

restore_unit_file() { c_exec sh -c "[ ! -e $UNIT_FILE.orig ] || { mv $UNIT_FILE.orig $UNIT_FILE && systemctl daemon-reload; }"; }

test_dbus_restart_name() {
    wait_for "$WAIT" name_owned || fail "$NAME has no owner after the restart of dbus.service (lifecyclectl and" \
        "manual events are unavailable until lifecycled restarts); lifecycled's log since: $(
            daemon_log | jq -r 'select(.MESSAGE | tostring | test("bus|name"; "i")) | .MESSAGE' | tail -n 4 | paste -sd'|' -)"
    c_exec busctl call $NAME $OBJECT org.freedesktop.DBus.Peer Ping >/dev/null
}

# --- 3. daemon-reexec ----------------------------------------------------------------------------------------------

test_daemon_reexec() {
    local running=lc-sleep@rx-running.service failed=lc-exit3.service before owner_changes resyncs pid after
    c_exec systemctl start "$running"
    wait_dispatches "$running" 1
    c_exec systemctl start "$failed" || true
    wait_for "$WAIT" has_crash_notice "$failed"
    wait_for "$WAIT" c_exec systemctl is-failed --quiet "$failed"
    run_marker lc-marker-reexec-before.service
    before=$(all_dispatch_count)
    owner_changes=$(daemon_log_count "systemd's bus name changed owner")
    local departures
    departures=$(daemon_log_count "systemd left the bus")
    resyncs=$(resync_count)
    pid=$(lifecycled_pid)

    c_exec systemctl daemon-reexec
    wait_daemon_log "systemd's bus name changed owner" $((owner_changes + 1))
    # PID 1 re-registers on the bus: until it is back its signals are lost, so lifecycled reads its journal after.
    wait_daemon_log "systemd left the bus" $((departures + 1))
    wait_resyncs_settled $((resyncs + 1))
    assert_eq active "$(unit_prop "$running" ActiveState)" "ActiveState of $running"
    assert_eq failed "$(unit_prop "$failed" ActiveState)" "ActiveState of $failed"
    run_marker lc-marker-reexec-after.service
    after=$(all_dispatch_count)
    if ((after != before + 2)); then
        fail "expected $before dispatches plus the marker's 2 after daemon-reexec, got $after:"$'\n'"$(
            all_dispatches | tail -n $((after - before)) | jq -r '"    " + .MESSAGE')"
    fi
    assert_eq "$pid" "$(lifecycled_pid)" "MainPID of lifecycled"

    c_exec systemctl stop "$running"
    wait_dispatches "$running" 2
    assert_eq "1 launch,2 sleep" "$(dispatch_summary "$running")" "dispatches of $running"
}

# --- 4. full state file system -------------------------------------------------------------------------------------

state_fs_mounted() { c_exec mountpoint -q "$STATE_DIR"; }

# Puts a 2 MiB tmpfs over the state directory (lifecycled stopped meanwhile); lifecycled starts with no records, and
# rebuilds those of the earlier tests' units from their dispatches in the journal: room for them all once the filler
# is gone, so that their saves cannot take the space a test frees for its own unit.
mount_small_state_fs() {
    c_exec systemctl stop lifecycled.service
    c_exec mount -t tmpfs -o size=2m,mode=0755 lc-faults-state "$STATE_DIR"
    c_exec mkdir -m 0755 "$UNITS_DIR"
    c_exec systemctl start lifecycled.service
}

unmount_small_state_fs() {
    if state_fs_mounted; then
        c_exec systemctl stop lifecycled.service
        c_exec umount "$STATE_DIR"
        c_exec systemctl start lifecycled.service
    fi
}

fill_state_fs() {
    c_exec dd if=/dev/zero of="$STATE_DIR/filler" bs=4k status=none 2>/dev/null || true
    assert_eq 0 "$(c_exec df --output=avail "$STATE_DIR" | tail -n 1 | tr -d ' ')" "free KiB on the state file system"
}

test_full_state_fs() {
    local unit=lc-sleep@full.service pid restarts entry errors_before
    mount_small_state_fs
    pid=$(lifecycled_pid)
    restarts=$(unit_prop lifecycled.service NRestarts)
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    assert_eq "sequence=1 launch=1 wake=1 sleep=0 crash=0 last=launch" "$(state_counters "$unit")" "state before the disk is full"

    fill_state_fs
    errors_before=$(daemon_log_count "Cannot write the state directory")
    c_exec systemctl stop "$unit"
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 3
    wait_daemon_log "Cannot write the state directory" $((errors_before + 1))
    entry=$(last_daemon_log "Cannot write the state directory")
    assert_json_field "$entry" PRIORITY 3
    assert_contains "$(json_field "$entry" MESSAGE)" "$UNITS_DIR/$unit.json" "the error"
    assert_contains "$(json_field "$entry" MESSAGE)" "ENOSPC" "the error"
    assert_eq "1 launch,2 sleep,3 wake" "$(dispatch_summary "$unit")" "dispatches while the disk is full"
    assert_eq "sequence=1 launch=1 wake=1 sleep=0 crash=0 last=launch" "$(state_counters "$unit")" "state on disk while full (stale)"
    assert_eq "$pid" "$(lifecycled_pid)" "MainPID of lifecycled with a full disk"
    assert_eq "$restarts" "$(unit_prop lifecycled.service NRestarts)" "NRestarts of lifecycled with a full disk"
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "ActiveState of lifecycled with a full disk"
    # No temporary file is left behind.
    [[ -z $(c_exec find "$UNITS_DIR" -name ".*" -type f) ]] || fail "temporary files left: $(c_exec ls -la "$UNITS_DIR")"

    # One error for the whole fault, none per failed save or retry.
    assert_eq $((errors_before + 1)) "$(daemon_log_count "Cannot write the state directory")" "errors while full"

    # Space again: within seconds, with no transition, the record lifecycled kept in memory is written, with what
    # happened meanwhile; then the next transition's save as usual.
    c_exec rm -f "$STATE_DIR/filler"
    wait_for 10 state_sequence_is "$unit" 3
    wait_for 10 not_degraded
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 4
    assert_eq "1 launch,2 sleep,3 wake,4 sleep" "$(dispatch_summary "$unit")" "dispatches after space was freed"
    assert_eq "sequence=4 launch=1 wake=2 sleep=2 crash=0 last=sleep" "$(state_counters "$unit")" "state on disk after recovery"
    assert_eq "$pid" "$(lifecycled_pid)" "MainPID of lifecycled after recovery"

    # A restart now recovers nothing and sends nothing again: the state on disk is complete.
    c_exec systemctl restart lifecycled.service
    run_marker lc-marker-full.service
    assert_eq "1 launch,2 sleep,3 wake,4 sleep" "$(dispatch_summary "$unit")" "dispatches after a restart of lifecycled"
}

# A restart of lifecycled while its state file system is full: the record on disk is stale, the journal holds the
# dispatches sent meanwhile. Nothing may be recorded twice.
test_restart_while_state_fs_full() {
    local unit=lc-sleep@full-restart.service
    mount_small_state_fs
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    fill_state_fs
    c_exec systemctl stop "$unit"
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 3
    c_exec systemctl restart lifecycled.service
    c_exec systemctl stop "$unit"
    run_marker lc-marker-full-restart.service
    local got
    got=$(dispatch_summary "$unit")
    [[ $got == "1 launch,2 sleep,3 wake,4 sleep" ]] || fail "expected '1 launch,2 sleep,3 wake,4 sleep' for $unit (stop," \
        "start, restart of lifecycled while the state file system is full, then a stop), got '$got':"$'\n'"$(dispatch_listing "$unit")"
}

# --- 4c/4d. a state directory lifecycled cannot write -------------------------------------------------------------

readonly RO_DROPIN=/etc/systemd/system/lifecycled.service.d/50-faults-read-only.conf
# Under /usr, which ProtectSystem=strict keeps read-only for lifecycled: its parent cannot be created.
readonly GONE_STATE_DIR=/usr/lib/lc-faults-gone/state

# What a test of this section may leave behind: the permissions taken, the drop-in, or the configuration naming the
# directory that is gone.
undo_state_directory_faults() {
    c_exec chmod 0755 "$STATE_DIR" "$UNITS_DIR"
    if c_exec test -e "$RO_DROPIN"; then
        c_exec rm -f "$RO_DROPIN"
        c_exec systemctl daemon-reload
        c_exec systemctl restart lifecycled.service
    fi
    if c_exec grep -q "$GONE_STATE_DIR" "$CONFIG"; then
        write_config "$BASE_CONFIG"
        c_exec systemctl restart lifecycled.service
    fi
}

# assert_degraded ERRNO_NAME DIRECTORY RESTARTS: lifecycled stayed up without a restart, logged the error and says so
# in its status.
assert_degraded() {
    local errno=$1 directory=$2 restarts=$3 entry
    wait_daemon_log "Cannot write the state directory $directory" 1
    entry=$(last_daemon_log "Cannot write the state directory $directory")
    assert_json_field "$entry" PRIORITY 3
    assert_contains "$(json_field "$entry" MESSAGE)" "($errno)" "the error"
    assert_contains "$(unit_prop lifecycled.service StatusText)" \
        "Degraded: cannot write the state directory $directory: " "StatusText of lifecycled"
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "ActiveState of lifecycled"
    assert_eq "$restarts" "$(unit_prop lifecycled.service NRestarts)" "NRestarts of lifecycled"
}

test_read_only_state_dir() {
    local unit=lc-sleep@read-only.service restarts warnings
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    wait_for "$WAIT" nothing_pending "$unit"
    printf '[Service]\nReadOnlyPaths=%s\n' "$STATE_DIR" | c_exec_stdin install -D -m 0644 /dev/stdin "$RO_DROPIN"
    c_exec systemctl daemon-reload
    restarts=$(unit_prop lifecycled.service NRestarts)
    c_exec systemctl restart lifecycled.service
    assert_degraded EROFS "$STATE_DIR" "$restarts"

    c_exec systemctl stop "$unit"
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 3
    run_marker lc-marker-read-only.service
    assert_eq "1 launch,2 sleep,3 wake" "$(dispatch_summary "$unit")" "dispatches while the directory is read-only"
    assert_eq "sequence=1 launch=1 wake=1 sleep=0 crash=0 last=launch" "$(state_counters "$unit")" \
        "state on disk while read-only (stale)"
    assert_eq "$restarts" "$(unit_prop lifecycled.service NRestarts)" "NRestarts after the runs"
    # Writable for lifecyclectl on the host side of the mount namespace: only the daemon tells.
    warnings=$(c_exec "$CTL" status 2>&1 >/dev/null)
    assert_contains "$warnings" "lifecyclectl: Warning: lifecycled is degraded since " "lifecyclectl status"
    assert_contains "$warnings" ": cannot write the state directory $STATE_DIR: Read-only file system (EROFS): it keeps" \
        "lifecyclectl status"

    # Writable again: the start catches up from its own dispatches in the journal, and sends none again.
    c_exec rm -f "$RO_DROPIN"
    c_exec systemctl daemon-reload
    c_exec systemctl restart lifecycled.service
    run_marker lc-marker-read-only-2.service
    wait_for "$WAIT" nothing_pending "$unit"
    assert_eq "1 launch,2 sleep,3 wake" "$(dispatch_summary "$unit")" "dispatches after the directory is writable"
    assert_eq "sequence=3 launch=1 wake=2 sleep=1 crash=0 last=wake" "$(state_counters "$unit")" "state caught up"
    [[ $(unit_prop lifecycled.service StatusText) != Degraded* ]] || fail "still degraded once writable"
    [[ -z $(c_exec "$CTL" status 2>&1 >/dev/null) ]] || fail "lifecyclectl status still warns once writable"
    c_exec systemctl stop "$unit"
}

# remount_state_dir ro|rw: the state directory's mount in lifecycled's own mount namespace (ProtectSystem=strict and
# StateDirectory= give it one), remounted in place, with no restart: lifecycled keeps the directory open, so only a
# change of that mount reaches it, not a mount on top.
remount_state_dir() { c_exec nsenter -t "$(lifecycled_pid)" -m mount -o "remount,bind,$1" "$STATE_DIR"; }

# state_files_behind UNIT...: "UNIT FILE_SEQUENCE JOURNAL_SEQUENCE" for each unit whose state file does not hold its
# latest dispatch in the journal; nothing once every state file caught up.
state_files_behind() {
    local unit file journal
    for unit in "$@"; do
        file=$(state "$unit" .sequence 2>/dev/null) || file=missing
        journal=$(dispatches "$unit" | jq -r .LIFECYCLE_SEQUENCE | sort -n | tail -n 1)
        [[ $file == "$journal" ]] || printf '%s %s %s\n' "$unit" "$file" "$journal"
    done
}
state_files_current() { [[ -z $(state_files_behind "$@") ]]; }
not_degraded() { [[ $(unit_prop lifecycled.service StatusText) != Degraded* ]]; }
# What lifecycled's GetStatus says is degraded: "WHAT since TIME" a line.
degraded_status() {
    c_exec busctl --json=short call $NAME $OBJECT $INTERFACE GetStatus | jq -r '.data[0]' |
        jq -r '.degraded[] | "\(.what) since \(.since)"'
}

# assert_heals PID RESTARTS ERRORS UNIT...: the state directory was just made writable again for lifecycled (PID):
# within 10 s (its retries back off to 5 s), every UNIT's state file holds its latest dispatch, the status says
# nothing is degraded, lifecyclectl status does not warn, one notice says so, and lifecycled logged no error beyond ERRORS
# (one when the degradation began, none per retry) and was not restarted.
assert_heals() {
    local pid=$1 restarts=$2 errors=$3 began=$SECONDS
    shift 3
    wait_for 10 state_files_current "$@" || fail "state files behind $((SECONDS - began)) s after the directory" \
        "became writable (unit, file, journal):"$'\n'"$(state_files_behind "$@")"
    wait_for 10 not_degraded || fail "still degraded: $(unit_prop lifecycled.service StatusText)"
    assert_eq "" "$(degraded_status)" "GetStatus once healed"
    wait_daemon_log "The state directory can be written again" 1
    [[ -z $(c_exec "$CTL" status 2>&1 >/dev/null) ]] || fail "lifecyclectl status still warns once writable"
    assert_eq "$pid" "$(lifecycled_pid)" "MainPID of lifecycled (no restart)"
    assert_eq "$restarts" "$(unit_prop lifecycled.service NRestarts)" "NRestarts of lifecycled"
    assert_eq "$errors" "$(daemon_log_count "Cannot write the state directory")" "errors about the state directory"
}

test_read_only_state_dir_heals() {
    local a=lc-sleep@heal-a.service b=lc-sleep@heal-b.service restarts errors pid
    c_exec systemctl start "$a" "$b"
    wait_dispatches "$a" 1
    wait_dispatches "$b" 1
    printf '[Service]\nReadOnlyPaths=%s\n' "$STATE_DIR" | c_exec_stdin install -D -m 0644 /dev/stdin "$RO_DROPIN"
    c_exec systemctl daemon-reload
    restarts=$(unit_prop lifecycled.service NRestarts)
    errors=$(daemon_log_count "Cannot write the state directory")
    c_exec systemctl restart lifecycled.service
    assert_degraded EROFS "$STATE_DIR" "$restarts"
    [[ $(degraded_status) =~ ^state_directory\ since\ [0-9T:-]+Z$ ]] || fail "GetStatus while read-only: $(degraded_status)"
    pid=$(lifecycled_pid)
    # b runs once more and is left alone; a goes on running and stopping.
    c_exec systemctl restart "$b"
    c_exec systemctl stop "$a"
    c_exec systemctl start "$a"
    c_exec systemctl stop "$a"
    wait_dispatches "$a" 4
    wait_dispatches "$b" 3
    run_marker lc-marker-heal.service
    assert_eq "sequence=1 launch=1 wake=1 sleep=0 crash=0 last=launch" "$(state_counters "$a")" "state while read-only"
    assert_contains "$(c_exec "$CTL" status 2>&1 >/dev/null)" "lifecyclectl: Warning: lifecycled is degraded since " \
        "lifecyclectl status while read-only"
    # Three seconds of retries that fail: none of them is an error of its own.
    sleep 3
    remount_state_dir rw
    assert_heals "$pid" "$restarts" $((errors + 1)) "$a" "$b" lc-marker-heal.service
    assert_eq "sequence=4 launch=1 wake=2 sleep=2 crash=0 last=sleep" "$(state_counters "$a")" "state caught up"
    c_exec rm -f "$RO_DROPIN"
    c_exec systemctl daemon-reload
    c_exec systemctl stop "$b"
}

# Made unwritable while lifecycled runs by its permissions: lifecycled is root without capabilities
# (CapabilityBoundingSet=), so a directory without write permission refuses it. (A remount read-only of its mount is
# refused, EBUSY: lifecycled keeps .lock open for writing.)
test_state_dir_unwritable_while_running() {
    local unit=lc-sleep@heal-live.service restarts errors pid
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    wait_for "$WAIT" nothing_pending "$unit"
    restarts=$(unit_prop lifecycled.service NRestarts)
    errors=$(daemon_log_count "Cannot write the state directory")
    pid=$(lifecycled_pid)
    c_exec chmod 0555 "$STATE_DIR" "$UNITS_DIR"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    wait_daemon_log "Cannot write the state directory" $((errors + 1))
    assert_contains "$(unit_prop lifecycled.service StatusText)" \
        "Degraded: cannot write the state directory $STATE_DIR: Permission denied (EACCES) since " "StatusText"
    [[ $(degraded_status) =~ ^state_directory\ since\ [0-9T:-]+Z$ ]] || fail "GetStatus while unwritable: $(degraded_status)"
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 3
    run_marker lc-marker-heal-live.service
    assert_eq "sequence=1 launch=1 wake=1 sleep=0 crash=0 last=launch" "$(state_counters "$unit")" "state while unwritable"
    assert_contains "$(c_exec "$CTL" status 2>&1 >/dev/null)" \
        "lifecyclectl: Warning: lifecycled is degraded since " "lifecyclectl status while unwritable"
    sleep 3
    c_exec chmod 0755 "$STATE_DIR" "$UNITS_DIR"
    assert_heals "$pid" "$restarts" $((errors + 1)) "$unit" lc-marker-heal-live.service
    assert_eq "sequence=3 launch=1 wake=2 sleep=1 crash=0 last=wake" "$(state_counters "$unit")" "state caught up"
    c_exec systemctl stop "$unit"
}

test_vanished_state_dir() {
    local unit=lc-sleep@gone.service restarts warnings
    restarts=$(unit_prop lifecycled.service NRestarts)
    write_config "$(jq -c --arg d "$GONE_STATE_DIR" '. + {state_directory: $d}' <<<"$BASE_CONFIG")"
    c_exec systemctl restart lifecycled.service
    assert_degraded ENOENT "$GONE_STATE_DIR" "$restarts"
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    assert_eq "1 launch,2 sleep" "$(dispatch_summary "$unit")" "dispatches while the state directory is missing"
    assert_eq "$restarts" "$(unit_prop lifecycled.service NRestarts)" "NRestarts after the runs"
    warnings=$(c_exec "$CTL" status 2>&1 >/dev/null)
    assert_contains "$warnings" "lifecyclectl: Warning: lifecycled is degraded since " "lifecyclectl status"
    assert_contains "$warnings" ": cannot write the state directory $GONE_STATE_DIR: No such file or directory (ENOENT)" \
        "lifecyclectl status"

    # Back to the usual directory: the unit's record is rebuilt from the journal, nothing is sent again.
    write_config "$BASE_CONFIG"
    c_exec systemctl restart lifecycled.service
    run_marker lc-marker-gone.service
    assert_eq "1 launch,2 sleep" "$(dispatch_summary "$unit")" "dispatches after the usual directory is back"
    assert_eq "sequence=2 launch=1 wake=1 sleep=1 crash=0 last=sleep" "$(state_counters "$unit")" "state caught up"
}

# --- 5. truncated state file ---------------------------------------------------------------------------------------

test_truncated_state_file() {
    local unit=lc-sleep@trunc.service size half aside entry expected totals
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    c_exec systemctl stop lifecycled.service
    totals=$(state "$unit" '.run_totals | tostring')
    [[ $(state "$unit" '.run_totals.startup_count // 0') -ge 1 ]] || fail "no start-up counted in the run totals: $totals"
    size=$(c_exec stat -c %s "$UNITS_DIR/$unit.json")
    half=$((size / 2))
    c_exec truncate -s "$half" "$UNITS_DIR/$unit.json"
    expected=$(c_exec sha256sum "$UNITS_DIR/$unit.json" | cut -d' ' -f1)
    c_exec systemctl start lifecycled.service
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "ActiveState with a truncated state file"

    aside=$(c_exec sh -c "ls -1 '$UNITS_DIR/$unit.json.corrupt-'*" 2>/dev/null | head -n 1) || true
    [[ -n $aside ]] || fail "no $UNITS_DIR/$unit.json.corrupt-* file: $(c_exec ls -1 "$UNITS_DIR")"
    assert_eq "$expected" "$(c_exec sha256sum "$aside" | cut -d' ' -f1)" "content of $aside (the truncated file)"
    assert_eq "$half" "$(c_exec stat -c %s "$aside")" "size of $aside"
    # Rebuilt from the unit's own dispatches in the journal: its launch and its sleep.
    assert_eq "2 1 1" "$(state "$unit" '"\(.sequence) \(.state.count_total_launch) \(.state.count_total_sleep)"')" \
        "rebuilt state: sequence, launches, sleeps"
    # Its run totals too, from the runs its dispatches carry: the Prometheus counters go on, not from 0.
    assert_eq "$totals" "$(state "$unit" '.run_totals | tostring')" "rebuilt run totals"
    entry=$(last_daemon_log "$aside")
    [[ -n $entry ]] || fail "no log line names $aside"
    assert_json_field "$entry" PRIORITY 4
    assert_contains "$(json_field "$entry" MESSAGE)" "$UNITS_DIR/$unit.json" "the warning"
    printf '  warning: %s\n' "$(json_field "$entry" MESSAGE)"

    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 3
    entry=$(nth_dispatch "$unit" 3)
    # A wake within the session, numbered on: the unit's past survived its truncated state file.
    assert_json_field "$entry" MESSAGE_ID "$ID_WAKE"
    assert_json_field "$entry" LIFECYCLE_SEQUENCE 3
    assert_json_field "$entry" LIFECYCLE_TOTALLAUNCHCOUNT 1
    c_exec test -f "$UNITS_DIR/$unit.json"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 4
}

# A state file set aside makes the unit start fresh, but its numbers go on after its dispatches in the journal (1 and
# 2 here): were the fresh launch numbered 1 again and lost before reaching the journal, the start-up check (unit and
# sequence) would take the old dispatch 1 for it.
test_resend_after_state_file_set_aside() {
    local unit=lc-sleep@trunc-resend.service invocation pid begins sleeps
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    c_exec systemctl stop lifecycled.service
    c_exec truncate -s 100 "$UNITS_DIR/$unit.json"
    c_exec systemctl start lifecycled.service

    stop_journald
    journal_refuses || fail "sd_journal_sendv still succeeds with journald's sockets stopped"
    c_exec systemctl start "$unit"
    invocation=$(unit_prop "$unit" InvocationID)
    wait_for "$WAIT" state_sequence_is "$unit" 3
    pid=$(lifecycled_pid)
    c_exec kill -KILL "$pid"
    wait_for "$WAIT" lifecycled_replaced "$pid"
    start_journald
    wait_for "$WAIT" not journal_refuses
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 3
    c_exec systemctl restart lifecycled.service
    run_marker lc-marker-trunc-resend.service
    begins=$(dispatches "$unit" | jq -r --arg i "$invocation" \
        'select(.LIFECYCLE_INVOCATION_ID == $i and (.LIFECYCLE_EVENT == "launch" or .LIFECYCLE_EVENT == "wake")) | .LIFECYCLE_SEQUENCE' | paste -sd, -)
    sleeps=$(dispatches "$unit" | jq -r --arg i "$invocation" \
        'select(.LIFECYCLE_INVOCATION_ID == $i and .LIFECYCLE_EVENT == "sleep") | .LIFECYCLE_SEQUENCE' | paste -sd, -)
    [[ $begins =~ ^[0-9]+$ && $sleeps =~ ^[0-9]+$ ]] || fail "run $invocation of $unit (after its state file was set" \
        "aside; its launch refused by the journal, then a SIGKILL of lifecycled): expected one launch and one sleep," \
        "got launch/wake sequences '${begins:-none}' and sleep sequences '${sleeps:-none}':"$'\n'"$(dispatch_listing "$unit")"$'\n'"  lifecycled's log:"$'\n'"$(
            daemon_log | jq -r --arg u "$unit" 'select(.MESSAGE | tostring | contains($u)) | "    " + .MESSAGE')"
}

# --- 6. the journal refusing writes --------------------------------------------------------------------------------

journal_units=(systemd-journald.socket systemd-journald-dev-log.socket systemd-journald.service)
stop_journald() { c_exec systemctl stop "${journal_units[@]}"; }
start_journald() { c_exec systemctl start "${journal_units[@]}"; }
# sd_journal_sendv(3) fails (logger --journald uses it); exit status 1 when the journal takes the entry.
journal_refuses() { ! printf 'MESSAGE=lc-faults probe\n' | c_exec_stdin logger --journald 2>/dev/null; }
state_sequence_is() { [[ $(state "$1" .sequence 2>/dev/null) == "$2" ]]; }

test_journal_refuses_writes() {
    local up=lc-sleep@jr-up.service new=lc-sleep@jr-new.service transient=lc-jr-transient.service pid restarts
    c_exec systemctl start "$up"
    wait_dispatches "$up" 1
    pid=$(lifecycled_pid)
    restarts=$(unit_prop lifecycled.service NRestarts)

    stop_journald
    journal_refuses || fail "sd_journal_sendv still succeeds with journald's sockets stopped"
    c_exec systemctl stop "$up"
    c_exec systemctl start "$new"
    c_exec systemctl stop "$new"
    c_exec systemd-run --quiet --wait --unit="$transient" true >/dev/null
    # Persisted although the journal is away.
    wait_for "$WAIT" state_sequence_is "$up" 2
    wait_for "$WAIT" state_sequence_is "$new" 2
    wait_for "$WAIT" state_sequence_is "$transient" 2
    sleep 2.5 # the journal stays away for a few of lifecycled's retries
    journal_refuses || fail "the journal came back on its own"
    assert_eq "$pid" "$(lifecycled_pid)" "MainPID of lifecycled while the journal refuses writes"
    assert_eq "$restarts" "$(unit_prop lifecycled.service NRestarts)" "NRestarts while the journal refuses writes"
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "ActiveState while the journal refuses writes"

    start_journald
    wait_for "$WAIT" not journal_refuses
    local problems=() unit got
    for unit in "$up" "$new" "$transient"; do
        wait_for "$WAIT" has_dispatches "$unit" 2 || true
    done
    sleep 1.5 # any late duplicate would arrive within a retry interval
    c_exec journalctl --sync
    for unit in "$up" "$new" "$transient"; do
        got=$(dispatch_summary "$unit")
        [[ $got == "1 launch,2 sleep" ]] ||
            problems+=("$unit: expected dispatches '1 launch,2 sleep' once each, got '${got:-none}'")
    done
    assert_eq "$pid" "$(lifecycled_pid)" "MainPID of lifecycled after the journal came back"

    # A restart of lifecycled sends nothing again.
    c_exec systemctl restart lifecycled.service
    run_marker lc-marker-journal.service
    for unit in "$up" "$new" "$transient"; do
        got=$(dispatch_summary "$unit")
        [[ $got == "1 launch,2 sleep" ]] ||
            problems+=("$unit after a restart of lifecycled: expected '1 launch,2 sleep', got '${got:-none}'")
    done
    printf '  lifecycled log lines about the refused dispatches in the journal: %s refused, %s taken later\n' \
        "$(daemon_log_count "The journal refused a dispatch")" "$(daemon_log_count "The journal took the")"
    report_problems "dispatches sent while the journal refused writes" "${problems[@]}"
}

# A SIGKILL of lifecycled while dispatches wait for the journal: each one still reaches it, once.
test_kill_while_journal_refuses() {
    local unit=lc-sleep@jk.service pid
    stop_journald
    journal_refuses || fail "sd_journal_sendv still succeeds with journald's sockets stopped"
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    wait_for "$WAIT" state_sequence_is "$unit" 2
    pid=$(lifecycled_pid)
    c_exec kill -KILL "$pid"
    wait_for "$WAIT" lifecycled_replaced "$pid"
    start_journald
    wait_for "$WAIT" not journal_refuses
    wait_for "$WAIT" has_dispatches "$unit" 1
    wait_for 5 has_dispatches "$unit" 2 2>/dev/null || true
    c_exec systemctl restart lifecycled.service # a clean restart, so that lifecycled's log reaches the journal again
    run_marker lc-marker-journal-kill.service
    local got
    got=$(dispatch_summary "$unit")
    [[ $got == "1 launch,2 sleep" ]] || fail "$unit (start and stop while the journal refused writes, then a SIGKILL of" \
        "lifecycled): expected '1 launch,2 sleep', got '${got:-none}'; state file: $(state_counters "$unit")"$'\n'"$(dispatch_listing "$unit")"
}

# runs_leave_bounded_state UNIT RUNS PATIENCE [COMMAND...]: UNIT started and stopped RUNS times; its state file counts
# every run and, within PATIENCE seconds (after COMMAND, when given), keeps at most 16 pending dispatches, in under
# 64 KB.
runs_leave_bounded_state() {
    local unit=$1 runs=$2 patience=$3 i size
    shift 3
    for ((i = 0; i < runs; i++)); do
        c_exec systemctl start "$unit"
        c_exec systemctl stop "$unit"
    done
    wait_for "$WAIT" state_sequence_is "$unit" $((2 * runs)) || fail "$unit's state file: $(state_counters "$unit")"
    (($# == 0)) || "$@"
    wait_for "$patience" pending_at_most "$unit" 16 || fail "$unit's state file keeps $(pending_count "$unit") pending dispatches"
    size=$(c_exec stat -c %s "$UNITS_DIR/$unit.json")
    ((size < 65536)) || fail "the state file of $unit is $size bytes after $runs runs"
}

# restart_keeps_counters UNIT: lifecycled restarted (READY within systemd's start timeout), UNIT's counters as they were.
restart_keeps_counters() {
    local before
    before=$(state_counters "$1")
    c_exec systemctl restart lifecycled.service || fail "lifecycled did not become ready: $(status_text)"
    assert_eq "$before" "$(state_counters "$1")" "counters of $1 after a restart of lifecycled"
}

# A journal that refuses lifecycled's entries for over a minute (journald and its sockets stopped): each state file
# keeps at most 16 dispatches waiting to be sent, the counters every run; said, and healed once journald is back.
test_journal_refuses_long() {
    local unit=lc-sleep@jr-long.service pid
    stop_journald
    journal_refuses || fail "sd_journal_sendv still succeeds with journald's sockets stopped"
    runs_leave_bounded_state "$unit" 30 90
    wait_for "$WAIT" status_says "Degraded: the journal refuses lifecycled's entries" ||
        fail "systemctl status does not say it: $(status_text)"

    start_journald
    wait_for "$WAIT" not journal_refuses
    wait_for 45 status_clear || fail "still degraded once the journal takes entries: $(status_text)"
    wait_for "$WAIT" pending_at_most "$unit" 0 || fail "$unit's state file keeps $(pending_count "$unit") pending dispatches"
    # The 16 kept reached the journal, in order, once each.
    assert_eq "$(seq -s, 45 60)" "$(dispatches "$unit" | jq -r .LIFECYCLE_SEQUENCE | paste -sd, -)" \
        "dispatches in the journal: the last 16 kept"
    # lifecycled's warning went to the journal while it refused: lost with it; the metric counts what was given up.
    pid=$(lifecycled_pid)
    c_exec systemctl restart lifecycled.service
    wait_for "$WAIT" lifecycled_replaced "$pid" || fail "lifecycled did not come back"
    c_exec systemctl start "$unit"
    wait_for "$WAIT" state_sequence_is "$unit" 61 || fail "after the restart: $(state_counters "$unit")"
    assert_eq "sequence=61 launch=1 wake=31 sleep=30 crash=0 last=wake" "$(state_counters "$unit")" \
        "counters after a restart go on"
    c_exec systemctl stop "$unit"
}

# --- 8. the wall clock set back ----------------------------------------------------------------------------------

# CLOCK_REALTIME is not namespaced: setting the container's clock back would set this machine's. To lifecycled, a
# clock set back by two days means a state whose times lie two days ahead of now, so that is the state this test
# makes (two days, so that a day count that went negative would show as -2, not round to 0).
test_clock_set_back() {
    local unit=lc-sleep@clock.service n entry negative
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    c_exec systemctl stop lifecycled.service
    state "$unit" '.state |= with_entries(if (.key | startswith("timestamp_")) then .value += 172800000 else . end)' |
        c_exec_stdin sh -c "cat >'$UNITS_DIR/.clock' && mv '$UNITS_DIR/.clock' '$UNITS_DIR/$unit.json'"
    c_exec systemctl start lifecycled.service
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 3
    sleep 1.1
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 4
    for n in 3 4; do
        entry=$(nth_dispatch "$unit" $n)
        negative=$(jq -r '[to_entries[] | select((.key | startswith("LIFECYCLE_")) and (.value | type == "string")
            and (.value | test("^-[0-9]+$"))) | "\(.key)=\(.value)"] | join(" ")' <<<"$entry")
        [[ -z $negative ]] || fail "dispatch $n of $unit, two days \"before\" its last one: negative values: $negative"
    done
    entry=$(nth_dispatch "$unit" 3)
    assert_json_field "$entry" LIFECYCLE_EVENT wake
    # Days since a time "in the future" are left out, never negative (docs/engine-semantics.md, "lifecycled's deliberate
    # differences": "no days").
    assert_json_field "$entry" LIFECYCLE_DAYSSINCELASTWAKE ""
    assert_json_field "$entry" LIFECYCLE_DAYSSINCELAUNCH ""
    assert_json_field "$entry" LIFECYCLE_TOTALWAKECOUNT 2
    entry=$(nth_dispatch "$unit" 4)
    assert_json_field "$entry" LIFECYCLE_EVENT sleep
    assert_ge 1 "$(json_field "$entry" LIFECYCLE_SECONDSAWAKE)" "LIFECYCLE_SECONDSAWAKE of the sleep after 1.1 s awake"
    # The run's own duration is PID 1's monotonic one, whatever the state's clock says.
    awk -v v="$(json_field "$entry" LIFECYCLE_RUN_DURATION_SECONDS)" 'BEGIN { exit !(v != "" && v >= 1.1 && v < 30) }' ||
        fail "LIFECYCLE_RUN_DURATION_SECONDS of a run of 1.1 s: '$(json_field "$entry" LIFECYCLE_RUN_DURATION_SECONDS)'"
    printf '  after the clock "went back" two days: %s; %s\n' \
        "$(nth_dispatch "$unit" 3 | jq -r '.MESSAGE')" "$(nth_dispatch "$unit" 4 | jq -r '.MESSAGE')"
}

# The wall clock stepped back two days while lifecycled is stopped. The host's clock is the container's, so the step
# is made in the state directory instead: the state file and the saved journal position as a clock two days ahead
# wrote them, then runs by the right clock. The stored run is older than the tracking entries' margin and before the
# saved position, so only the order of the journal and its monotonic clock tell that the runs came after it: each is
# recorded once.
readonly POSITION_FILE=$STATE_DIR/journal-position.json
test_clock_stepped_back_while_stopped() {
    local unit=lc-sleep@step.service
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    sleep 11 # older than the margin before the last tracking entry
    c_exec systemctl restart lifecycled.service # READY=1 after its recovery saved the journal's position
    c_exec test -s "$POSITION_FILE" || fail "no $POSITION_FILE after a recovery"
    c_exec systemctl stop lifecycled.service
    state "$unit" '.state |= with_entries(if (.key | startswith("timestamp_")) then .value += 172800000 else . end)' |
        c_exec_stdin sh -c "cat >'$UNITS_DIR/.step' && mv '$UNITS_DIR/.step' '$UNITS_DIR/$unit.json'"
    c_exec jq -c '.realtime_usec += 172800000000' "$POSITION_FILE" |
        c_exec_stdin sh -c "cat >'$STATE_DIR/.step' && mv '$STATE_DIR/.step' '$POSITION_FILE'"
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    c_exec systemctl start lifecycled.service
    wait_dispatches "$unit" 6 || true
    sleep 1.5 # a duplicate would come within a confirmation round
    c_exec journalctl --sync
    if [[ $(dispatch_summary "$unit") != "1 launch,2 sleep,3 wake,4 sleep,5 wake,6 sleep" ]]; then
        dispatch_listing "$unit" >&2
        fail "$unit: the two runs after the clock stepped back, each once: $(dispatch_summary "$unit")"
    fi
    assert_eq "sequence=6 launch=1 wake=3 sleep=3 crash=0 last=sleep" "$(state_counters "$unit")" "state of $unit"
}

# journald's rate limit drops entries it accepted: sd_journal_sendv succeeds, the entry never lands. Here lifecycled
# may write 2 entries of a priority per 3 s (a drop-in; journald raises that burst a few times over with the free disk
# space), and a unit is started and stopped 12 times at once: 24 dispatches, many of them dropped at first. Each must
# still reach the journal, once.
readonly RATE_LIMIT_DROP_IN=/run/systemd/system/lifecycled.service.d/lc-faults-ratelimit.conf
test_journal_rate_limit() {
    local unit=lc-sleep@ratelimit.service i sequences
    printf '[Service]\nLogRateLimitIntervalSec=3s\nLogRateLimitBurst=2\n' |
        c_exec_stdin install -D -m 0644 /dev/stdin "$RATE_LIMIT_DROP_IN"
    c_exec systemctl daemon-reload
    c_exec systemctl restart lifecycled.service
    sleep 3.5 # the start-up's log lines use up one window
    for ((i = 0; i < 12; i++)); do
        c_exec systemctl start "$unit"
        c_exec systemctl stop "$unit"
    done
    wait_for 60 has_dispatches "$unit" 24 || true
    sleep 4 # a duplicate would come within a confirmation round
    c_exec journalctl --sync
    sequences=$(dispatches "$unit" | jq -r '.LIFECYCLE_SEQUENCE' | sort -n | paste -sd, -)
    printf '  journald: %s; lifecycled: %s\n' \
        "$(c_exec journalctl --no-pager -o cat _TRANSPORT=driver | grep -c 'Suppressed' || true) suppression notices" \
        "$(daemon_log | jq -r '.MESSAGE' | grep 'The journal dropped' | tail -n 1)"
    remove_rate_limit
    assert_eq "$(seq -s, 1 24)" "$sequences" "sequence numbers of $unit's dispatches in the journal (each once)"
}

remove_rate_limit() {
    c_exec sh -c "[ ! -e $RATE_LIMIT_DROP_IN ] || { rm $RATE_LIMIT_DROP_IN && systemctl daemon-reload && systemctl restart lifecycled.service; }"
}

# --- 9. a long-lived journal: retention and stalls ------------------------------------------------------------------

# pending_count UNIT: how many dispatches UNIT's state file still holds as not confirmed by the journal.

# Journal retention (what SystemMaxUse= and MaxRetentionSec= do on every host) removes dispatches the journal took:
# with lifecycled stopped, the journal is rotated and vacuumed; the next start sends nothing again.
test_journal_retention() {
    local unit=lc-sleep@retention.service got
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    wait_for "$WAIT" nothing_pending "$unit" ||
        fail "$unit: the state file still holds $(pending_count "$unit") dispatches the journal took"
    c_exec systemctl stop lifecycled.service
    c_exec journalctl --rotate >/dev/null
    c_exec journalctl --vacuum-time=1s >/dev/null 2>&1
    assert_eq 0 "$(dispatch_count "$unit")" "dispatches of $unit left in the journal after the vacuum"
    c_exec systemctl start lifecycled.service
    run_marker lc-marker-retention.service
    sleep 1.5 # a re-sent dispatch would come within a confirmation round
    c_exec journalctl --sync
    got=$(dispatch_summary "$unit")
    [[ -z $got ]] || fail "$unit: dispatches the journal had taken before retention removed them were sent again: $got"
    assert_eq 2 "$(state "$unit" .sequence)" "sequence of $unit after the restart"
}

# Journal retention while lifecycled is stopped removes the entry the saved position names and every tracking entry:
# the runs meanwhile are read from where the position would be, each recorded once, and no start after it looks like
# the first one on the machine (which would read PID 1's whole journal again).
test_retention_resumes_from_position() {
    local unit=lc-sleep@vacuum.service
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    wait_for "$WAIT" nothing_pending "$unit" || true
    c_exec systemctl stop lifecycled.service
    c_exec journalctl --rotate >/dev/null
    c_exec journalctl --vacuum-time=1s >/dev/null 2>&1
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    c_exec systemctl start lifecycled.service
    wait_dispatches "$unit" 4 || true
    c_exec systemctl restart lifecycled.service
    run_marker lc-marker-vacuum.service
    sleep 1.5 # a duplicate would come within a confirmation round
    c_exec journalctl --sync
    assert_eq 0 "$(daemon_log_count 'rebuilding the watched units')" "starts after the vacuum that read PID 1's whole journal"
    assert_eq 1 "$(daemon_log_count 'no longer holds the entry lifecycled had read up to')" \
        "notices that the saved position's entry was vacuumed"
    if [[ $(dispatch_summary "$unit") != "3 wake,4 sleep,5 wake,6 sleep" ]]; then
        dispatch_listing "$unit" >&2
        fail "$unit: the two runs while lifecycled was stopped, each once: $(dispatch_summary "$unit")"
    fi
    assert_eq "sequence=6 launch=1 wake=3 sleep=3 crash=0 last=sleep" "$(state_counters "$unit")" "state of $unit"
}

# journald stopped (SIGSTOP) for 6 s while a watched unit starts and stops twice: the dispatches wait in its socket,
# and each reaches the journal once; "not written yet" is never taken for "dropped".
test_stalled_journal() {
    local unit=lc-sleep@stall.service journald sequences
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    journald=$(unit_prop systemd-journald.service MainPID)
    c_exec kill -STOP "$journald"
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    sleep 6
    c_exec kill -CONT "$journald"
    wait_dispatches "$unit" 6 || true
    sleep 3 # a duplicate would come within a confirmation round
    c_exec journalctl --sync
    sequences=$(dispatches "$unit" | jq -r '.LIFECYCLE_SEQUENCE' | paste -sd, -)
    assert_eq "1,2,3,4,5,6" "$sequences" "sequence numbers of $unit's dispatches (each once, in order)"
    wait_for "$WAIT" nothing_pending "$unit" || fail "$unit: $(pending_count "$unit") dispatches still pending"
    assert_eq 0 "$(daemon_log_count "The journal dropped")" "lifecycled's log lines saying the journal dropped dispatches"
}

# journald rotates its file again and again (what SystemMaxFileSize= does on a busy host) during a churn: a look that
# reads the file journald wrote to before a rotation misses what went into the new one, and must not take a missing
# entry for dropped (docs/journal.md, "How a look reads the journal"). Every run is recorded once, nothing is sent
# again, and nothing stays pending.
test_journal_rotations() {
    local rotations output problems=() rotate_pid
    c_exec_stdin install -D -m 0755 /dev/stdin /opt/lc-faults/rotate.sh <<'EOF'
#!/bin/bash
n=0
while [[ ! -e /run/lc-faults-stop ]]; do
    journalctl --rotate >/dev/null 2>&1 && n=$((n + 1))
    sleep "0.$((5 + RANDOM % 5))"
done
echo "$n"
EOF
    start_churn 100000 fr
    c_exec /opt/lc-faults/rotate.sh >"$work/rotations.log" 2>&1 &
    rotate_pid=$!
    sleep 20
    end_churn
    wait "$rotate_pid" || fail "the rotation loop failed: $(cat "$work/rotations.log")"
    rotations=$(cat "$work/rotations.log")
    run_marker lc-marker-rotations.service
    wait_for "$WAIT" nothing_pending_of_churn || true
    sleep 2 # a dispatch sent again would come within a confirmation round
    output=$(analyse_churn '^(lc-f-1[0-9]{5}|lc-sleep@fr-[a-z]+)\.service$')
    printf '  %s; %s rotations of the journal\n' "$(grep '^SUMMARY ' <<<"$output" | sed 's/^SUMMARY //')" "$rotations"
    ((rotations >= 20)) || fail "only $rotations rotations of the journal during the churn"
    mapfile -t problems < <(grep -v '^SUMMARY ' <<<"$output" | grep . || true)
    report_problems "runs of the churn against lifecycled's dispatches while the journal rotated" "${problems[@]}"
    assert_eq 0 "$(daemon_log_count "The journal dropped")" "lifecycled's log lines saying the journal dropped dispatches"
    assert_eq 0 "$(churn_pending)" "dispatches the churn's state files still hold as not confirmed"
}

# The dispatches the churn's state files hold as not confirmed by the journal, all units together.
churn_pending() {
    c_exec sh -c "cd '$UNITS_DIR' && cat lc-f-1?????.service.json lc-sleep@fr-*.json 2>/dev/null" |
        jq -s '[.[] | (.pending_dispatches // []) | length] | add // 0'
}
nothing_pending_of_churn() { [[ $(churn_pending) == 0 ]]; }

# A journal behind at start: PID 1 logs a oneshot's run while journald is stalled and lifecycled stopped; lifecycled
# starts, and journald writes the run 3 s later, after the history lifecycled read at its start would have ended. The
# history waits for a barrier lifecycled writes after its listing, so the run is recorded, once.
test_journal_behind_at_start() {
    local unit=lc-oneshot.service journald pid
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 2
    c_exec systemctl stop lifecycled.service
    journald=$(unit_prop systemd-journald.service MainPID)
    c_exec kill -STOP "$journald"
    c_exec systemctl start "$unit"
    c_exec systemctl start --no-block lifecycled.service
    sleep 3
    c_exec kill -CONT "$journald"
    wait_for "$WAIT" lifecycled_active || fail "lifecycled did not start"
    wait_dispatches "$unit" 4 || fail "the run made while journald was behind is missing: $(dispatch_summary "$unit")"
    assert_eq "1 launch,2 sleep,3 wake,4 sleep" "$(dispatch_summary "$unit")" "dispatches of $unit"
    assert_eq "true" "$(nth_dispatch "$unit" 3 | jq -r .LIFECYCLE_RECONCILED)" "the run is reconciled"
    pid=$(lifecycled_pid)
    c_exec systemctl restart lifecycled.service
    wait_for "$WAIT" lifecycled_replaced "$pid" || fail "lifecycled did not come back"
    sleep 2
    assert_eq "1 launch,2 sleep,3 wake,4 sleep" "$(dispatch_summary "$unit")" "dispatches after another restart"
}

# A journald that stores nothing below notice (MaxLevelStore=notice): dispatches, written at info, are taken and never
# shown. The state file must stay bounded (it grew by ~6 KB a run, and past 1 MB it was set aside at the next start,
# the counters with it), the counters must survive a restart, the fault must be said, and heal by itself.
readonly NOTICE_DROPIN=/etc/systemd/journald.conf.d/50-lc-notice.conf
status_text() { unit_prop lifecycled.service StatusText; }
pending_at_most() { (($(pending_count "$1") <= $2)); }
status_says() { [[ $(status_text) == *"$1"* ]]; }
status_clear() { [[ $(status_text) != Degraded* ]]; }
remove_notice_dropin() {
    c_exec sh -c "[ ! -e $NOTICE_DROPIN ] || { rm -f $NOTICE_DROPIN && systemctl restart systemd-journald.service; }"
}

test_journal_stores_nothing() {
    local unit=lc-sleep@notice.service before after pid
    c_exec mkdir -p "$(dirname "$NOTICE_DROPIN")"
    printf '[Journal]\nMaxLevelStore=notice\n' | c_exec_stdin install -m 0644 /dev/stdin "$NOTICE_DROPIN"
    c_exec systemctl restart systemd-journald.service
    # Dispatches past the bound are given up once the journal has shown none of lifecycled's for a minute, at the
    # next look (looks back off to 30 s). lifecycled is restarted before that, 120 dispatches waiting: READY at once,
    # and the new process bounds what the last one left.
    runs_leave_bounded_state "$unit" 60 100 restart_keeps_counters "$unit"
    wait_for 100 status_says "Degraded: the journal does not show lifecycled's entries" ||
        fail "systemctl status does not say it: $(status_text)"
    assert_contains "$(c_exec journalctl --no-pager -o cat -p warning SYSLOG_IDENTIFIER=lifecycled)" \
        "has not shown lifecycled's entries" "lifecycled's warning, stored where its info entries are not"

    remove_notice_dropin
    c_exec systemctl start "$unit"
    c_exec systemctl stop "$unit"
    wait_for 45 status_clear || fail "still degraded once the journal stores again: $(status_text)"
    assert_contains "$(last_daemon_log "shows lifecycled's entries again")" "again" "the notice"

    before=$(state_counters "$unit")
    assert_eq "sequence=122 launch=1 wake=61 sleep=61 crash=0 last=sleep" "$before" "counters of 61 runs"
    pid=$(lifecycled_pid)
    c_exec systemctl restart lifecycled.service
    wait_for "$WAIT" lifecycled_replaced "$pid" || fail "lifecycled did not come back"
    c_exec systemctl start "$unit"
    wait_for "$WAIT" state_sequence_is "$unit" 123 || fail "after the restart: $(state_counters "$unit")"
    after=$(state_counters "$unit")
    assert_eq "sequence=123 launch=1 wake=62 sleep=61 crash=0 last=wake" "$after" "counters after a restart go on"
    c_exec systemctl stop "$unit"
}

# A power cut (docs/journal.md, "A power cut"): a dispatch found in the journal leaves its state file only once
# journald was asked to sync after the look found it. journald's own timer is set to an hour, so that only
# lifecycled's calls make it sync, and the journal is moved to /var/log/journal. What this can prove: with the varlink socket answering nothing (a plain file in its
# place: connect is refused), a dispatch the journal shows stays pending in its state file, is not sent again, and
# the failure is said once; once the socket is back, the state file drops it, journald's synced stamp
# (/run/systemd/journal/synced, which only a requested sync writes) moved meanwhile, and the return is said. What it
# cannot: that the bytes reached the disk. A container shares the host's page cache and cannot cut power, and a
# SIGKILL of journald proves nothing either (its shared mapping survives it).
readonly SYNC_DROPIN=/etc/systemd/journald.conf.d/50-lc-sync.conf VARLINK=/run/systemd/journal/io.systemd.journal
# Puts journald's socket back over the plain file.
restore_varlink() { c_exec sh -c "[ ! -e $VARLINK.lc-away ] || mv -f $VARLINK.lc-away $VARLINK"; }
remove_sync_dropin() {
    c_exec sh -c "[ ! -e $SYNC_DROPIN ] || { rm -f $SYNC_DROPIN && systemctl restart systemd-journald.service; }"
}
synced_stamp() { c_exec cat /run/systemd/journal/synced 2>/dev/null || echo none; }

test_delivered_once_synced() {
    local unit=job-sync.service before failures returns
    # Earlier tests restart journald while lifecycled runs, and a sync asked meanwhile fails: count from here.
    failures=$(daemon_log_count "Failed to sync the journal (")
    returns=$(daemon_log_count "journald syncs its files again")
    c_exec mkdir -p "$(dirname "$SYNC_DROPIN")"
    printf '[Journal]\nSyncIntervalSec=1h\n' | c_exec_stdin install -m 0644 /dev/stdin "$SYNC_DROPIN"
    c_exec systemctl restart systemd-journald.service
    # A journal on persistent storage (the container's /var is a tmpfs, which lifecycled cannot tell): a volatile one
    # is not synced at all, since a power cut takes it whole.
    c_exec mkdir -p /var/log/journal
    c_exec journalctl --flush

    c_exec mv "$VARLINK" "$VARLINK.lc-away"
    c_exec touch "$VARLINK"
    c_exec "$CTL" launch "$unit" >/dev/null
    wait_dispatches "$unit" 1 || fail "$unit's launch is not in the journal"
    sleep 5 # looks 1, 2 and 4 s after the send: each finds it, none can sync
    assert_eq 1 "$(pending_count "$unit")" "$unit's dispatches pending while journald cannot be asked to sync"
    assert_eq 1 "$(dispatch_count "$unit")" "$unit's dispatches in the journal (found, so not sent again)"
    assert_eq $((failures + 1)) "$(daemon_log_count "Failed to sync the journal (")" "the failure, said once at warning"

    before=$(synced_stamp)
    restore_varlink
    wait_for 30 nothing_pending "$unit" || fail "$unit's dispatch still pending once journald answers again"
    [[ $(synced_stamp) != "$before" ]] || fail "journald's synced stamp did not move: no sync was asked for"
    assert_eq $((returns + 1)) "$(daemon_log_count "journald syncs its files again")" "the return, said once"
    assert_eq 1 "$(dispatch_count "$unit")" "$unit's dispatches in the journal"
    c_exec "$CTL" sleep "$unit" >/dev/null
    wait_for "$WAIT" nothing_pending "$unit" || fail "$unit's sleep still pending"
    remove_sync_dropin
}

# --- 7. bad input --------------------------------------------------------------------------------------------------

# Hostile configuration files, made on the host: NAME<TAB>PATH lines.
make_hostile_configs() {
    local dir=$work/configs
    mkdir -p "$dir"
    {
        printf '{"watch": ["lc-*.service"], "x": '
        head -c 200000 /dev/zero | tr '\0' '['
        head -c 200000 /dev/zero | tr '\0' ']'
        printf '}\n'
    } >"$dir/deep.json"
    {
        printf '{"watch": ["lc-*.service"], "log_level": "'
        head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' 'a'
        printf '"}\n'
    } >"$dir/huge.json"
    printf '{"watch": ["lc-\0*.service"]}\n' >"$dir/nul-in-string.json"
    printf '{"watch":\0["lc-*.service"]}\n' >"$dir/nul-between.json"
    printf '{"watch": "lc-*.service"}\n' >"$dir/wrong-type-watch.json"
    printf '{"watch": ["lc-*.service"], "session_timeout": "soon"}\n' >"$dir/wrong-type-timeout.json"
    printf '{"watch": [{"pattern": 5}]}\n' >"$dir/wrong-type-pattern.json"
    printf '[1, 2, 3]\n' >"$dir/not-an-object.json"
}

test_hostile_config() {
    local dir=$work/configs file name out rc pid problems=() entry before
    make_hostile_configs
    pid=$(lifecycled_pid)
    for file in "$dir"/*.json; do
        name=${file##*/}
        c_copy "$file" "/tmp/lc-faults-config/$name"
        rc=0
        out=$(c_exec timeout 20 "$LIFECYCLED" --check-config --config "/tmp/lc-faults-config/$name" 2>&1 | tr -d '\0') || rc=$?
        ((rc == 1)) || problems+=("--check-config $name: exit status $rc, expected 1: ${out:0:300}")
        [[ $out == *"/tmp/lc-faults-config/$name"* ]] || problems+=("--check-config $name: the message does not name the file: ${out:0:300}")
        printf '  --check-config %s: %s\n' "$name" "${out:0:160}"

        # The same file as the configuration of the running lifecycled: SIGHUP keeps the old one. (The signal is sent
        # directly: `systemctl reload` validates first and would refuse before signalling.)
        c_copy "$file" "$CONFIG"
        before=$(daemon_log_count "Failed to reload the configuration")
        c_exec systemctl kill --signal=HUP --kill-whom=main lifecycled.service
        if wait_for "$WAIT" has_daemon_log "Failed to reload the configuration" $((before + 1)) 2>/dev/null; then
            entry=$(last_daemon_log "Failed to reload the configuration")
            [[ $(json_field "$entry" MESSAGE) == *"$CONFIG"* ]] ||
                problems+=("SIGHUP with $name: the error does not name $CONFIG: $(json_field "$entry" MESSAGE | head -c 300)")
        else
            problems+=("SIGHUP with $name: lifecycled logged no 'Failed to reload the configuration'")
        fi
        lifecycled_active || problems+=("SIGHUP with $name: lifecycled is $(unit_prop lifecycled.service ActiveState)")
        [[ $(lifecycled_pid) == "$pid" ]] || problems+=("SIGHUP with $name: MainPID changed from $pid to $(lifecycled_pid)")
    done
    # The old configuration still applies: lc-*.service autotracked, job-* manual.
    run_marker lc-marker-hostile-config.service
    assert_json_field "$(nth_dispatch lc-marker-hostile-config.service 1)" MESSAGE_ID "$ID_LAUNCH"
    assert_eq "" "$(call_error Launch string:job-hostile-config.service dict:string:string:)" "manual launch of job-* (old configuration)"
    write_config "$BASE_CONFIG"
    before=$(daemon_log_count "Reloaded the configuration")
    c_exec systemctl reload lifecycled.service
    wait_daemon_log "Reloaded the configuration" $((before + 1))
    report_problems "hostile configuration files" "${problems[@]}"
}

# gio_call METHOD SIGNATURE PYTHON_ARGS: a call with arguments too large for busctl's command line (each argument is
# limited to 128 KiB); prints the D-Bus error name, or "ok".
gio_call() {
    c_exec python3 -c '
import sys
from gi.repository import Gio, GLib
method, signature, args = sys.argv[1], sys.argv[2], eval(sys.argv[3])
bus = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
try:
    bus.call_sync(sys.argv[4], sys.argv[5], sys.argv[6], method, GLib.Variant(signature, args), None, 0, 20000, None)
    print("ok")
except GLib.Error as e:
    print(Gio.DBusError.get_remote_error(e) or e.message)
' "$1" "$2" "$3" $NAME $OBJECT $INTERFACE
}
have_gio() { c_exec python3 -c 'from gi.repository import Gio' >/dev/null 2>&1; }

test_hostile_dbus_calls() {
    local pid before files_before problems=() got expect call
    pid=$(lifecycled_pid)
    run_marker lc-marker-dbus-before.service
    before=$(all_dispatch_count)
    files_before=$(c_exec ls -1A "$UNITS_DIR")
    local -a calls=(
        # expected error | method and arguments
        "$NAME.InvalidArgument|Launch uint32:5"
        "$NAME.InvalidArgument|Launch string:job-h.service"
        "$NAME.InvalidArgument|Track string:job-h.service int32:3 dict:string:string:"
        "$NAME.InvalidArgument|Sleep string:job-h.service dict:string:int32:1,2"
        "$NAME.InvalidArgument|GetUnit uint64:7"
        "$NAME.InvalidArgument|Launch string:../x dict:string:string:"
        "$NAME.InvalidArgument|Launch string:.. dict:string:string:"
        "$NAME.InvalidArgument|Track string:job-h/../../x.service string:e dict:string:string:"
        "$NAME.InvalidArgument|Launch string:.job-h.service dict:string:string:"
        "$NAME.InvalidArgument|Launch string: dict:string:string:"
        "$NAME.InvalidArgument|GetUnit string:../../etc/passwd"
        "$NAME.InvalidArgument|Track string:job-h.service string:$(printf 'e%.0s' {1..65}) dict:string:string:"
        "$NAME.InvalidArgument|Track string:job-h.service string:évènement dict:string:string:"
        "$NAME.InvalidArgument|Track string:job-h.service string: dict:string:string:"
        "org.freedesktop.DBus.Error.UnknownMethod|Crash string:job-h.service"
        "org.freedesktop.DBus.Error.UnknownMethod|launch string:job-h.service dict:string:string:"
    )
    for call in "${calls[@]}"; do
        expect=${call%%|*}
        # shellcheck disable=SC2086 # the arguments are split on purpose
        got=$(call_error ${call#*|})
        [[ $got == "$expect" ]] || problems+=("${call#*|}: expected error $expect, got '${got:-success}'")
    done
    # A control character in the unit name (busctl passes it through as it is).
    got=$(c_exec busctl call $NAME $OBJECT $INTERFACE Launch 'sa{ss}' $'job-\tx.service' 0 2>&1 || true)
    [[ $got == *"Invalid unit name"* ]] || problems+=("Launch of a name with a tab: expected 'Invalid unit name', got '$got'")
    # A 120 KiB unit name and 9 data values of 115 KiB (a 1 MB message), within busctl's argument limit.
    local long
    long=$(head -c 122880 /dev/zero | tr '\0' 'a')
    got=$(c_exec busctl call $NAME $OBJECT $INTERFACE Launch 'sa{ss}' "job-$long.service" 0 2>&1 || true)
    [[ $got == *"Invalid unit name"* ]] || problems+=("Launch of a 120 KiB unit name: expected 'Invalid unit name', got '${got:0:200}'")
    local -a pairs=()
    local k value
    value=$(head -c 117760 /dev/zero | tr '\0' 'v')
    for k in 1 2 3 4 5 6 7 8 9; do pairs+=("k$k" "$value"); done
    got=$(c_exec busctl call $NAME $OBJECT $INTERFACE Track 'ssa{ss}' job-h.service big 9 "${pairs[@]}" 2>&1 || true)
    [[ $got == *"Too much data"* ]] || problems+=("Track with 1 MB of data: expected 'Too much data', got '${got:0:200}'")
    if have_gio; then
        got=$(gio_call Launch '(sa{ss})' '("job-" + "x" * 1048576 + ".service", {})')
        [[ $got == "$NAME.InvalidArgument" ]] || problems+=("Launch of a 1 MiB unit name: expected $NAME.InvalidArgument, got '$got'")
        got=$(gio_call Track '(ssa{ss})' '("job-h.service", "e" * 1048576, {})')
        [[ $got == "$NAME.InvalidArgument" ]] || problems+=("Track of a 1 MiB event name: expected $NAME.InvalidArgument, got '$got'")
        got=$(gio_call Track '(ssa{ss})' '("job-h.service", "big", {"k": "v" * 1048576})')
        [[ $got == "$NAME.InvalidArgument" ]] || problems+=("Track with a 1 MiB data value: expected $NAME.InvalidArgument, got '$got'")
        got=$(gio_call GetUnit '(s)' '("x" * 1048576,)')
        [[ $got == "$NAME.InvalidArgument" ]] || problems+=("GetUnit of a 1 MiB name: expected $NAME.InvalidArgument, got '$got'")
        echo "  sent 1 MiB strings (unit name, event name, data value, GetUnit) with python3 and Gio"
    else
        echo "  (python3 with GObject introspection is missing inside: the single 1 MiB strings were not sent)"
    fi

    lifecycled_active || problems+=("lifecycled is $(unit_prop lifecycled.service ActiveState) after the hostile calls")
    [[ $(lifecycled_pid) == "$pid" ]] || problems+=("MainPID of lifecycled changed from $pid to $(lifecycled_pid)")
    c_exec busctl call $NAME $OBJECT org.freedesktop.DBus.Peer Ping >/dev/null || problems+=("Ping failed after the hostile calls")
    run_marker lc-marker-dbus-after.service
    local after
    after=$(all_dispatch_count)
    ((after == before + 2)) || problems+=("expected $before dispatches plus the marker's 2, got $after: $(
        all_dispatches | tail -n $((after - before)) | jq -r '.MESSAGE' | paste -sd'|' -)")
    local files_after
    files_after=$(c_exec ls -1A "$UNITS_DIR" | grep -v '^lc-marker-dbus-after\.service\.json$' || true)
    [[ $files_after == "$files_before" ]] || problems+=("state files changed: $(diff <(echo "$files_before") <(echo "$files_after") | grep '^[<>]' | paste -sd' ' - || true)")
    report_problems "hostile D-Bus calls" "${problems[@]}"
}

make_hostile_replays() {
    local dir=$work/replay good='{"unit": "a.service", "observe": "started", "time": 1767225600000}'
    mkdir -p "$dir"
    { printf '%s\n' "$good"; head -c $((10 * 1024 * 1024)) /dev/zero | tr '\0' 'x'; printf '\n'; } >"$dir/10mb-garbage.jsonl"
    {
        printf '%s\n{"unit": "' "$good"
        head -c $((10 * 1024 * 1024)) /dev/zero | tr '\0' 'u'
        printf '.service", "observe": "started", "time": 1767225601000}\n'
    } >"$dir/10mb-unit-name.jsonl"
    { printf '%s\n{"unit": "a\xff\xfe.service", "observe": "stopped", "time": 1767225601000}\n' "$good"; } >"$dir/invalid-utf8-unit.jsonl"
    { printf '%s\n{"unit": "a.service", "event": "ev\xc3", "time": 1767225601000}\n' "$good"; } >"$dir/invalid-utf8-event.jsonl"
    {
        printf '%s\n{"unit": "a.service", "event": "x", "time": 1767225601000, "data": ' "$good"
        head -c 100000 /dev/zero | tr '\0' '['
        head -c 100000 /dev/zero | tr '\0' ']'
        printf '}\n'
    } >"$dir/deep-nesting.jsonl"
    { printf '%s\n{"unit": "a.service", "observe": "stopped", "time": 1767225601000}\0\n' "$good"; } >"$dir/nul-byte.jsonl"
}

test_hostile_replay() {
    local dir=$work/replay file name rc out err problems=()
    make_hostile_replays
    for file in "$dir"/*.jsonl; do
        name=${file##*/}
        c_copy "$file" "/tmp/lc-faults-replay/$name"
        rc=0
        c_exec timeout 60 "$CTL" replay "/tmp/lc-faults-replay/$name" >"$work/replay.out" 2>"$work/replay.err" || rc=$?
        err=$(head -c 300 "$work/replay.err")
        out=$(wc -c <"$work/replay.out")
        printf '  replay %s: exit %s, %s bytes out, stderr: %s\n' "$name" "$rc" "$out" "$err"
        ((rc == 1)) || problems+=("replay $name: exit status $rc, expected 1 (stdout $out bytes, stderr '$err')")
        [[ $err == "lifecyclectl: /tmp/lc-faults-replay/$name:2: "* ]] ||
            problems+=("replay $name: expected an error naming line 2 ('lifecyclectl: /tmp/lc-faults-replay/$name:2: …'), got '$err'")
    done
    report_problems "hostile replay lines" "${problems[@]}"
}

# A unit whose ExecCondition= fails (exit status 1) is skipped, not run: systemd shows activating/condition, then
# inactive with Result=exec-condition, and PID 1 logs "Skipped due to 'exec-condition'". Three starts while lifecycled
# watches and one while it is stopped (found again in PID 1's journal at its start): no dispatch, no crash.
test_skipped_start() {
    local unit=lc-skip.service skips
    install_unit "$unit" '[Service]\nExecCondition=/bin/false\nExecStart=/bin/sleep 100\n'
    c_exec systemctl start "$unit"
    c_exec systemctl start "$unit"
    c_exec systemctl start "$unit"
    c_exec systemctl stop lifecycled.service
    c_exec systemctl start "$unit"
    c_exec systemctl start lifecycled.service
    run_marker lc-marker-skip.service
    c_exec journalctl --sync
    skips=$(c_exec journalctl -o json _PID=1 UNIT="$unit" MESSAGE_ID=$PID1_SKIPPED | grep -c . || true)
    assert_eq 4 "$skips" "skipped starts PID 1 logged of $unit"
    assert_eq "" "$(dispatch_summary "$unit")" "dispatches of $unit"
}

# A unit PID 1 logs nothing of (LogLevelMax=notice) restarted twice while lifecycled is stopped: no source shows how
# its run ended, so it ends as unknown (a sleep marked LIFECYCLE_RUN_END=unknown), never a crash; the run going now
# is a wake. The run between the two restarts left no trace anywhere: it cannot be counted.
test_quiet_unit() {
    local unit=lc-quiet.service
    install_unit "$unit" '[Service]\nLogLevelMax=notice\nExecStart=/bin/sleep 1000\n'
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    c_exec systemctl stop lifecycled.service
    c_exec systemctl restart "$unit"
    c_exec systemctl restart "$unit"
    c_exec systemctl start lifecycled.service
    wait_dispatches "$unit" 3 || true
    assert_eq "1 launch,2 sleep,3 wake" "$(dispatch_summary "$unit")" "dispatches of $unit"
    assert_eq unknown "$(nth_dispatch "$unit" 2 | jq -r '.LIFECYCLE_RUN_END // "none"')" "LIFECYCLE_RUN_END of the sleep"
    assert_eq "sequence=3 launch=1 wake=2 sleep=1 crash=0 last=wake" "$(state_counters "$unit")" "state of $unit"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 4
    assert_eq none "$(nth_dispatch "$unit" 4 | jq -r '.LIFECYCLE_RUN_END // "none"')" "LIFECYCLE_RUN_END of a stop seen"
}

# A Restart=always loop whose runs end cleanly, started while lifecycled was stopped, until the start limit refuses a
# restart: systemd then shows the unit failed (Result=start-limit-hit) with the last run's InvocationID, and PID 1 logs
# the refusal's "Failed with result 'start-limit-hit'" with that id too. Each run is a reconciled begin and sleep: the
# refusal is no run and no crash.
test_start_limit_after_clean_end() {
    local unit=lc-limit.service id
    install_unit "$unit" '[Unit]\nStartLimitBurst=3\nStartLimitIntervalSec=1h\n[Service]\nExecStart=/bin/true\nRestart=always\nRestartSec=100ms\n'
    c_exec systemctl stop lifecycled.service
    c_exec systemctl start "$unit"
    wait_for "$WAIT" unit_state_is "$unit" failed || fail "$unit did not hit its start limit: $(unit_prop "$unit" ActiveState)"
    assert_eq start-limit-hit "$(unit_prop "$unit" Result)" "Result of $unit"
    c_exec systemctl start lifecycled.service
    wait_dispatches "$unit" 6 || true
    run_marker lc-marker-limit.service
    assert_eq "1 launch,2 sleep,3 wake,4 sleep,5 wake,6 sleep" "$(dispatch_summary "$unit")" "dispatches of $unit"
    assert_json_field "$(nth_dispatch "$unit" 6)" LIFECYCLE_RECONCILED true
    assert_eq "sequence=6 launch=1 wake=3 sleep=3 crash=0 last=sleep" "$(state_counters "$unit")" "state of $unit"
    c_exec systemctl reset-failed "$unit"
}
unit_state_is() { [[ $(unit_prop "$1" ActiveState) == "$2" ]]; }

# install_unit NAME CONTENT: a unit file in /etc/systemd/system (CONTENT in printf's format), and a daemon-reload.
install_unit() {
    # shellcheck disable=SC2059 # the content is the format
    printf "$2" | c_exec_stdin install -m 0644 /dev/stdin "/etc/systemd/system/$1"
    c_exec systemctl daemon-reload
}

# --- 13. a busy PID 1 coalesces a unit's changes -------------------------------------------------------------------

# PID 1 holds back its unit signals while more than 1,024 messages wait in its bus connection (systemd's
# MANAGER_BUS_BUSY_THRESHOLD), and then sends each unit's state as it is by then: a run that began and ended meanwhile
# shows only over, with an InvocationID never seen (docs/systemd.md, "Coalesced changes"). Here dbus-daemon is stopped
# while FLOOD_UNITS (400) unwatched transient units start (systemd-run over PID 1's private socket) and a watched
# oneshot runs once; then dbus-daemon goes on. The run is one wake and one sleep, at PID 1's times. (systemd 252 sent
# the oneshot's changes in order here, up to 5,000 units: its 8 MB socket buffer held them; the rule for a run seen
# only over is tested in SystemdUnitMapperCoalescedTests.)
test_coalesced_run() {
    local unit=lc-coalesce.service stalled id got started woke
    install_unit "$unit" '[Service]\nType=oneshot\nExecStart=/bin/true\n'
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 2
    stalled=$(unit_prop dbus.service MainPID)
    c_exec kill -STOP "$stalled"
    c_exec sh -c 'for i in $(seq 1 '"${FLOOD_UNITS:-400}"'); do systemd-run --no-block --quiet --unit=flood-$i.service /bin/true; done'
    c_exec systemctl start "$unit"
    id=$(c_exec journalctl --no-pager -o json _PID=1 "UNIT=$unit" MESSAGE_ID=$PID1_SUCCESS | jq -r '.INVOCATION_ID' | tail -n 1)
    c_exec kill -CONT "$stalled"
    wait_dispatches "$unit" 4 || true
    run_marker lc-marker-coalesce.service
    got=$(dispatches "$unit" | jq -r '[.LIFECYCLE_SEQUENCE, .LIFECYCLE_EVENT, .LIFECYCLE_INVOCATION_ID] | join(" ")' | sed -n '3,$p' | paste -sd, -)
    assert_eq "3 wake $id,4 sleep $id" "$got" "dispatches of the run made while PID 1 was busy"
    # The wake is at PID 1's start of the run ("Starting", the job's first entry), within a second.
    started=$(c_exec journalctl --no-pager -o json _PID=1 "UNIT=$unit" "INVOCATION_ID=$id" | jq -r '.__REALTIME_TIMESTAMP' | head -n 1)
    woke=$(date -d "$(nth_dispatch "$unit" 3 | jq -r '.LIFECYCLE_TIME')" +%s%3N 2>/dev/null || true)
    [[ -n $started ]] && in_range "$woke" $((started / 1000 - 1000)) $((started / 1000 + 1000)) ||
        fail "the wake ($woke ms) is not at PID 1's first entry of the run (${started:-none} µs)"
    assert_eq 0 "$(unit_prop lifecycled.service NRestarts)" "NRestarts of lifecycled"
}

# --- 12. a unit name of 250 bytes ------------------------------------------------------------------------------------

# A template instance whose name, escape included, is 250 bytes: longer than <unit>.json can be (222 bytes), within
# systemd's 255. Its state file is <first 189 bytes>~<32 hex digits of the name's SHA-256>.json (docs/configuration.md,
# "State files"), and holds the unit's name. Run twice, lifecycled restarted, run again: the counters go on from the
# file, and lifecyclectl status and show read it.
test_long_unit_name() {
    local instance unit file listed shown
    instance='long\x2dname-'$(printf 'x%.0s' {1..220})
    unit="lc-sleep@$instance.service"
    assert_eq 250 "$(printf '%s' "$unit" | wc -c)" "bytes in the unit's name"
    file=$UNITS_DIR/${unit:0:189}~$(printf '%s' "$unit" | sha256sum | cut -c1-32).json
    local run
    for run in 1 2; do
        c_exec systemctl start "$unit"
        wait_dispatches "$unit" $((run * 2 - 1))
        c_exec systemctl stop "$unit"
        wait_dispatches "$unit" $((run * 2))
    done
    wait_for "$WAIT" long_name_settled "$file" ||
        fail "no state file $file with nothing pending; units/ holds: $(c_exec ls -1 "$UNITS_DIR" 2>&1 | cut -c1-60)"
    assert_eq "$unit" "$(c_exec jq -r .unit "$file")" "the unit its state file names"

    c_exec systemctl restart lifecycled.service
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 5
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 6
    assert_eq "1 launch,2 sleep,3 wake,4 sleep,5 wake,6 sleep" "$(dispatch_summary "$unit")" "dispatches of $unit"
    wait_for "$WAIT" long_name_settled "$file" || fail "$file: dispatches still pending"
    assert_eq "sequence=6 launch=1 wake=3 sleep=3 crash=0 last=sleep" "$(c_exec jq -r \
        '"sequence=\(.sequence) launch=\(.state.count_total_launch) wake=\(.state.count_total_wake) sleep=\(.state.count_total_sleep) crash=\(.state.count_total_crash) last=\(.state.last_event)"' \
        "$file")" "state file of $unit after lifecycled's restart"

    listed=$(c_exec "$CTL" status --json 2>"$work/long-status.err" |
        jq -c --arg u "$unit" '.units[] | select(.unit == $u) | [.sequence, .counts.launches, .counts.wakes, .counts.sleeps]')
    assert_eq "[6,1,3,3]" "$listed" "lifecyclectl status --json: sequence, launches, wakes, sleeps of $unit"
    assert_eq "" "$(cat "$work/long-status.err")" "lifecyclectl status's warnings"
    c_exec "$CTL" status --no-pager 2>/dev/null | grep -qF "$unit" || fail "lifecyclectl status does not list $unit"
    shown=$(c_exec "$CTL" show --json "$unit" 2>"$work/long-show.err") ||
        fail "lifecyclectl show of $unit failed: $(cat "$work/long-show.err")"
    assert_eq "6 $unit" "$(jq -r '"\(.sequence) \(.unit)"' <<<"$shown")" "lifecyclectl show --json: sequence and unit"
}
# long_name_settled FILE: FILE exists and holds no pending dispatch.
long_name_settled() { [[ $(c_exec jq -r '(.pending_dispatches // []) | length' "$1" 2>/dev/null) == 0 ]]; }

# --- 11. units systemd unloaded --------------------------------------------------------------------------------------

# archive_after_minutes 0: a template instance that stopped (and so was unloaded) leaves units/ for the archive
# within seconds; started again, it comes back with its counters and numbers. The configuration is reloaded (SIGHUP)
# with the key and put back after: every unit gone by then is archived too, so this runs last.
archived() { c_exec sh -c "grep -qsF '\"unit\":\"$1\"' $STATE_DIR/archive/*.jsonl && [ ! -e '$UNITS_DIR/$1.json' ]"; }
compacted() { (($(c_exec stat -c %s "$1") < 262144)); }

test_archive_gone_units() {
    local unit=lc-sleep@archived.service shown shard size
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    wait_for "$WAIT" nothing_pending "$unit" || fail "dispatches of $unit still pending: $(pending_count "$unit")"
    # The unit's archive file, filled past the compaction size (256 KiB) with the records of 400 units last active 400
    # days ago and of 5 active now: archiving the unit compacts it (archive_retention_days 90).
    c_exec cat "$UNITS_DIR/$unit.json" |
        "$(dirname "${BASH_SOURCE[0]}")/lib/archive_shard.py" "$unit" 400 5 >"$work/shard" 2>"$work/shard-name"
    shard=$STATE_DIR/archive/$(cat "$work/shard-name")
    c_exec mkdir -p "$STATE_DIR/archive"
    c_copy "$work/shard" "$shard"
    (($(c_exec stat -c %s "$shard") > 262144)) || fail "the seeded archive file is not past the compaction size"
    write_config "${BASE_CONFIG%\}}, \"archive_after_minutes\": 0}"
    c_exec systemctl reload lifecycled.service
    # It waits for the saved journal position to pass its going: two readings of the tail, 10 s apart.
    wait_for 60 archived "$unit" ||
        fail "$unit was not archived: $(c_exec ls "$UNITS_DIR" | grep -c .) state files; $(c_exec ls "$STATE_DIR")"
    # The record is appended and the state file removed before the shard is compacted, in the same step: wait for it.
    wait_for 10 compacted "$shard" || fail "the archive file was not compacted: $(c_exec stat -c %s "$shard") bytes"
    size=$(c_exec stat -c %s "$shard")
    assert_eq 0 "$(c_exec grep -c '"unit":"gone-' "$shard")" "records of units gone longer than the retention"
    assert_eq 5 "$(c_exec grep -c '"unit":"kept-' "$shard")" "records of units active within the retention"
    assert_contains "$(last_daemon_log "Compacted the archive")" "bytes to $size" "the compaction's log line"
    shown=$(c_exec "$CTL" show --json "$unit" 2>"$work/show-archived.err") ||
        fail "lifecyclectl show of an archived unit failed: $(cat "$work/show-archived.err")"
    assert_eq 2 "$(jq -r .sequence <<<"$shown")" "sequence shown from the archive"
    assert_contains "$(cat "$work/show-archived.err")" "is archived" "what lifecyclectl show says"
    assert_eq "" "$(c_exec "$CTL" status --json | jq -r --arg u "$unit" '.units[] | select(.unit == $u) | .unit')" \
        "lifecyclectl status without --all lists no archived unit"
    assert_eq "2" "$(c_exec "$CTL" status --all --json | jq -r --arg u "$unit" '.units[] | select(.unit == $u) | .sequence')" \
        "lifecyclectl status --all lists the archived unit"

    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 3
    assert_eq "1 launch,2 sleep,3 wake" "$(dispatch_summary "$unit")" "dispatches after the unit came back"
    assert_eq "sequence=3 launch=1 wake=2 sleep=1 crash=0 last=wake" "$(state_counters "$unit")" \
        "state file after the unit came back"
    assert_contains "$(last_daemon_log "$unit is back")" "from the archive" "the notice"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 4
    write_config "$BASE_CONFIG"
    c_exec systemctl reload lifecycled.service
}

# The archive's index of names (docs/PERFORMANCE.md, "A new name's look in the archive, with an index of names"): the
# append that takes a shard past 64 KiB writes NN.names beside it, and a look for a name reads the index first. A name
# it holds comes back with its record. A line appended without the index (as a crash between the two, or an older
# lifecycled, leaves it) makes the index cover nothing: the shard is read whole, and that unit comes back too. The next
# append makes the index again, from the whole shard.
# index_covers FILE SHARD: FILE names as many lines as SHARD holds, of SHARD's inode (its header: docs there).
index_covers() {
    local entries inode
    entries=$((($(c_exec stat -c %s "$1") - 32) / 8))
    inode=$(c_exec od -An -t u8 -j 8 -N 8 "$1" | tr -d ' ')
    [[ $entries == $(c_exec grep -c . "$2") && $inode == $(c_exec stat -c %i "$2") ]]
}

test_archive_name_index() {
    local unit=lc-sleep@indexed.service shard index size held late
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    wait_for "$WAIT" nothing_pending "$unit" || fail "dispatches of $unit still pending: $(pending_count "$unit")"
    # 101 records of units in the unit's shard: 100 put in it now, the last appended later without the index.
    c_exec cat "$UNITS_DIR/$unit.json" | "$(dirname "${BASH_SOURCE[0]}")/lib/archive_shard.py" \
        --same-shard "$unit" 101 lc-sleep@ix >"$work/indexed-records" 2>"$work/indexed-names"
    shard=$STATE_DIR/archive/$(sed -n 1p "$work/indexed-names")
    index=${shard%.jsonl}.names
    held=$(sed -n 2p "$work/indexed-names")
    late=$(sed -n 102p "$work/indexed-names")
    head -n 100 "$work/indexed-records" | c_exec_stdin sh -c "mkdir -p $STATE_DIR/archive && cat >>$shard"
    size=$(c_exec stat -c %s "$shard")
    ((size > 65536 && size < 262144)) || fail "the seeded archive file is $size bytes, not between 64 and 256 KiB"
    write_config "${BASE_CONFIG%\}}, \"archive_after_minutes\": 0}"
    c_exec systemctl reload lifecycled.service
    wait_for 60 archived "$unit" || fail "$unit was not archived"
    c_exec test -s "$index" || fail "no index of names beside the archive file past 64 KiB: $(c_exec ls "$STATE_DIR/archive")"
    index_covers "$index" "$shard" || fail "the index does not cover its archive file after the append"

    c_exec systemctl start "$held"
    wait_dispatches "$held" 1
    assert_eq "3 wake" "$(dispatch_summary "$held")" "a unit the index names comes back with its record"
    tail -n 1 "$work/indexed-records" | c_exec_stdin sh -c "cat >>$shard"
    c_exec systemctl start "$late"
    wait_dispatches "$late" 1
    assert_eq "3 wake" "$(dispatch_summary "$late")" "a unit appended to the archive file without the index comes back"
    assert_eq "sequence=3 launch=1 wake=2 sleep=1 crash=0 last=wake" "$(state_counters "$late")" \
        "state file of the unit appended without the index"

    c_exec systemctl stop "$held" "$late"
    wait_dispatches "$held" 2
    wait_dispatches "$late" 2
    wait_for 60 archived "$held" || fail "$held was not archived again"
    wait_for 60 archived "$late" || fail "$late was not archived again"
    index_covers "$index" "$shard" || fail "the next append did not make the index again from the whole archive file"
    write_config "$BASE_CONFIG"
    c_exec systemctl reload lifecycled.service
}

# A unit driven only by manual events (autotracking off): systemd never lists it, so after a restart its record is
# gone from every listing and goes to the archive. Its next event must bring the record back, not start at #1.
test_archive_manual_unit() {
    local unit=job-archived.service pid
    write_config "${BASE_CONFIG%\}}, \"archive_after_minutes\": 0}"
    c_exec systemctl reload lifecycled.service
    c_exec "$CTL" launch "$unit" >/dev/null
    c_exec "$CTL" sleep "$unit" >/dev/null
    wait_dispatches "$unit" 2
    wait_for "$WAIT" nothing_pending "$unit" || fail "dispatches of $unit still pending: $(pending_count "$unit")"
    pid=$(lifecycled_pid)
    c_exec systemctl restart lifecycled.service
    wait_for "$WAIT" lifecycled_replaced "$pid" || fail "lifecycled did not come back"
    # It waits for the saved journal position to pass its going: two readings of the tail, 10 s apart.
    wait_for 60 archived "$unit" || fail "$unit was not archived after the restart"
    assert_eq "$unit: launch dispatched, sequence 3." "$(c_exec "$CTL" launch --verbose "$unit")" \
        "the launch's dispatch number after the archived 2"
    wait_dispatches "$unit" 3
    assert_eq "1 launch,2 sleep,3 launch" "$(dispatch_summary "$unit")" "dispatches of the manual-only unit"
    assert_eq "sequence=3 launch=2 wake=2 sleep=1 crash=0 last=launch" "$(state_counters "$unit")" \
        "state file after the manual launch"
    assert_contains "$(last_daemon_log "$unit is back")" "from the archive" "the notice"
    write_config "$BASE_CONFIG"
    c_exec systemctl reload lifecycled.service
}

# --- run -----------------------------------------------------------------------------------------------------------

container_install_trap
suite_started=$SECONDS
container_boot "lc-faults-$$" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
echo "container lc-faults-$$ booted in $CONTAINER_BOOT_SECONDS s"
copy_test_units
write_config "$BASE_CONFIG"
install_or_exit

# FAULTS_TESTS=REGEX runs only the tests whose names match (e.g. FAULTS_TESTS='^(1|6)\.').
only() {
    local name=$1
    shift
    if [[ -z ${FAULTS_TESTS:-} || $name =~ $FAULTS_TESTS ]]; then
        run_test "$name" "$@"
        recover
    fi
}

# Brings lifecycled back to a known state after a test that may have stopped half-way.
recover() {
    c_exec rm -f "$STATE_DIR/filler" 2>/dev/null || true
    restore_unit_file 2>/dev/null || true
    remove_rate_limit 2>/dev/null || true
    remove_notice_dropin 2>/dev/null || true
    restore_varlink 2>/dev/null || true
    remove_sync_dropin 2>/dev/null || true
    c_exec systemctl start dbus.socket dbus.service 2>/dev/null || true
    unmount_small_state_fs 2>/dev/null || true
    undo_state_directory_faults 2>/dev/null || true
    c_exec systemctl start "${journal_units[@]}" 2>/dev/null || true
    c_exec systemctl reset-failed lifecycled.service 2>/dev/null || true
    if ! lifecycled_active; then
        c_exec systemctl restart lifecycled.service || true
    fi
}

only "1. SIGKILL of lifecycled during a churn of units, $KILLS times: nothing lost, duplicated or invented" test_kill9_during_churn
only "1b. a unit without a state file, started while lifecycled is stopped: launch at start, then sleep" \
    test_new_unit_started_while_down
only "7a. hostile configuration files: --check-config exit 1 naming the file; SIGHUP keeps the old one" test_hostile_config
only "7b. hostile D-Bus calls: named errors, nothing recorded, lifecycled still up" test_hostile_dbus_calls
only "7c. hostile replay lines: an error naming the line, exit 1" test_hostile_replay
only "3. daemon-reexec with a running and a failed unit: no dispatch; the stop is a sleep" test_daemon_reexec
only "5. truncated state file: moved aside, warning, the unit rebuilt from its dispatches" test_truncated_state_file
only "5b. after a state file was set aside, a dispatch the journal never got is still sent after a SIGKILL" \
    test_resend_after_state_file_set_aside
only "4a. full state file system: ENOSPC logged once, no restart, dispatches sent, state right within seconds of space back" \
    test_full_state_fs
only "4b. restart of lifecycled while the state file system is full: nothing dispatched twice" test_restart_while_state_fs_full
only "4c. state directory read-only for lifecycled: starts degraded, no restart, dispatches sent once, caught up once writable" \
    test_read_only_state_dir
only "4d. state directory whose parent cannot be created: starts degraded instead of a restart loop" \
    test_vanished_state_dir
only "4e. state directory read-only for lifecycled at start, then writable: the state files catch up within seconds, no restart" \
    test_read_only_state_dir_heals
only "4f. state directory made unwritable while lifecycled runs, then writable: degraded, then caught up, no restart" \
    test_state_dir_unwritable_while_running
only "2a. restart of dbus: reconnect, resync, units tracked (also one started meanwhile)" test_dbus_restart
only "2b. restart of dbus: lifecycled owns $NAME again" test_dbus_restart_name
only "2c. a run that began and ended while dbus was stopped: a reconciled launch and sleep" test_run_while_bus_away
only "6. the journal refusing writes: no crash, state persisted, each dispatch reaches the journal once" test_journal_refuses_writes
only "6b. SIGKILL of lifecycled while the journal refuses writes: each dispatch still reaches it once" \
    test_kill_while_journal_refuses
only "6c. journald's rate limit drops accepted dispatches: each is sent again and reaches the journal once" \
    test_journal_rate_limit
only "6d. the journal refusing writes for over a minute: each state file keeps at most 16 waiting dispatches, said, healed; counters go on" \
    test_journal_refuses_long
only "8. the wall clock set back two days: no negative durations or day counts" test_clock_set_back
only "8b. the wall clock stepped back two days while lifecycled is stopped: every run once" \
    test_clock_stepped_back_while_stopped
only "9a. journal retention removes delivered dispatches while lifecycled is stopped: none is sent again" \
    test_journal_retention
only "9b. journald stopped for 6 s during runs: each dispatch reaches the journal once" test_stalled_journal
only "9c. retention removes the saved position's entry while lifecycled is stopped: runs once, no start from day one" \
    test_retention_resumes_from_position
only "9e. a journal behind at start: a oneshot run PID 1 logged while journald was stalled and lifecycled stopped, written after lifecycled started, is recorded once" \
    test_journal_behind_at_start
only "9g. journald rotating its file every 0.5-1 s during a churn: every run recorded once, nothing sent again or left pending" \
    test_journal_rotations
only "9d. a journald that stores nothing below notice: 60 runs, the state file under 64 KB, said in systemctl status, READY after a restart with 120 waiting, healed once it stores, counters go on after a restart" \
    test_journal_stores_nothing
only "9f. a power cut: a dispatch the journal shows stays pending until journald syncs after the look (its varlink socket refused, then back)" \
    test_delivered_once_synced
only "10a. a start that ExecCondition= skips, 4 times (once while lifecycled is stopped): no dispatch, no crash" \
    test_skipped_start
only "10b. a unit PID 1 logs nothing of, restarted twice while lifecycled is stopped: its end unknown, no crash" \
    test_quiet_unit
only "10c. a Restart=always loop of clean runs hitting its start limit while lifecycled was stopped: each run a reconciled begin and sleep, no crash" \
    test_start_limit_after_clean_end
only "12. a unit whose name is 250 bytes: its state file holds its counters over a restart; status and show read it" \
    test_long_unit_name
only "13. a run that began and ended while PID 1 held back its signals (a busy bus): one wake and one sleep" \
    test_coalesced_run
# Last: every unit gone by then is archived.
only "11. a unit systemd unloaded is archived (archive_after_minutes 0, within 30 s), its archive file compacted past 256 KiB; run again, its counters go on" \
    test_archive_gone_units
only "11b. a unit driven only by manual events, archived after a restart (archive_after_minutes 0): its next launch is numbered and counted on" \
    test_archive_manual_unit
only "11c. an archive file past 64 KiB gets an index of names: a unit it names comes back; one appended without it too (the file read whole), and the next append remakes it" \
    test_archive_name_index

container_poweroff
echo "runtime: $((SECONDS - suite_started)) s"
if ((_tests_failed == 0)); then # from lib/assert.sh
    rm -rf "$work"
else
    echo "console log and evidence kept in $work"
fi
finish_tests # the last line: "N passed, N failed"
