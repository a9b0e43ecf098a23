#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# lifecycled's D-Bus interface and lifecyclectl's event commands against the real daemon under a real systemd: boots
# this machine's root as a throw-away container, installs lifecycled with scripts/install.sh (unit file, D-Bus
# policy), and sends manual and custom events as root and as an unprivileged user. One container for the whole suite.
# Needs root, systemd-container and jq.
# Usage: Tests/Integration/ctl.sh BUILD_DIR      (the release build: scripts/test passes it)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"

# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"
suite_preflight ctl.sh "$@"
readonly CTL=$PREFIX_INSIDE/bin/lifecyclectl
readonly UNITS_DIR=/var/lib/lifecycled/units
# job-* report their own lifecycle; lc-*.service are autotracked.
readonly CONFIG='{"watch": [{"pattern": "job-*", "autotracking_enabled": false}, "lc-*.service"]}'
readonly NAME=org.lifecycled.Lifecycle1
readonly OBJECT=/org/lifecycled/Lifecycle1
readonly INTERFACE=org.lifecycled.Lifecycle1.Manager
readonly NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
readonly WAIT=20 # seconds any polled condition may take

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-ctl.XXXXXX")
export CONTAINER_LOG_DIR=$work

# --- helpers -------------------------------------------------------------------------------------------------------

# ctl [ARGS...]: runs lifecyclectl inside; prints "STATUS|STDOUT|STDERR" (stdout and stderr on one line each).
ctl() {
    local out err rc=0
    out=$(c_exec "$CTL" "$@" 2>"$work/stderr") || rc=$?
    err=$(<"$work/stderr")
    printf '%s|%s|%s\n' "$rc" "$out" "$err"
}
# ctl_as_nobody [ARGS...]: the same, as user nobody.
ctl_as_nobody() {
    local out err rc=0
    out=$(c_exec "${NOBODY[@]}" "$CTL" "$@" 2>"$work/stderr") || rc=$?
    err=$(<"$work/stderr")
    printf '%s|%s|%s\n' "$rc" "$out" "$err"
}

# call_error METHOD SIGNATURE ARGS...: the D-Bus error name of a call (busctl prints only the message).
call_error() {
    local method=$1
    shift
    c_exec dbus-send --system --print-reply --dest=$NAME $OBJECT "$INTERFACE.$method" "$@" 2>&1 |
        sed -n 's/^Error \([^:]*\):.*/\1/p'
}

name_owned() {
    [[ $(c_exec busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s $NAME) == "b true" ]]
}

# assert_nothing_recorded UNIT: no dispatch and no state file.
assert_nothing_recorded() {
    c_exec journalctl --sync
    assert_eq 0 "$(dispatch_count "$1")" "dispatches of $1"
    if c_exec test -e "$UNITS_DIR/$1.json"; then fail "$1 has a state file"; fi
}

# --- tests ---------------------------------------------------------------------------------------------------------

test_name_and_introspection() {
    wait_for "$WAIT" name_owned
    local owner pid
    owner=$(c_exec busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetConnectionUnixProcessID s $NAME)
    pid=$(c_exec systemctl show -p MainPID --value lifecycled.service)
    assert_eq "u $pid" "$owner" "owner of $NAME"
    local methods
    methods=$(c_exec busctl introspect --list $NAME $OBJECT $INTERFACE | awk '$2 == "method" { print $1, $3, $4 }')
    assert_eq ".GetStatus - s
.GetUnit s s
.Launch sa{ss} t
.ListUnits - s
.Sleep sa{ss} t
.Track ssa{ss} t
.Wake sa{ss} t" "$methods" "methods of $INTERFACE"
    c_exec busctl call $NAME $OBJECT org.freedesktop.DBus.Peer Ping >/dev/null || fail "Ping failed"
    assert_contains "$(c_exec journalctl --no-pager -u lifecycled.service -o cat)" \
        "Acquired the bus name $NAME on the system bus" "lifecycled's log"
}

