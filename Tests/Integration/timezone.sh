#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Time zones in the shipped static release binaries, which carry no ICU and so no zone data of Foundation's: boots
# this machine's root as a throw-away container with /etc/localtime pointing at Europe/Berlin, installs lifecycled
# with scripts/install.sh, and checks the local-time data points (lifecycle_hourofday_local,
# lifecycle_dayofweek_local) of `lifecyclectl replay` with --timezone, with TZ and with /etc/localtime, of the
# installed daemon with the machine's zone and with "time_zone", and the errors for a zone that does not exist.
# One container for the whole suite. Needs root, systemd-container and jq.
# Usage: Tests/Integration/timezone.sh BUILD_DIR      (the release build: scripts/test passes it)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"

# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"
suite_preflight timezone.sh "$@"
readonly CTL=$PREFIX_INSIDE/bin/lifecyclectl
readonly LIFECYCLED=$PREFIX_INSIDE/bin/lifecycled
readonly CONFIG=/etc/lifecycled/lifecycled.json
readonly UNITS_DIR=/var/lib/lifecycled/units
readonly BASE_CONFIG='{"watch": ["lc-tz-*.service"]}'
readonly MANUAL=/tmp/lc-tz/manual.json # manual events for replay: autotracking off
readonly WAIT=20                       # seconds any polled condition may take

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-timezone.XXXXXX")
export CONTAINER_LOG_DIR=$work

# --- helpers -------------------------------------------------------------------------------------------------------

# write_history NAME INSTANT...: a history inside the container that launches at the first instant, then sleeps and
# wakes in turn at the others (every event is a dispatch with local-time data points).
write_history() {
    local name=$1 event=launch instant
    shift
    for instant in "$@"; do
        printf '{"unit": "a.service", "event": "%s", "time": "%s"}\n' "$event" "$instant"
        if [[ $event == sleep ]]; then event="wake"; else event="sleep"; fi
    done | c_exec_stdin install -D -m 0644 /dev/stdin "/tmp/lc-tz/$name.jsonl"
}

# local_points [ENV...] -- ARGS...: runs `lifectl replay ARGS` inside (with ENV set) and prints "hour/weekday" of
# each dispatch on one line; fails on any error output or exit status.
local_points() {
    local -a env=()
    while [[ $1 != -- ]]; do
        env+=("$1")
        shift
    done
    shift
    local out
    out=$(c_exec env "${env[@]}" "$CTL" replay "$@" 2>"$work/stderr") ||
        fail "replay $*: exit status $?: $(<"$work/stderr")"
    [[ ! -s $work/stderr ]] || fail "replay $*: wrote to standard error: $(<"$work/stderr")"
    jq -r '"\(.data.lifecycle_hourofday_local)/\(.data.lifecycle_dayofweek_local)"' <<<"$out" | paste -sd ' '
}

# expected_point ZONE INSTANT: "hour/weekday" of INSTANT in ZONE by glibc's date(1), weekday 1 = Sunday as in the
# engine. glibc reads the same tz database, so this is an independent oracle for the daemon's live dispatches.
expected_point() {
    local hour weekday
    hour=$(TZ=$1 date -d "$2" +%-H)
    weekday=$(TZ=$1 date -d "$2" +%w)
    printf '%s/%s\n' "$hour" $((weekday + 1))
}

# dispatch_point ENTRY: "hour/weekday" of one journal entry, and its LIFECYCLE_TIME on the next line.
dispatch_point() {
    jq -r '"\(.LIFECYCLE_HOUROFDAY_LOCAL)/\(.LIFECYCLE_DAYOFWEEK_LOCAL)\n\(.LIFECYCLE_TIME)"' <<<"$1"
}

# assert_dispatches_in ZONE UNIT: each dispatch of UNIT carries the local hour and weekday of its time in ZONE.
assert_dispatches_in() {
    local zone=$1 unit=$2 entry point time
    while IFS= read -r entry; do
        { read -r point && read -r time; } < <(dispatch_point "$entry")
        assert_eq "$(expected_point "$zone" "$time")" "$point" "$unit: hour/weekday of the dispatch at $time"
    done < <(dispatches "$unit")
}

run_unit() {
    c_exec systemd-run --quiet --wait --unit="$1" true >/dev/null
    wait_dispatches "$1" 2
}

# --- tests ---------------------------------------------------------------------------------------------------------

