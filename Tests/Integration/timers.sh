#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The runs a timer was due to start, against a real systemd: boots this machine's root as a throw-away container,
# installs lifecycled watching tm-*.service, and starts timers that elapse every 5 s (OnCalendar=*:*:0/5,
# AccuracySec=100ms): one whose service starts at once, one whose service Requires= a oneshot that fails (each elapse
# a missed dispatch with cause dependency), one whose service waits 2 s for a slow dependency (late by its wait), and
# one that never elapses meanwhile, whose service is started by hand (no timer fields); stops lifecycled for two
# elapses (their misses are recovered from PID 1's journal). Then checks the dispatches against PID 1's own journal
# (one miss per failed start job, no more), and `lifecyclectl timers --json`, `show` and the
# metrics against the dispatches; promtool checks the metrics when it is installed; last, sets the services' state
# files aside as corrupt and expects the same runs and misses after the restart. One container, about a minute.
# Needs root, systemd-container and jq.
# Usage: Tests/Integration/timers.sh BUILD_DIR      (the release build: scripts/test passes it)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"
# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"
suite_preflight timers.sh "$@"

readonly CTL=$PREFIX_INSIDE/bin/lifecyclectl
readonly UNITS_DIR=/var/lib/lifecycled/units
readonly PROM=/var/lib/lifecycled/lifecycled.prom
readonly CONFIG_JSON="{\"watch\": [\"tm-*.service\"], \"metrics_file\": \"$PROM\", \"log_level\": \"debug\"}"
readonly WAIT=30 # seconds any polled condition may take
# PID 1's entry for a job that failed ("Dependency failed for …"), JOB_RESULT=dependency (docs/systemd.md).
readonly ID_JOB_FAILED=be02cf6855d2428ba40df7e9d022f03d

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-timers.XXXXXX")
export CONTAINER_LOG_DIR=$work

# --- the units -----------------------------------------------------------------------------------------------------

# unit NAME TEXT: writes /etc/systemd/system/NAME inside.
unit() { printf '%s\n' "$2" | c_exec_stdin install -D -m 0644 /dev/stdin "/etc/systemd/system/$1"; }

# every_five_seconds NAME: a timer that starts NAME.service at every fifth second.
every_five_seconds() {
    unit "$1.timer" "[Timer]
OnCalendar=*:*:0/5
AccuracySec=100ms"
}

# oneshot NAME EXEC [DEPENDENCY]: a oneshot service running EXEC, which Requires= and comes After= DEPENDENCY.
oneshot() {
    local unit_section=""
    [[ -n ${3:-} ]] && unit_section="[Unit]
Requires=$3
After=$3
"
    unit "$1" "${unit_section}[Service]
Type=oneshot
ExecStart=$2"
}

write_units() {
    every_five_seconds tm-ok
    oneshot tm-ok.service /bin/true
    every_five_seconds tm-dep
    oneshot tm-dep.service /bin/true fail-dep.service
    oneshot fail-dep.service /bin/false
    every_five_seconds tm-slow
    oneshot tm-slow.service /bin/true slow-dep.service
    oneshot slow-dep.service "/bin/sleep 2"
    unit tm-manual.timer "[Timer]
OnCalendar=2099-01-01"
    oneshot tm-manual.service /bin/true
}

# --- helpers -------------------------------------------------------------------------------------------------------

# The dispatches of UNIT that carry LIFECYCLE_TIMER, one JSON object per line.
timed() { dispatches "$1" | jq -c 'select(.LIFECYCLE_TIMER)'; }
timed_count() { timed "$1" | grep -c . || true; }
has_timed() { (($(timed_count "$1") >= $2)); }

missed() { dispatches "$1" | jq -c 'select(.LIFECYCLE_EVENT == "missed")'; }
missed_count() { missed "$1" | grep -c . || true; }
has_missed() { (($(missed_count "$1") >= $2)); }

# seconds RFC3339: seconds since the epoch, with the milliseconds.
seconds() { c_exec date -u -d "$1" +%s.%3N; }