test_manual_events() {
    assert_eq "0||" "$(ctl launch job-1 run=nightly build-id=42)" "lifecyclectl launch"
    wait_dispatches job-1.service 1
    assert_journal_has "$(dispatches job-1.service)" MESSAGE_ID=$ID_LAUNCH LIFECYCLE_EVENT=launch \
        LIFECYCLE_RUN=nightly LIFECYCLE_BUILD_ID=42 LIFECYCLE_SEQUENCE=1 LIFECYCLE_LAUNCHCOUNT=1 \
        LIFECYCLE_ISFIRSTLAUNCH=true OBJECT_SYSTEMD_UNIT=job-1.service
    assert_eq "0|job-1.service: sleep dispatched, sequence 2.|" "$(ctl sleep --verbose job-1 code=0)" "lifecyclectl sleep -v"
    assert_eq "0||" "$(ctl wake job-1.service)" "lifecyclectl wake"
    wait_dispatches job-1.service 3
    assert_journal_has "$(dispatches job-1.service)" MESSAGE_ID=$ID_SLEEP LIFECYCLE_SEQUENCE=2 LIFECYCLE_CODE=0
    assert_journal_has "$(dispatches job-1.service)" MESSAGE_ID=$ID_WAKE LIFECYCLE_SEQUENCE=3 LIFECYCLE_WAKECOUNT=2
    assert_eq "1 1 2 3 wake" "$(state job-1.service '[.state.count_launch, .state.count_sleep, .state.count_wake, .sequence, .state.last_event] | map(tostring) | join(" ")')" "state file"
}

test_custom_events() {
    assert_eq "0||" "$(ctl track job-1 backup-done bytes=1024)" "lifecyclectl track"
    # Custom events are for every watched unit, autotracked or not.
    assert_eq "0|lc-x.service: event deployed dispatched, sequence 1.|" "$(ctl track -v lc-x deployed)" "track of lc-x"
    wait_dispatches job-1.service 4
    assert_journal_has "$(dispatches job-1.service)" MESSAGE_ID=$ID_CUSTOM LIFECYCLE_EVENT=backup-done \
        LIFECYCLE_BYTES=1024 LIFECYCLE_SEQUENCE=4
    wait_dispatches lc-x.service 1
    assert_journal_has "$(dispatches lc-x.service)" MESSAGE_ID=$ID_CUSTOM LIFECYCLE_EVENT=deployed
}

test_refused_events() {
    assert_eq "1||lifecyclectl: Refused launch of lc-y.service: Manual lifecycle events are not allowed while autotracking is enabled." \
        "$(ctl launch lc-y.service)" "manual launch of an autotracked unit"
    assert_eq $NAME.ManualTrackNotAllowed "$(call_error Launch string:lc-y.service dict:string:string:)" "error name"
    assert_eq "1||lifecyclectl: Refused wake of job-2.service: Invalid lifecycle event order. The event is not registered/tracked." \
        "$(ctl wake job-2)" "wake before any launch"
    assert_eq $NAME.InvalidEventOrder "$(call_error Wake string:job-2.service dict:string:string:)" "error name"
    assert_eq "4||lifecyclectl: Unit other.service is not watched by lifecycled (no pattern in \"watch\" matches it)." \
        "$(ctl launch other)" "event of an unwatched unit"
    assert_eq $NAME.UnknownUnit "$(call_error Track string:other.service string:e dict:string:string:)" "error name"
    assert_eq $NAME.UnknownUnit "$(call_error GetUnit string:job-9.service)" "GetUnit without a record"
    assert_eq $NAME.InvalidArgument "$(call_error Launch string:job-2.service)" "wrong signature"
    assert_eq $NAME.InvalidArgument "$(call_error Track string:job-2.service 'string:two words' dict:string:string:)" "bad event name"
    assert_eq org.freedesktop.DBus.Error.UnknownMethod "$(call_error Crash string:job-2.service)" "unknown method"
    assert_nothing_recorded lc-y.service
    assert_nothing_recorded job-2.service
    assert_nothing_recorded other.service
}

test_usage_errors() {
    local out
    out=$(ctl launch job-3 novalue)
    assert_contains "$out" '64||Error: Invalid data "novalue": expected KEY=VALUE.' "KEY without a value"
    out=$(ctl track job-3 'two words')
    assert_contains "$out" "64||Error: Invalid event name \"two words\"" "invalid event name"
    assert_nothing_recorded job-3.service
}

