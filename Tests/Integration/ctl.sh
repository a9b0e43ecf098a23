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
    assert_eq ".GetUnit s s
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

container_poweroff
if ((_tests_failed == 0)); then # from lib/assert.sh
    rm -rf "$work"
else
    echo "console log kept in $work"
fi
finish_tests # the last line: "N passed, N failed"