# PID 1's failed start jobs of UNIT (JOB_RESULT=dependency), as realtime microseconds, one a line.
failed_jobs() {
    c_exec journalctl --no-pager -o json _PID=1 MESSAGE_ID=$ID_JOB_FAILED "UNIT=$1" JOB_RESULT=dependency |
        jq -r '.__REALTIME_TIMESTAMP'
}

# near A B TOLERANCE: two numbers within TOLERANCE of each other.
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(a != "" && b != "" && d <= t && d >= -t) }'; }



# --- tests ---------------------------------------------------------------------------------------------------------

test_scheduled_runs() {
    wait_for "$WAIT" has_timed tm-ok.service 3
    local run due time lateness
    while read -r run; do
        assert_eq tm-ok.timer "$(jq -r .LIFECYCLE_TIMER <<<"$run")" "LIFECYCLE_TIMER"
        due=$(jq -r .LIFECYCLE_TIMER_DUE_TIME <<<"$run")
        [[ $due =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$ ]] ||
            fail "LIFECYCLE_TIMER_DUE_TIME is not RFC 3339 UTC with milliseconds: $due"
        lateness=$(jq -r .LIFECYCLE_TIMER_LATENESS_SECONDS <<<"$run")
        in_range "$lateness" 0 1 || fail "a run that starts at once is late by $lateness s"
        time=$(jq -r .LIFECYCLE_TIME <<<"$run")
        # The begin less the due time, by PID 1's clocks: the dispatch's own time less its due time.
        near "$(awk -v a="$(seconds "$time")" -v b="$(seconds "$due")" 'BEGIN { print a - b }')" "$lateness" 0.01 ||
            fail "LIFECYCLE_TIME $time less LIFECYCLE_TIMER_DUE_TIME $due is not the lateness $lateness"
        # Due at every fifth second (the elapse within AccuracySec=100ms of it).
        in_range "$(awk -v s="$(seconds "$due")" 'BEGIN { printf "%.3f", s - int(s / 5) * 5 }')" 0 0.5 ||
            fail "due at $due, not within 0.5 s after a fifth second"
        [[ $(jq -r .LIFECYCLE_EVENT <<<"$run") == @(launch|wake) ]] || fail "a timed dispatch that is no begin: $run"
    done < <(timed tm-ok.service)
}

test_manual_start_carries_no_timer() {
    c_exec systemctl start tm-manual.service
    wait_dispatches tm-manual.service 2
    assert_eq 0 "$(timed_count tm-manual.service)" "dispatches of a manual start with LIFECYCLE_TIMER"
    assert_eq launch "$(nth_dispatch tm-manual.service 1 | jq -r .LIFECYCLE_EVENT)" "the manual start's launch"
}

test_failed_dependency_is_missed() {
    wait_for "$WAIT" has_missed tm-dep.service 3
    local miss due
    while read -r miss; do
        assert_eq "$ID_MISSED" "$(jq -r .MESSAGE_ID <<<"$miss")" "MESSAGE_ID of missed"
        assert_eq 4 "$(jq -r .PRIORITY <<<"$miss")" "PRIORITY of missed"
        assert_eq tm-dep.timer "$(jq -r .LIFECYCLE_TIMER <<<"$miss")" "LIFECYCLE_TIMER of missed"
        assert_eq dependency "$(jq -r .LIFECYCLE_MISSED_CAUSE <<<"$miss")" "LIFECYCLE_MISSED_CAUSE"
        assert_eq null "$(jq -r .LIFECYCLE_TIMER_LATENESS_SECONDS <<<"$miss")" "no lateness on a miss"
        assert_eq null "$(jq -r .LIFECYCLE_INVOCATION_ID <<<"$miss")" "no run on a miss"
        due=$(jq -r .LIFECYCLE_TIMER_DUE_TIME <<<"$miss")
        [[ $(jq -r .MESSAGE <<<"$miss") == "tm-dep.service: missed the run tm-dep.timer was due to start at $due (dependency)" ]] ||
            fail "MESSAGE: $(jq -r .MESSAGE <<<"$miss")"
    done < <(missed tm-dep.service)
    # Numbered with the unit's sequence like any dispatch: 1, 2, 3, … (tm-dep never ran).
    assert_eq "$(seq -s ' ' 1 "$(dispatch_count tm-dep.service)")" \
        "$(dispatches tm-dep.service | jq -r .LIFECYCLE_SEQUENCE | paste -sd ' ')" "the unit's sequence numbers"
    assert_eq 0 "$(dispatches tm-dep.service | jq -c 'select(.LIFECYCLE_EVENT != "missed")' | grep -c . || true)" \
        "dispatches of tm-dep.service other than missed"
}