test_non_root() {
    assert_eq "1||lifecyclectl: Permission denied: only root may send events." "$(ctl_as_nobody launch job-4)" "launch as nobody"
    assert_eq "1||lifecyclectl: Permission denied: only root may send events." "$(ctl_as_nobody track job-1 x)" "track as nobody"
    assert_nothing_recorded job-4.service
    # Reading is for everyone.
    local json
    json=$(c_exec "${NOBODY[@]}" busctl --json=short call $NAME $OBJECT $INTERFACE GetUnit s job-1.service | jq -r '.data[0]')
    assert_eq "job-1.service 4" "$(jq -r '"\(.unit) \(.sequence)"' <<<"$json")" "GetUnit as nobody"
    assert_eq "$(c_exec jq -c 'del(.pending_dispatches)' "$UNITS_DIR/job-1.service.json")" "$(jq -c . <<<"$json")" \
        "GetUnit is the state file, without the dispatches on their way to the journal"
    json=$(c_exec "${NOBODY[@]}" busctl --json=short call $NAME $OBJECT $INTERFACE ListUnits | jq -r '.data[0]')
    assert_eq "job-1.service lc-x.service" "$(jq -r 'map(.unit) | join(" ")' <<<"$json")" "ListUnits as nobody"
    json=$(c_exec "${NOBODY[@]}" busctl --json=short call $NAME $OBJECT $INTERFACE GetStatus | jq -r '.data[0]')
    assert_eq '{"degraded":[]}' "$json" "GetStatus as nobody"
    c_exec "${NOBODY[@]}" busctl introspect $NAME $OBJECT >/dev/null || fail "Introspect as nobody failed"
}

test_daemon_stopped_and_restarted() {
    c_exec systemctl stop lifecycled.service
    assert_eq "1||lifecyclectl: lifecycled is not running ($NAME is not on the system bus)." "$(ctl launch job-1)" "launch while stopped"
    local released
    released=$(c_exec journalctl --no-pager -u lifecycled.service -o cat | grep -c "Failed to release" || true)
    assert_eq 0 "$released" "release failures at shutdown"
    assert_eq "" "$(c_exec journalctl --no-pager -u lifecycled.service -p err -o cat)" "errors logged by lifecycled"
    # Type=notify: systemctl start returns at READY=1, which lifecycled sends only once it owns its name.
    c_exec systemctl start lifecycled.service
    name_owned || fail "lifecycled was ready before it owned $NAME"
    # The state survived: a launch after the wake is a new run that never slept, so it counts a crash.
    assert_eq "0|job-1.service: launch dispatched, sequence 5.|" "$(ctl launch -v job-1)" "launch after a restart"
    wait_dispatches job-1.service 5
    assert_journal_has "$(dispatches job-1.service)" MESSAGE_ID=$ID_LAUNCH LIFECYCLE_SEQUENCE=5 LIFECYCLE_DIDDETECTCRASH=true
}

# unit_json UNIT: the unit's object in `lifecyclectl status --json`.
unit_json() { c_exec "$CTL" status --json | jq -c --arg u "$1" '.units[] | select(.unit == $u)'; }

crash_notices() { dispatches "$1" | jq -c --arg id "$ID_CRASH" 'select(.MESSAGE_ID == $id)' | grep -c . || true; }

has_crash_notices() { (($(crash_notices "$1") >= $2)); }

test_options_before_the_verb() {
    assert_eq "0|job-5.service: launch dispatched, sequence 1.|" "$(ctl -v launch job-5)" "lifecyclectl -v launch"
    assert_eq "0|job-5.service: sleep dispatched, sequence 2.|" "$(ctl --verbose sleep job-5)" "--verbose before sleep"
    local listed
    listed=$(c_exec "$CTL" --json list | jq -r '.units | map(.unit) | join(" ")')
    assert_contains "$listed" "job-5.service" "lifecyclectl --json list"
}

test_failed_unit() {
    c_exec systemd-run --quiet --unit=lc-bad.service /bin/sh -c 'exit 7' || true
    wait_for "$WAIT" has_crash_notices lc-bad.service 1
    local unit awake
    unit=$(unit_json lc-bad.service)
    assert_eq "failed exit-code 7 false 1" "$(jq -r '[.state, .result, .status, .crash_looping, .counts.crashes] | map(tostring) | join(" ")' <<<"$unit")" "lc-bad in status --json"
    awake=$(jq -r .total_seconds_awake <<<"$unit")
    sleep 2.1
    assert_eq "$awake" "$(unit_json lc-bad.service | jq -r .total_seconds_awake)" "AWAKE of a failed unit, 2 s later"
    local row
    row=$(c_exec "$CTL" status --no-legend lc-bad)
    assert_contains "$row" "lc-bad.service failed exit-code, status=7" "status lc-bad"
    c_exec systemctl reset-failed lc-bad.service
}