test_replay_berlin() {
    # 2026-03-29 01:00Z: 01:59:59 CET then 03:00:00 CEST (a Sunday, 1); 2026-10-25 01:00Z: 02:59:59 CEST then
    # 02:00:00 CET; 2090: after the zone file's last transition, the footer rule CET-1CEST,M3.5.0,M10.5.0/3.
    write_history berlin 2026-03-29T00:59:59Z 2026-03-29T01:00:00Z 2026-10-25T00:59:59Z 2026-10-25T01:00:00Z \
        2090-03-26T00:59:59Z 2090-03-26T01:00:00Z
    assert_eq "1/1 3/1 2/1 2/1 1/1 3/1" \
        "$(local_points -- --config $MANUAL --timezone Europe/Berlin /tmp/lc-tz/berlin.jsonl)" "Europe/Berlin"
}

test_replay_kathmandu() {
    # +05:30 until 1986-01-01 00:15 local, then +05:45 (also by the footer <+0545>-5:45 in 2090).
    write_history kathmandu 1985-12-31T18:29:59Z 1985-12-31T18:30:00Z 2026-03-01T23:30:00Z 2090-06-01T00:00:00Z
    assert_eq "23/3 0/4 5/2 5/5" \
        "$(local_points -- --config $MANUAL --timezone Asia/Kathmandu /tmp/lc-tz/kathmandu.jsonl)" "Asia/Kathmandu"
}

test_replay_new_york() {
    # 2026-03-08 07:00Z: 01:59:59 EST then 03:00:00 EDT; 2026-11-01 06:00Z: 01:59:59 EDT then 01:00:00 EST (Sundays).
    write_history new_york 2026-03-08T06:59:59Z 2026-03-08T07:00:00Z 2026-11-01T05:59:59Z 2026-11-01T06:00:00Z \
        2090-11-05T06:00:00Z
    assert_eq "1/1 3/1 1/1 1/1 1/1" \
        "$(local_points -- --config $MANUAL --timezone America/New_York /tmp/lc-tz/new_york.jsonl)" "America/New_York"
}

test_replay_machine_zone() {
    # No --timezone: TZ (a name, with or without ':', or a POSIX rule), else /etc/localtime (Europe/Berlin here).
    local history=/tmp/lc-tz/new_york.jsonl
    assert_eq "12/1 12/1 11/1 11/1 11/1" "$(local_points TZ=Asia/Kathmandu -- --config $MANUAL $history)" \
        "TZ=Asia/Kathmandu"
    assert_eq "1/1 3/1 1/1 1/1 1/1" "$(local_points TZ=EST5EDT,M3.2.0,M11.1.0 -- --config $MANUAL $history)" \
        "TZ=EST5EDT,M3.2.0,M11.1.0"
    assert_eq "7/1 8/1 6/1 7/1 7/1" "$(local_points TZ=:Europe/Berlin -- --config $MANUAL $history)" "TZ=:Europe/Berlin"
    assert_eq "7/1 8/1 6/1 7/1 7/1" "$(local_points -- --config $MANUAL $history)" "/etc/localtime"
    assert_eq "6/1 7/1 5/1 6/1 6/1" "$(local_points TZ= -- --config $MANUAL $history)" "TZ= (UTC)"
}

test_daemon_machine_zone() {
    run_unit lc-tz-berlin.service
    assert_dispatches_in Europe/Berlin lc-tz-berlin.service
    assert_eq 2 "$(state lc-tz-berlin.service '.sequence')" "sequence in the state file"
    assert_contains "$(c_exec journalctl --no-pager -u lifecycled.service -o cat)" \
        "Local-time data points use time zone Europe/Berlin (the machine's, from /etc/localtime)" "lifecycled's log"
}

test_configured_zone() {
    local out
    write_config '{"watch": ["lc-tz-*.service"], "time_zone": "Asia/Kathmandu"}'
    out=$(c_exec "$LIFECYCLED" --check-config 2>&1) || fail "--check-config refused time_zone Asia/Kathmandu: $out"
    assert_contains "$out" "$CONFIG: valid; watching " "--check-config"
    assert_contains "$out" "; time zone Asia/Kathmandu (time_zone)" "--check-config"
    reload_lifecycled "Reloaded the configuration"
    run_unit lc-tz-kathmandu.service
    assert_dispatches_in Asia/Kathmandu lc-tz-kathmandu.service
    # For replay as well, the configured zone wins over TZ and /etc/localtime, and --timezone over it.
    local configured=/tmp/lc-tz/kathmandu.json history=/tmp/lc-tz/new_york.jsonl
    printf '%s\n' '{"autotracking_enabled": false, "time_zone": "Asia/Kathmandu"}' |
        c_exec_stdin install -D -m 0644 /dev/stdin $configured
    assert_eq "12/1 12/1 11/1 11/1 11/1" "$(local_points TZ=UTC0 -- --config $configured $history)" "time_zone"
    assert_eq "6/1 7/1 5/1 6/1 6/1" "$(local_points -- --config $configured --timezone UTC $history)" "--timezone UTC"
}