test_slow_dependency_is_late() {
    wait_for "$WAIT" has_timed tm-slow.service 2
    local lateness
    for lateness in $(timed tm-slow.service | jq -r .LIFECYCLE_TIMER_LATENESS_SECONDS); do
        in_range "$lateness" 1.9 4 || fail "a run that waited 2 s for its dependency is late by $lateness s"
    done
}

reconciled_missed_count() { missed "$1" | jq -c 'select(.LIFECYCLE_RECONCILED == "true")' | grep -c . || true; }
# failed_jobs_between UNIT FROM TO: PID 1's failed start jobs of UNIT logged between two times (seconds).
failed_jobs_between() { failed_jobs "$1" | awk -v a="$2" -v b="$3" '$1 / 1e6 > a && $1 / 1e6 < b' | grep -c . || true; }

# The due time of the first miss lifecycled saw live (not recovered) after the time given, in seconds; or nothing.
first_live_miss_after() {
    missed tm-dep.service | jq -r 'select(.LIFECYCLE_RECONCILED != "true") | .LIFECYCLE_TIMER_DUE_TIME' |
        while read -r due; do
            awk -v d="$(seconds "$due")" -v t="$1" 'BEGIN { if (d > t) print d }'
        done | head -1
}
has_live_miss_after() { [[ -n $(first_live_miss_after "$1") ]]; }

test_misses_while_stopped() {
    local stopped started live count miss
    wait_for "$WAIT" has_missed tm-dep.service 1
    c_exec systemctl stop lifecycled.service
    stopped=$(c_exec date +%s.%N)
    sleep 11 # two elapses or three
    started=$(c_exec date +%s.%N)
    c_exec systemctl start lifecycled.service
    # Every failed start job is either recovered or seen live: those before the first elapse seen live are recovered.
    wait_for "$WAIT" has_live_miss_after "$started"
    live=$(first_live_miss_after "$started")
    count=$(failed_jobs_between tm-dep.service "$stopped" "$live")
    assert_ge 2 "$count" "PID 1's failed start jobs of tm-dep.service while lifecycled was stopped"
    assert_eq "$count" "$(reconciled_missed_count tm-dep.service)" "recovered missed dispatches, one per failed job"
    while read -r miss; do
        assert_eq dependency "$(jq -r .LIFECYCLE_MISSED_CAUSE <<<"$miss")" "LIFECYCLE_MISSED_CAUSE of a recovered miss"
        assert_eq tm-dep.timer "$(jq -r .LIFECYCLE_TIMER <<<"$miss")" "LIFECYCLE_TIMER of a recovered miss"
        in_range "$(seconds "$(jq -r .LIFECYCLE_TIME <<<"$miss")")" "$stopped" "$live" ||
            fail "a recovered miss dated $(jq -r .LIFECYCLE_TIME <<<"$miss"), not while lifecycled was away"
    done < <(missed tm-dep.service | jq -c 'select(.LIFECYCLE_RECONCILED == "true")')
}