test_killed_unit() {
    c_exec systemd-run --quiet --unit=lc-kill.service /usr/bin/sleep 300
    wait_dispatches lc-kill.service 1
    c_exec systemctl kill --signal=KILL lc-kill.service
    wait_for "$WAIT" has_crash_notices lc-kill.service 1
    assert_eq "failed signal 9/KILL" "$(unit_json lc-kill.service | jq -r '[.state, .result, .status] | join(" ")')" "lc-kill in status --json"
    assert_contains "$(c_exec "$CTL" status --no-legend lc-kill)" "signal, status=9/KILL" "status lc-kill"
    assert_journal_has "$(dispatches lc-kill.service)" MESSAGE_ID=$ID_CRASH "MESSAGE=lc-kill.service: crash (signal, status 9/KILL)"
    c_exec systemctl reset-failed lc-kill.service
}

test_crash_loop() {
    # Restarted 200 ms after each failure: three failures come within a second or two (systemd's start limit, 5
    # starts in 10 s, stops it after five).
    c_exec systemd-run --quiet --unit=lc-loop.service -p Restart=on-failure -p RestartSec=200ms /bin/sh -c 'exit 1'
    wait_for "$WAIT" has_crash_notices lc-loop.service 3
    assert_eq true "$(unit_json lc-loop.service | jq -r .crash_looping)" "crash_looping of lc-loop"
    assert_contains "$(c_exec "$CTL" status --no-legend lc-loop)" "lc-loop.service crash-looping" "status lc-loop"
    c_exec systemctl stop lc-loop.service
    c_exec systemctl reset-failed lc-loop.service 2>/dev/null || true
    # A unit that failed once is failed, not crash-looping.
    assert_eq false "$(unit_json lc-bad.service | jq -r .crash_looping)" "crash_looping of lc-bad"
}

test_status_filters() {
    local out
    out=$(c_exec "$CTL" status --no-legend 'lc-b*' 'job-1')
    assert_eq "job-1.service lc-bad.service" "$(awk '{ print $1 }' <<<"$out" | paste -sd ' ')" "status 'lc-b*' job-1"
    out=$(c_exec "$CTL" status --json --failed | jq -r '.units | map(.unit) | join(" ")')
    assert_contains "$out" "lc-bad.service lc-kill.service" "status --failed"
    [[ $out != *job-1* ]] || fail "status --failed lists job-1.service, which never failed: $out"
    out=$(c_exec "$CTL" --no-pager status --failed lc-kill --no-legend)
    assert_contains "$out" "lc-kill.service failed" "--no-pager status --failed lc-kill"
    assert_eq "4||lifecyclectl: Unit lc-bda.service has no lifecycle state (not tracked, or not started since lifecycled watches it). Did you mean lc-bad.service?" \
        "$(ctl status --no-legend lc-bda)" "status of a mistyped unit"
    assert_contains "$(ctl show lc-kil)" "Did you mean lc-kill.service?" "show of a mistyped unit"
    assert_eq "4||lifecyclectl: Unit jbo-1.service is not watched by lifecycled (no pattern in \"watch\" matches it). Did you mean job-1.service?" \
        "$(ctl launch jbo-1)" "launch of a mistyped unit"
}

test_runs() {
    local doc
    c_exec systemctl stop lifecycled.service
    doc=$(c_exec "$CTL" runs --json lc-kill)
    c_exec systemctl start lifecycled.service
    assert_eq "lc-kill.service 1" "$(jq -r '"\(.unit) \(.runs | length)"' <<<"$doc")" "runs of lc-kill, lifecycled down"
    assert_eq "launch crash signal 9/KILL false" \
        "$(jq -r '.runs[0] | [.begin, .end, .result, .exit_status, .reconciled] | map(tostring) | join(" ")' <<<"$doc")" \
        "the run of lc-kill"
    assert_eq "$(state lc-kill.service .invocation_id)" "$(jq -r '.runs[0].invocation_id' <<<"$doc")" "its InvocationID"
    doc=$(c_exec "$CTL" runs --json -n 2 lc-loop)
    assert_eq "2 crash" "$(jq -r '"\(.runs | length) \(.runs[1].end)"' <<<"$doc")" "runs -n 2 of lc-loop"
    assert_contains "$(c_exec "$CTL" runs --no-legend lc-bad)" "crash exit-code, status=7" "runs of lc-bad as text"
    assert_eq 0 "$(c_exec "$CTL" runs --json --since=-1s job-1 | jq '.runs | length')" "runs --since=-1s"
}