test_missing_zone() {
    local out rc=0
    out=$(c_exec "$CTL" replay --timezone Mars/Olympus /tmp/lc-tz/berlin.jsonl 2>&1) || rc=$?
    assert_eq 64 "$rc" "exit status of replay --timezone Mars/Olympus"
    assert_contains "$out" \
        'Error: --timezone: unknown time zone "Mars/Olympus" (no such file /usr/share/zoneinfo/Mars/Olympus;' \
        "replay --timezone Mars/Olympus"
    rc=0
    out=$(c_exec "$CTL" replay --timezone ../../etc/passwd /tmp/lc-tz/berlin.jsonl 2>&1) || rc=$?
    assert_eq 64 "$rc" "exit status of replay --timezone ../../etc/passwd"
    assert_contains "$out" 'invalid time zone name "../../etc/passwd"' "replay --timezone ../../etc/passwd"

    printf '%s\n' '{"time_zone": "Mars/Olympus"}' | c_exec_stdin install -D -m 0644 /dev/stdin /tmp/lc-tz/mars.json
    rc=0
    out=$(c_exec "$LIFECYCLED" --check-config --config /tmp/lc-tz/mars.json 2>&1) || rc=$?
    assert_eq 1 "$rc" "exit status of --check-config with time_zone Mars/Olympus"
    assert_contains "$out" \
        '/tmp/lc-tz/mars.json: time_zone: unknown time zone "Mars/Olympus" (no such file /usr/share/zoneinfo/Mars/' \
        "--check-config with time_zone Mars/Olympus"
    rc=0
    out=$(c_exec "$CTL" replay --config /tmp/lc-tz/mars.json /tmp/lc-tz/berlin.jsonl 2>&1) || rc=$?
    assert_eq 1 "$rc" "exit status of replay --config with time_zone Mars/Olympus"
    assert_contains "$out" '/tmp/lc-tz/mars.json: time_zone: unknown time zone "Mars/Olympus"' "replay --config"

    # The running daemon refuses it on SIGHUP and keeps tracking, still in Asia/Kathmandu, numbering on.
    local pid
    pid=$(unit_prop lifecycled.service MainPID)
    write_config '{"watch": ["lc-tz-*.service"], "time_zone": "Mars/Olympus"}'
    reload_lifecycled "Failed to reload the configuration"
    assert_eq "$pid" "$(unit_prop lifecycled.service MainPID)" "MainPID after the refused reload"
    run_unit lc-tz-kathmandu.service
    wait_dispatches lc-tz-kathmandu.service 4
    assert_dispatches_in Asia/Kathmandu lc-tz-kathmandu.service
    assert_eq 4 "$(state lc-tz-kathmandu.service '.sequence')" "sequence in the state file"
}

# SIGHUP sent directly: `systemctl reload` validates first (ExecReload=lifecycled --check-config) and would never
# deliver it for a configuration the daemon must refuse itself.
reload_lifecycled() {
    local before
    before=$(daemon_log_count "$1")
    c_exec systemctl kill -s HUP --kill-whom=main lifecycled.service
    wait_daemon_log "$1" $((before + 1))
}

# --- run -----------------------------------------------------------------------------------------------------------

container_install_trap
container_boot "lc-tz-$$" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
echo "container lc-tz-$$ booted in $CONTAINER_BOOT_SECONDS s"
# /etc is a fresh tmpfs in the container: the machine's zone is whatever the suite links here.
c_exec ln -sf ../usr/share/zoneinfo/Europe/Berlin /etc/localtime
write_config "$BASE_CONFIG"
printf '%s\n' '{"autotracking_enabled": false}' | c_exec_stdin install -D -m 0644 /dev/stdin "$MANUAL"
install_or_exit

run_test "replay --timezone Europe/Berlin: both DST switches, and the footer rule in 2090" test_replay_berlin
run_test "replay --timezone Asia/Kathmandu: +05:30, then +05:45 from 1986" test_replay_kathmandu
run_test "replay --timezone America/New_York: both DST switches, and 2090" test_replay_new_york
run_test "replay without --timezone: TZ (name or POSIX rule), else /etc/localtime" test_replay_machine_zone
run_test "the installed daemon's dispatches are in /etc/localtime's zone" test_daemon_machine_zone
run_test "time_zone Asia/Kathmandu: accepted by --check-config, used after a reload" test_configured_zone
run_test "an unknown zone: usage error 64 for --timezone, refused configuration, nothing lost" test_missing_zone

container_poweroff
if ((_tests_failed == 0)); then # from lib/assert.sh
    rm -rf "$work"
else
    echo "console log kept in $work"
fi
finish_tests # the last line: "N passed, N failed"