test_stopped_timers_views_equal_dispatches() {
    c_exec systemctl stop tm-ok.timer tm-dep.timer tm-slow.timer
    # A start job under way (tm-slow's, waiting for its dependency) finishes, and its dispatches go out.
    c_exec sh -c 'while [ -n "$(systemctl list-jobs --no-legend)" ]; do sleep 0.2; done'
    sleep 1
    # One miss per start job PID 1 failed, counted from the first miss lifecycled saw (the timers may have elapsed
    # once before lifecycled followed them), and never two for one elapse.
    local first jobs
    first=$(seconds "$(missed tm-dep.service | head -1 | jq -r .LIFECYCLE_TIMER_DUE_TIME)")
    jobs=$(failed_jobs tm-dep.service | awk -v f="$first" '$1 / 1e6 >= f - 0.001' | grep -c . || true)
    assert_eq "$jobs" "$(missed_count tm-dep.service)" "missed dispatches, and PID 1's failed start jobs since the first"
    assert_eq "$(missed_count tm-dep.service)" \
        "$(missed tm-dep.service | jq -r .LIFECYCLE_TIMER_DUE_TIME | sort -u | grep -c .)" "one miss per due time"

    local views timer unit runs misses last
    views=$(c_exec "$CTL" timers --json)
    for timer in tm-ok tm-dep tm-slow; do
        unit=$timer.service
        runs=$(timed "$unit" | jq -c 'select(.LIFECYCLE_EVENT != "missed")' | grep -c . || true)
        misses=$(missed_count "$unit")
        local row
        row=$(jq -c --arg t "$timer.timer" '.timers[] | select(.timer == $t)' <<<"$views")
        [[ -n $row ]] || fail "lifecyclectl timers --json has no $timer.timer: $views"
        assert_eq "$unit" "$(jq -r .unit <<<"$row")" "$timer.timer: unit"
        assert_eq "$runs" "$(jq -r .runs <<<"$row")" "$timer.timer: runs"
        assert_eq "$misses" "$(jq -r .missed <<<"$row")" "$timer.timer: missed"
        last=$(dispatches "$unit" | jq -r 'select(.LIFECYCLE_TIMER) | .LIFECYCLE_TIMER_DUE_TIME' | sort | tail -1)
        assert_eq "$last" "$(jq -r .last_trigger <<<"$row")" "$timer.timer: last_trigger, the last due time"
        assert_eq null "$(jq -r .next_elapse <<<"$row")" "$timer.timer: next_elapse of a stopped timer"
    done
    assert_contains "$(c_exec "$CTL" show tm-dep.service)" "timers.tm-dep.timer.missed=$(missed_count tm-dep.service)"
    assert_contains "$(c_exec "$CTL" show tm-dep.service)" "timers.tm-dep.timer.last_result=missed (dependency)"
    local table
    table=$(c_exec "$CTL" timers)
    assert_contains "$table" "NEXT"
    assert_contains "$table" "missed (dependency)"
    echo "$table" | sed 's/^/  /'
}

has_metrics_file() { c_exec test -s "$PROM"; }

test_metrics_equal_dispatches() {
    local text timer unit labels
    wait_for "$WAIT" has_metrics_file
    sleep 1.2 # the file is written at most once a second
    text=$(c_exec cat "$PROM")
    for timer in tm-ok tm-dep tm-slow; do
        unit=$timer.service
        labels="timer=\"$timer.timer\",unit=\"$unit\""
        assert_eq "$(timed "$unit" | jq -c 'select(.LIFECYCLE_EVENT != "missed")' | grep -c . || true)" \
            "$(series_value "$text" "lifecycled_timer_runs_total{$labels}")" "$timer: lifecycled_timer_runs_total"
        assert_eq "$(missed_count "$unit")" \
            "$(series_value "$text" "lifecycled_timer_missed_total{cause=\"dependency\",$labels}")" \
            "$timer: lifecycled_timer_missed_total{cause=dependency}"
        assert_eq "$(series_value "$text" "lifecycled_timer_runs_total{$labels}")" \
            "$(series_value "$text" "lifecycled_timer_lateness_seconds_count{$labels}")" "$timer: lateness count"
        [[ -n $(series_value "$text" "lifecycled_timer_last_trigger_timestamp_seconds{$labels}") ]] ||
            fail "$timer: no lifecycled_timer_last_trigger_timestamp_seconds"
        [[ -z $(series_value "$text" "lifecycled_timer_next_elapse_timestamp_seconds{$labels}") ]] ||
            fail "$timer: a next elapse for a stopped timer"
    done
    # The slow dependency's runs are all in the histogram's buckets of 5 s and above, none within 1 s.
    assert_eq 0 "$(series_value "$text" 'lifecycled_timer_lateness_seconds_bucket{le="1",timer="tm-slow.timer",unit="tm-slow.service"}')" \
        "tm-slow runs late by at most 1 s"
    assert_eq "$(c_exec cat "$PROM" | grep '^lifecycled_timer_')" "$(c_exec "$CTL" metrics | grep '^lifecycled_timer_')" \
        "lifecyclectl metrics prints the same timer series"
    if command -v promtool >/dev/null; then
        local out
        out=$(promtool check metrics <<<"$text" 2>&1) || fail "promtool check metrics: $out"
        out=$(c_exec promtool check rules /opt/lifecycled-src/config/prometheus/lifecycled-alerts.yml 2>&1) ||
            fail "promtool check rules: $out"
    else
        echo "  promtool is not installed: the metrics' format is not checked"
    fi
}