test_reload_with_a_bad_configuration() {
    local pid rc=0 out
    pid=$(unit_prop lifecycled.service MainPID)
    printf '{"watch": ["lc-*.service"],}\n' | c_exec_stdin tee /etc/lifecycled/lifecycled.json.d/50-broken.json >/dev/null
    out=$(c_exec systemctl reload lifecycled.service 2>&1) || rc=$?
    ((rc != 0)) || fail "systemctl reload with a broken drop-in succeeded: $out"
    assert_eq active "$(unit_prop lifecycled.service ActiveState)" "lifecycled after the refused reload"
    assert_eq "$pid" "$(unit_prop lifecycled.service MainPID)" "lifecycled's pid after the refused reload"
    assert_contains "$(c_exec journalctl --no-pager -u lifecycled.service -o cat)" "50-broken.json:1:" "the reason, logged"
    # The readers go on past the broken drop-in, with a warning.
    out=$(ctl status --no-legend job-1)
    assert_contains "$out" "0|job-1.service" "status with a broken drop-in"
    assert_contains "$out" "Warning: /etc/lifecycled/lifecycled.json.d/50-broken.json:1:" "its warning"
    assert_contains "$(ctl show job-1)" "0|unit=job-1.service" "show with a broken drop-in"
    c_exec rm /etc/lifecycled/lifecycled.json.d/50-broken.json
    c_exec systemctl reload lifecycled.service || fail "reload with the drop-in removed failed"
}

test_check_config_warnings() {
    local drop_in=/etc/lifecycled/lifecycled.json.d/50-lint.json out err rc=0
    printf '{"watch": ["nc-web", "lc-*.service", "job-x.service "]}\n' | c_exec_stdin tee $drop_in >/dev/null
    out=$(c_exec $PREFIX_INSIDE/bin/lifecycled --check-config 2>"$work/stderr") || rc=$?
    err=$(<"$work/stderr")
    assert_eq 0 "$rc" "exit status of --check-config with patterns that never match"
    assert_contains "$out" "Read /etc/lifecycled/lifecycled.json"$'\n'"Read $drop_in" "the files read"
    assert_contains "$out" "watch  from $drop_in" "where watch came from"
    assert_contains "$err" "warning: $drop_in: watch[0]: pattern \"nc-web\" can never match a unit name" "nc-web"
    assert_contains "$err" "warning: $drop_in: watch[2]: pattern \"job-x.service \" can never match a unit name: a space" "trailing space"
    c_exec rm $drop_in
}

test_install_layout() {
    c_exec test -d /etc/lifecycled/lifecycled.json.d || fail "install.sh did not create the drop-in directory"
    c_exec rm -rf /tmp/stage
    c_exec env DESTDIR=/tmp/stage PREFIX=/opt/lc /opt/lifecycled-src/scripts/install.sh /opt/lifecycled-build >/dev/null
    c_exec env DESTDIR=/tmp/stage /opt/lifecycled-src/scripts/uninstall.sh >/dev/null
    assert_eq "/tmp/stage
/tmp/stage/etc
/tmp/stage/etc/lifecycled
/tmp/stage/etc/lifecycled/lifecycled.json
/tmp/stage/etc/lifecycled/lifecycled.json.d" "$(c_exec find /tmp/stage | sort)" "what uninstall.sh leaves of a staged install"
}

test_state_directory_rule() {
    # The configuration's state_directory is honoured by lifecycled and lifecyclectl alike (here a folder inside the
    # unit's StateDirectory=, which is writable under ProtectSystem=strict).
    printf '{"state_directory": "/var/lib/lifecycled/alt"}\n' |
        c_exec_stdin tee /etc/lifecycled/lifecycled.json.d/40-state.json >/dev/null
    c_exec systemctl restart lifecycled.service
    c_exec systemd-run --quiet --wait --unit=lc-alt.service true
    wait_dispatches lc-alt.service 2
    c_exec test -f /var/lib/lifecycled/alt/units/lc-alt.service.json || fail "lifecycled did not use state_directory"
    local listed
    listed=$(c_exec "$CTL" status --json | jq -r '.units | map(.unit) | join(" ")')
    assert_contains "$listed" "lc-alt.service" "lifecyclectl status reads the same state directory"
    [[ $listed != *job-1* ]] || fail "lifecyclectl status read the default state directory: $listed"
    c_exec rm /etc/lifecycled/lifecycled.json.d/40-state.json
    c_exec systemctl restart lifecycled.service
}

# follow: each dispatch of the matching units as it happens, one line each; other units' dispatches are left out.
test_follow() {
    c_exec sh -c "timeout 20 $CTL follow 'lc-follow-*' --json >/tmp/follow.json 2>/tmp/follow.err & echo \$! >/tmp/follow.pid"
    c_exec sh -c "timeout 20 $CTL follow lc-follow-a >/tmp/follow.txt 2>&1 &"
    sleep 1 # follow has opened the journal and is waiting
    c_exec systemd-run --quiet --wait --unit=lc-follow-a.service true
    c_exec systemd-run --quiet --wait --unit=lc-other-b.service true
    c_exec systemd-run --quiet --wait --unit=lc-follow-c.service sh -c 'exit 3' || true
    wait_dispatches lc-follow-c.service 2
    sleep 0.5
    local lines
    lines=$(c_exec jq -r '"\(.unit) \(.event) \(.sequence)"' /tmp/follow.json)
    assert_eq $'lc-follow-a.service launch 1\nlc-follow-a.service sleep 2\nlc-follow-c.service launch 1\nlc-follow-c.service crash 2' \
        "$lines" "follow --json: the matching units' dispatches, in order"
    assert_eq 2 "$(c_exec grep -c 'lc-follow-a.service: ' /tmp/follow.txt)" "follow lc-follow-a: its two dispatches"
    assert_contains "$(c_exec cat /tmp/follow.txt)" "lc-follow-a.service: launch #1" "follow's text line"
    c_exec sh -c 'kill $(cat /tmp/follow.pid)' || true
}

# --- run -----------------------------------------------------------------------------------------------------------

container_install_trap
container_boot "lc-ctl-$$" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
echo "container lc-ctl-$$ booted in $CONTAINER_BOOT_SECONDS s"
c_exec mkdir -p /etc/lifecycled
printf '%s\n' "$CONFIG" | c_exec_stdin tee /etc/lifecycled/lifecycled.json >/dev/null
install_or_exit

run_test "lifecycled owns $NAME; Introspect lists the methods" test_name_and_introspection
run_test "launch, sleep, wake of a unit without autotracking, with the caller's data" test_manual_events
run_test "track: custom events of any watched unit" test_custom_events
run_test "refused events: ManualTrackNotAllowed, InvalidEventOrder, UnknownUnit, InvalidArgument" test_refused_events
run_test "usage errors exit 64 and send nothing" test_usage_errors
run_test "non-root may not send events but may read" test_non_root
run_test "stopped lifecycled: not running; restarted: owns the name again" test_daemon_stopped_and_restarted
run_test "options before the verb: -v launch, --json list" test_options_before_the_verb
run_test "a unit that exits 7 is failed with exit-code, status 7, and its AWAKE stops" test_failed_unit
run_test "a unit killed with SIGKILL is failed with signal, status 9/KILL" test_killed_unit
run_test "a unit that keeps failing is crash-looping" test_crash_loop
run_test "status PATTERN, --failed, --no-pager, and did you mean (status, show, launch)" test_status_filters
run_test "runs: a unit's runs from the journal, while lifecycled is down" test_runs
run_test "reload with a bad configuration fails and the daemon keeps running; readers go on" test_reload_with_a_bad_configuration
run_test "--check-config lists the files and warns about patterns that never match" test_check_config_warnings
run_test "install.sh makes the drop-in folder; uninstall.sh leaves no empty folder" test_install_layout
run_test "follow: dispatches of the matching units as they happen, text and JSON" test_follow
run_test "lifecycled and lifecyclectl share the configuration's state_directory" test_state_directory_rule

container_poweroff
if ((_tests_failed == 0)); then # from lib/assert.sh
    rm -rf "$work"
else
    echo "console log kept in $work"
fi
finish_tests # the last line: "N passed, N failed"