# The state files of the timers' services set aside as corrupt: each unit is rebuilt from its dispatches, and its
# timers' runs and misses with it, so that lifecycled_timer_runs_total and _missed_total never go back.
test_timer_totals_rebuilt() {
    local before after timer
    before=$(c_exec "$CTL" timers --json | jq -c '[.timers[] | {timer, runs, missed}] | sort_by(.timer)')
    c_exec systemctl stop lifecycled.service
    for timer in tm-ok tm-dep tm-slow; do
        c_exec sh -c "echo '{\"torn' > $UNITS_DIR/$timer.service.json"
    done
    c_exec systemctl start lifecycled.service
    after=$(c_exec "$CTL" timers --json | jq -c '[.timers[] | {timer, runs, missed}] | sort_by(.timer)')
    assert_eq "$before" "$after" "each timer's runs and misses after its unit's state file was set aside"
}

# --- the suite -----------------------------------------------------------------------------------------------------

container_install_trap
container_boot "lc-timers-$$" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
echo "container lc-timers-$$ booted in $CONTAINER_BOOT_SECONDS s"
c_exec mkdir -p /etc/lifecycled
printf '%s\n' "$CONFIG_JSON" | c_exec_stdin tee /etc/lifecycled/lifecycled.json >/dev/null
install_or_exit
write_units
c_exec systemctl daemon-reload
resyncs=$(resync_count)
c_exec systemctl start tm-ok.timer tm-dep.timer tm-slow.timer tm-manual.timer
# The timers' services are loaded now: the reload's listing names them, and lifecycled reads their timers.
c_exec systemctl daemon-reload
wait_resyncs_settled $((resyncs + 1))

run_test "scheduled runs carry LIFECYCLE_TIMER, an RFC 3339 due time and a lateness equal to their begin less it" \
    test_scheduled_runs
run_test "a run started by hand carries no timer field" test_manual_start_carries_no_timer
run_test "a start job failed on its dependency: a missed dispatch at warning, cause dependency, in the unit's sequence" \
    test_failed_dependency_is_missed
run_test "a start job that waited 2 s for a slow dependency is late by its wait" test_slow_dependency_is_late
run_test "misses while lifecycled is stopped: one recovered missed dispatch per start job PID 1 failed meanwhile" \
    test_misses_while_stopped
run_test "one miss per failed start job; stopped timers: lifecyclectl timers and show equal the dispatches, no next elapse" \
    test_stopped_timers_views_equal_dispatches
run_test "the timer metrics equal the dispatches (promtool, when installed, accepts them)" test_metrics_equal_dispatches
run_test "state files set aside as corrupt: each timer's runs and misses are rebuilt from the dispatches" \
    test_timer_totals_rebuilt

container_poweroff
if ((_tests_failed == 0)); then # from lib/assert.sh
    rm -rf "$work"
else
    echo "console log kept in $work"
fi
finish_tests # the last line: "N passed, N failed"
