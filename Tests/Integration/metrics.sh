#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# lifecycled's metrics_file as Prometheus gets it: boots this machine's root as a throw-away container, installs
# lifecycled with scripts/install.sh and metrics_file in Debian's textfile directory, runs Debian's node_exporter
# inside with only its textfile collector on a free loopback port, drives units through launches, wakes, sleeps,
# crashes, an update and a crash loop, and checks that what node_exporter serves for each unit equals its state file,
# that the file is rewritten within a second of a dispatch, that the counters survive a restart of lifecycled and
# reset-failed, that lifecyclectl metrics prints the same, and that promtool accepts the file and the example alert
# rules. One container, about 30 s. (That the file is also rewritten once a minute with nothing changing is proved by
# DaemonCoreMetricsTests, without waiting a minute.)
# Needs root, systemd-container, jq, curl, prometheus-node-exporter and prometheus (for promtool), installed with
# --no-install-recommends and .ci/10-integration-tests.preset, as .ci/run does.
# Usage: Tests/Integration/metrics.sh BUILD_DIR      (the release build: scripts/test passes it)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"
# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"
suite_preflight metrics.sh "$@"
for tool in prometheus-node-exporter promtool curl; do
    command -v "$tool" >/dev/null || {
        echo "metrics.sh: $tool is missing; install .ci/10-integration-tests.preset in" \
            "/usr/lib/systemd/system-preset/, then: apt-get install --no-install-recommends" \
            "prometheus-node-exporter prometheus curl" >&2
        exit 1
    }
done

readonly CTL=$PREFIX_INSIDE/bin/lifecyclectl
readonly UNITS_DIR=/var/lib/lifecycled/units
readonly TEXTFILE_DIR=/var/lib/prometheus/node-exporter
readonly PROM=$TEXTFILE_DIR/lifecycled.prom
readonly CONFIG="{\"watch\": [\"lc-*.service\"], \"metrics_file\": \"$PROM\"}"
# A unit name with one of systemd's escapes: the label value must become lc-sleep@a\\x2db.service in the file.
readonly ESCAPED='lc-sleep@a\x2db.service'
readonly WAIT=20 # seconds any polled condition may take

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-metrics.XXXXXX")
export CONTAINER_LOG_DIR=$work

# --- helpers -------------------------------------------------------------------------------------------------------

# A loopback port nothing listens on (the container shares the host's network).
free_port() {
    local port
    for port in $(shuf -i 20000-60999 -n 50); do
        [[ -z $(ss -Hltn "sport = :$port") ]] && { echo "$port"; return 0; }
    done
    return 1
}

scrape() { c_exec curl -sf "http://127.0.0.1:$PORT/metrics"; }

# The label value of a unit in the text format.
label() { printf '%s' "${1//\\/\\\\}"; }

# assert_same_number EXPECTED ACTUAL WHAT: equal as numbers (node_exporter writes 1.7e+09 for 1700000000).
assert_same_number() {
    [[ -n $2 ]] || fail "$3: no such series (expected $1)"
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; exit !(d < 0.0005 && d > -0.0005) }' ||
        fail "$3: expected $1, got $2"
}


# assert_unit_served UNIT: every per-unit series node_exporter serves for UNIT equals its state file.
assert_unit_served() {
    local unit=$1 text name file
    text=$(scrape)
    name=$(label "$unit")
    file=$(c_exec cat "$UNITS_DIR/$unit.json")
    local -A expected=(
        [lifecycled_unit_launches_total]='.state.count_total_launch'
        [lifecycled_unit_wakes_total]='.state.count_total_wake'
        [lifecycled_unit_sleeps_total]='.state.count_total_sleep'
        [lifecycled_unit_updates_total]='.update_count // 0'
        [lifecycled_unit_awake_seconds_total]='.state.total_seconds_awake'
        [lifecycled_unit_first_launch_timestamp_seconds]='.state.timestamp_first_launch / 1000'
    )
    local family
    for family in "${!expected[@]}"; do
        assert_same_number "$(jq -r "${expected[$family]}" <<<"$file")" \
            "$(series_value "$text" "$family{name=\"$name\"}")" "$unit: $family"
    done
    local event key
    for event in launch:timestamp_last_launch wake:timestamp_last_wake sleep:timestamp_last_sleep \
        update:timestamp_update crash:last_failure; do
        key=${event#*:}
        local value
        if [[ $key == last_failure ]]; then
            value=$(jq -r '.last_failure.time // empty' <<<"$file")
        else
            value=$(jq -r ".state.$key // empty" <<<"$file")
        fi
        local served series="lifecycled_unit_last_event_timestamp_seconds"
        served=$(series_value "$text" "$series{event=\"${event%%:*}\",name=\"$name\"}")
        if [[ -z $value ]]; then
            [[ -z $served ]] || fail "$unit: a last ${event%%:*} time is served ($served) that the state file lacks"
        else
            assert_same_number "$(awk -v v="$value" 'BEGIN { printf "%.3f", v / 1000 }')" "$served" \
                "$unit: last ${event%%:*} time"
        fi
    done
    # Crashes by Result: the state file's counts; the rest of the crash count (the engine's, plus a last run that
    # failed) is "unknown".
    local failed result total=0 count
    failed=$(jq -r 'if .run_ended and (.state.last_event | IN("launch", "wake")) then 1 else 0 end' <<<"$file")
    for result in core-dump exit-code oom-kill signal timeout watchdog; do
        count=$(series_value "$text" "lifecycled_unit_crashes_total{name=\"$name\",result=\"$result\"}")
        assert_same_number "$(jq -r --arg r "$result" '.crash_results[$r] // 0' <<<"$file")" "$count" \
            "$unit: crashes with result $result"
    done
    total=$(P="lifecycled_unit_crashes_total{name=\"$name\"," \
        awk 'index($0, ENVIRON["P"]) == 1 { s += $2 } END { print s + 0 }' <<<"$text")
    assert_same_number "$(($(jq -r '.state.count_total_crash' <<<"$file") + failed))" "$total" "$unit: crashes in total"
    local version
    version=$(jq -r '.state.app_version' <<<"$file")
    assert_eq 1 "$(series_value "$text" "lifecycled_unit_version_info{name=\"$name\",version=\"$version\"}")" \
        "$unit: version info"
}

# The unit's lines of the file, without the time-dependent crash-looping gauge.
unit_lines() { grep '^lifecycled_unit_' | grep -v '^lifecycled_unit_crash_looping' || true; }

file_matches_ctl() { [[ $(c_exec cat "$PROM" | unit_lines) == "$(c_exec "$CTL" metrics | unit_lines)" ]]; }

served_is() { [[ $(series_value "$(scrape)" "$1") == "$2" ]]; }

# kill_main UNIT: SIGKILLs the unit's main process and waits until systemd has restarted it.
kill_main() {
    local pid
    pid=$(unit_prop "$1" MainPID)
    c_exec kill -KILL "$pid"
    wait_for "$WAIT" restarted "$1" "$pid"
}
restarted() { local now; now=$(unit_prop "$1" MainPID); [[ $now != 0 && $now != "$2" ]]; }

# --- tests ---------------------------------------------------------------------------------------------------------

test_written_at_start() {
    c_exec test -f "$PROM" || fail "lifecycled did not write $PROM at start"
    assert_eq "644 root" "$(c_exec stat -c '%a %U' "$PROM")" "mode and owner of $PROM"
    local text
    text=$(c_exec cat "$PROM")
    assert_contains "$text" 'lifecycled_build_info{version="0.1.0"} 1'
    assert_contains "$text" '# TYPE lifecycled_dispatches_total counter'
    local out
    out=$(c_exec promtool check metrics <<<"$text" 2>&1) || fail "promtool check metrics: $out"
    assert_eq "" "$out" "promtool check metrics"
    assert_eq 0 "$(series_value "$(scrape)" node_textfile_scrape_error)" "node_textfile_scrape_error"
}

test_rewritten_within_a_second_of_a_dispatch() {
    local series shown="" dispatched
    series="lifecycled_unit_launches_total{name=\"$(label "$ESCAPED")\"}"
    c_exec systemctl start "$ESCAPED"
    local deadline=$((SECONDS + WAIT))
    while [[ -z $shown ]] && ((SECONDS < deadline)); do
        [[ $(series_value "$(c_exec cat "$PROM")" "$series") == 1 ]] && shown=$EPOCHREALTIME
        sleep 0.05
    done
    [[ -n $shown ]] || fail "$series never reached 1 in $PROM"
    dispatched=$(dispatches "$ESCAPED" | jq -r 'select(.LIFECYCLE_EVENT == "launch") | .__REALTIME_TIMESTAMP' | head -1)
    local delay
    delay=$(awk -v a="$dispatched" -v b="$shown" 'BEGIN { printf "%.2f", b - a / 1e6 }')
    awk -v d="$delay" 'BEGIN { exit !(d < 1.5) }' || fail "the file showed the launch $delay s after its dispatch"
    echo "  the file showed the launch $delay s after its dispatch"
}

test_served_values_equal_state_files() {
    # lc-crash: launch, sleep, wake, a SIGKILL (crash notice, signal), the restart's launch that counts the crash.
    c_exec systemctl start lc-crash.service
    wait_dispatches lc-crash.service 1
    c_exec systemctl stop lc-crash.service
    c_exec systemctl start lc-crash.service
    wait_dispatches lc-crash.service 3
    kill_main lc-crash.service
    wait_dispatches lc-crash.service 5
    # lc-app: launch, sleep, and a launch of a new version (an update).
    c_exec mkdir -p /opt/lc-bin
    printf '#!/bin/sh\n# v1\nexec sleep 300\n' | c_exec_stdin install -m 0755 /dev/stdin /opt/lc-bin/app
    c_exec systemctl start lc-app.service
    wait_dispatches lc-app.service 1
    c_exec systemctl stop lc-app.service
    printf '#!/bin/sh\n# v2\nexec sleep 300\n' | c_exec_stdin install -m 0755 /dev/stdin /opt/lc-bin/app
    c_exec systemctl start lc-app.service
    wait_dispatches lc-app.service 3
    assert_eq 1 "$(state lc-app.service .update_count)" "lc-app.service update_count"
    assert_eq 1 "$(state lc-crash.service '.crash_results.signal')" "lc-crash.service crash_results.signal"
    # The last dispatch reaches the file within a second, and node_exporter reads it at every scrape.
    wait_for 5 served_is "lifecycled_unit_launches_total{name=\"lc-app.service\"}" 2
    wait_for 5 served_is "lifecycled_pending_dispatches" 0
    local unit
    for unit in lc-crash.service lc-app.service "$ESCAPED"; do
        assert_unit_served "$unit"
    done
    local text
    text=$(scrape)
    assert_eq 0 "$(series_value "$text" node_textfile_scrape_error)" "node_textfile_scrape_error"
    assert_eq 0 "$(series_value "$text" 'lifecycled_unit_crash_looping{name="lc-crash.service"}')" "crash looping"
    # lifecycled has not restarted yet: its launch dispatches are the launches of every state file.
    local launches
    launches=$(c_exec sh -c "jq -s 'map(.state.count_total_launch) | add' $UNITS_DIR/*.json")
    assert_eq "$launches" "$(series_value "$text" 'lifecycled_dispatches_total{event="launch"}')" "launch dispatches"
    assert_eq 1 "$(series_value "$text" 'lifecycled_dispatches_total{event="crash"}')" "crash notices"
}

test_lifecyclectl_metrics_prints_the_same() {
    wait_for 5 file_matches_ctl || {
        diff <(c_exec cat "$PROM" | unit_lines) <(c_exec "$CTL" metrics | unit_lines) >&2 || true
        return 1
    }
    local text
    text=$(c_exec "$CTL" metrics)
    [[ $text != *lifecycled_dispatches_total* ]] || fail "lifecyclectl metrics printed the daemon's own counters"
    c_exec systemctl stop lifecycled.service
    assert_eq "$(c_exec cat "$PROM" | unit_lines)" "$(c_exec "$CTL" metrics | unit_lines)" \
        "lifecyclectl metrics, daemon down"
    c_exec systemctl start lifecycled.service
}

test_counters_survive_restart_and_reset_failed() {
    c_exec systemctl start lc-exit3.service || true
    wait_dispatches lc-exit3.service 2
    local before started
    wait_for 5 served_is 'lifecycled_unit_crashes_total{name="lc-exit3.service",result="exit-code"}' 1
    before=$(scrape | grep '^lifecycled_unit_.*_total' | sort)
    started=$(series_value "$(scrape)" lifecycled_start_time_seconds)
    c_exec systemctl reset-failed lc-exit3.service
    c_exec systemctl restart lifecycled.service
    wait_for "$WAIT" restarted_since "$started"
    assert_eq "$before" "$(scrape | grep '^lifecycled_unit_.*_total' | sort)" "per-unit counters after a restart"
}
restarted_since() {
    local now
    now=$(series_value "$(scrape)" lifecycled_start_time_seconds)
    [[ -n $now && $now != "$1" ]]
}

test_crash_loop() {
    local i
    for i in 1 2 3; do kill_main lc-crash.service; done
    wait_for 5 served_is 'lifecycled_unit_crash_looping{name="lc-crash.service"}' 1
    assert_eq 1 "$(series_value "$(c_exec "$CTL" metrics)" 'lifecycled_unit_crash_looping{name="lc-crash.service"}')" \
        "lifecyclectl metrics: crash looping"
}

# reload_with DROPIN_JSON: writes (or with "" removes) a drop-in and reloads lifecycled; returns once it reloaded.
reload_with() {
    local dropin=/etc/lifecycled/lifecycled.json.d/60-metrics-test.json reloads
    reloads=$(daemon_log_count "Reloaded the configuration")
    if [[ -n $1 ]]; then
        printf '%s\n' "$1" | c_exec_stdin install -D -m 0644 /dev/stdin "$dropin"
    else
        c_exec rm -f "$dropin"
    fi
    c_exec systemctl reload lifecycled.service
    wait_daemon_log "Reloaded the configuration" $((reloads + 1))
}

test_unwritable_metrics_file() {
    reload_with '{"metrics_file": "/var/lib/prometheus/absent/lifecycled.prom"}'
    run_marker lc-marker-1.service
    sleep 1.2 # past the once-a-second limit: the next change is written (and fails) again
    run_marker lc-marker-2.service
    wait_daemon_log "Failed to write the metrics file" 1
    sleep 1.2
    assert_eq 1 "$(daemon_log_count "Failed to write the metrics file")" "failures logged (the same one, once)"
    c_exec systemctl is-active --quiet lifecycled.service || fail "lifecycled stopped"
    reload_with ""
    wait_daemon_log "works again" 1
    wait_for 5 served_is 'lifecycled_unit_launches_total{name="lc-marker-2.service"}' 1
}

test_alert_rules() {
    local out
    out=$(c_exec promtool check rules /opt/lifecycled-src/config/prometheus/lifecycled-alerts.yml 2>&1) ||
        fail "promtool check rules: $out"
    # Each alert fires on what should make it fire (promtool's rule unit tests, beside the rules).
    out=$(c_exec sh -c 'cd /opt/lifecycled-src/config/prometheus && promtool test rules lifecycled-alerts.test.yml' \
        2>&1) || fail "promtool test rules: $out"
    out=$(scrape | grep '^lifecycled_\|^# [A-Z]* lifecycled_' | c_exec promtool check metrics 2>&1) ||
        fail "promtool check metrics of what node_exporter serves: $out"
}

# The fields of the newest sleep dispatch of UNIT, as one JSON object.
last_sleep() {
    c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled _UID=0 "LIFECYCLE_UNIT=$1" \
        LIFECYCLE_EVENT=sleep | tail -n 1
}

has_sleep() { [[ -n $(last_sleep "$1") ]]; }

# The fields of the newest launch dispatch of UNIT, as one JSON object.
last_launch() {
    c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled _UID=0 "LIFECYCLE_UNIT=$1" \
        LIFECYCLE_EVENT=launch | tail -n 1
}

# startups_served UNIT COUNT: node_exporter serves COUNT start-ups of UNIT.
startups_served() { [[ $(series_value "$(scrape)" "lifecycled_unit_startup_seconds_count{name=\"$1\"}") == "$2" ]]; }

# near_half_second SECONDS: within 20 % of 0.5.
near_half_second() { awk -v v="$1" 'BEGIN { exit !(v >= 0.4 && v <= 0.6) }'; }

has_launch() { [[ -n $(last_launch "$1") ]]; }


test_run_record() {
    local fields startup duration text cpu
    # systemctl start returns once the unit is active: its launch waited for that, and carries the start-up.
    c_exec systemctl start lc-slowstart.service
    wait_for "$WAIT" has_launch lc-slowstart.service
    startup=$(jq -r '.LIFECYCLE_RUN_STARTUP_SECONDS // "absent"' <<<"$(last_launch lc-slowstart.service)")
    in_range "$startup" 0.9 2.5 ||
        fail "LIFECYCLE_RUN_STARTUP_SECONDS on the launch of a start with ExecStartPre=/bin/sleep 1: $startup"
    # While the run goes on: in lifecyclectl runs, and in the histogram.
    startup=$(c_exec "$CTL" runs lc-slowstart.service --json | jq -r '.runs[0].startup_seconds')
    in_range "$startup" 0.9 2.5 || fail "startup_seconds of the running run in lifecyclectl runs --json: $startup"
    c_exec "$CTL" runs lc-slowstart.service | grep -q STARTUP || fail "no STARTUP column in lifecyclectl runs"
    wait_for "$WAIT" startups_served lc-slowstart.service 1
    c_exec systemctl stop lc-slowstart.service
    wait_for "$WAIT" has_sleep lc-slowstart.service
    fields=$(last_sleep lc-slowstart.service)
    startup=$(jq -r '.LIFECYCLE_RUN_STARTUP_SECONDS // "absent"' <<<"$fields")
    in_range "$startup" 0.9 2.5 || fail "LIFECYCLE_RUN_STARTUP_SECONDS on the sleep of lc-slowstart.service: $startup"
    # The run's duration on PID 1's monotonic clock: its start-up and the few seconds of the checks above.
    duration=$(jq -r '.LIFECYCLE_RUN_DURATION_SECONDS // "absent"' <<<"$fields")
    in_range "$duration" "$startup" 60 || fail "LIFECYCLE_RUN_DURATION_SECONDS of lc-slowstart.service: $duration"
    # A Type=simple service is active as it begins: its launch carries its start-up (a few ms at most).
    startup=$(jq -r '.LIFECYCLE_RUN_STARTUP_SECONDS // "absent"' <<<"$(last_launch lc-app.service)")
    in_range "$startup" 0 0.5 || fail "LIFECYCLE_RUN_STARTUP_SECONDS on the launch of lc-app.service (Type=simple): $startup"
    # Once the file shows the sleep, the histogram still counts the run once, though its launch and sleep both carry it.
    wait_for "$WAIT" served_is 'lifecycled_unit_sleeps_total{name="lc-slowstart.service"}' 1
    text=$(scrape) # node_exporter writes le after the other labels
    assert_eq 0 "$(series_value "$text" 'lifecycled_unit_startup_seconds_bucket{name="lc-slowstart.service",le="0.5"}')" \
        "runs of lc-slowstart.service that started within 0.5 s"
    assert_eq 1 "$(series_value "$text" 'lifecycled_unit_startup_seconds_bucket{name="lc-slowstart.service",le="+Inf"}')" \
        "runs of lc-slowstart.service in the histogram"
    # CPU time: only where the container accounts it; never a made-up 0 where it does not.
    cpu=$(c_exec systemctl show -P CPUUsageNSec lc-slowstart.service)
    if [[ $cpu == "[not set]" || -z $cpu ]]; then
        assert_eq absent "$(jq -r '.LIFECYCLE_RUN_CPU_SECONDS // "absent"' <<<"$fields")" \
            "LIFECYCLE_RUN_CPU_SECONDS on a host without CPU accounting"
        assert_eq absent "$(jq -r '.LIFECYCLE_RUN_MEMORY_PEAK_BYTES // "absent"' <<<"$fields")" \
            "LIFECYCLE_RUN_MEMORY_PEAK_BYTES on a host without memory accounting"
        echo "  SKIP the 0.5 s CPU burn: this container accounts no CPU (CPUUsageNSec is [not set]; a hybrid cgroup v1 host)"
        return 0
    fi
    c_exec systemctl start lc-burn.service
    wait_for "$WAIT" has_sleep lc-burn.service
    cpu=$(jq -r '.LIFECYCLE_RUN_CPU_SECONDS // "absent"' <<<"$(last_sleep lc-burn.service)")
    near_half_second "$cpu" || fail "LIFECYCLE_RUN_CPU_SECONDS of a run that burned 0.5 s of CPU: $cpu"
}

# The fields of the newest crash notice of UNIT, as one JSON object.
last_crash() {
    c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled _UID=0 "LIFECYCLE_UNIT=$1" \
        LIFECYCLE_EVENT=crash | tail -n 1
}

has_crash() { [[ -n $(last_crash "$1") ]]; }

test_core_dump() {
    local fields pattern cursor
    c_exec systemctl start lc-dump.service
    wait_for "$WAIT" has_crash lc-dump.service
    fields=$(last_crash lc-dump.service)
    assert_eq core-dump "$(jq -r '.LIFECYCLE_UNIT_RESULT // "absent"' <<<"$fields")" "Result of a run that dumped core"
    assert_eq true "$(jq -r '.LIFECYCLE_RUN_COREDUMP // "absent"' <<<"$fields")" "LIFECYCLE_RUN_COREDUMP"
    assert_eq 11 "$(jq -r '.LIFECYCLE_RUN_COREDUMP_SIGNAL // "absent"' <<<"$fields")" "LIFECYCLE_RUN_COREDUMP_SIGNAL"
    assert_eq 11 "$(c_exec "$CTL" runs lc-dump.service --json | jq -r ".runs[0].coredump.signal")" \
        "the signal of the run's core dump in lifecyclectl runs --json"
    wait_for "$WAIT" served_is 'lifecycled_unit_coredumps_total{name="lc-dump.service"}' 1
    # The cursor of systemd-coredump's entry: only where the kernel hands dumps to it. core_pattern is the host
    # kernel's, which a container cannot change.
    pattern=$(c_exec cat /proc/sys/kernel/core_pattern)
    cursor=$(jq -r '.LIFECYCLE_RUN_COREDUMP_CURSOR // "absent"' <<<"$fields")
    if [[ $pattern != "|"*systemd-coredump* ]]; then
        assert_eq absent "$cursor" "LIFECYCLE_RUN_COREDUMP_CURSOR where no systemd-coredump keeps dumps"
        echo "  SKIP the core dump's cursor: the host kernel's core_pattern is '$pattern', not systemd-coredump, and a container cannot change it"
        return 0
    fi
    [[ $(c_exec journalctl --no-pager -o json --cursor="$cursor" | head -n 1 | jq -r .COREDUMP_UNIT) == lc-dump.service ]] ||
        fail "LIFECYCLE_RUN_COREDUMP_CURSOR $cursor does not point at systemd-coredump's entry of lc-dump.service"
}

# A kernel OOM kill: only where PID 1 can tell one, on cgroup v2 (the cgroup's memory.events); never faked elsewhere.
test_oom_kill() {
    local fields filesystem
    filesystem=$(c_exec stat -fc %T /sys/fs/cgroup)
    if [[ $filesystem != cgroup2fs ]]; then
        echo "  SKIP the kernel OOM kill: /sys/fs/cgroup here is $filesystem, not cgroup v2 (a hybrid cgroup v1 host): PID 1 cannot tell an OOM kill"
        return 0
    fi
    c_exec systemctl start lc-oom.service
    wait_for "$WAIT" has_crash lc-oom.service
    fields=$(last_crash lc-oom.service)
    assert_eq oom-kill "$(jq -r '.LIFECYCLE_UNIT_RESULT // "absent"' <<<"$fields")" "Result of a run the kernel OOM-killed"
    assert_eq kernel "$(jq -r '.LIFECYCLE_RUN_OOM // "absent"' <<<"$fields")" "LIFECYCLE_RUN_OOM of a live run"
    wait_for "$WAIT" served_is 'lifecycled_unit_oom_kills_total{name="lc-oom.service",source="kernel"}' 1
}

is_failed() { [[ $(unit_prop "$1" ActiveState) == failed ]]; }

# A run that dumped core while lifecycled was stopped: its crash notice, recovered from PID 1's journal, takes its dump
# from systemd-coredump's entry. No systemd-coredump runs here (the host kernel's core_pattern is not it), so the entry
# is written in the form systemd-coredump writes it by a unit named as its instances are: journald's trusted
# _SYSTEMD_UNIT is what lifecycled checks, and an entry from any other unit must be refused.
# journal_send_from UNIT ENTRY: writes ENTRY (printf escapes, one FIELD=value a line) to the journal from a process
# of UNIT that lives on a second after: journald reads the sender's unit (_SYSTEMD_UNIT) from /proc when it takes the
# entry, and leaves it out for a sender already gone (logger --journald exits at once, and lost it now and then).
journal_send_from() {
    c_exec systemd-run --quiet --wait "--unit=$1" python3 -c '
import socket, sys, time
entry = sys.argv[1].encode().decode("unicode_escape").encode()
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(entry, "/run/systemd/journal/socket")
time.sleep(1)' "$2"
}

test_recovered_core_dump() {
    local second fields cursor entry
    c_exec systemctl stop lifecycled.service
    c_exec systemctl reset-failed lc-dump.service
    # The dump of the run before (test_core_dump's) left no entry here, and crash times have whole seconds: in the
    # same second, the entry written below would be that run's too (two runs in a second take its dumps in order).
    sleep 1.1
    c_exec systemctl start lc-dump.service
    wait_for "$WAIT" is_failed lc-dump.service
    second=$(c_exec systemctl show -P ExecMainExitTimestamp --timestamp=unix lc-dump.service)
    second=${second#@}
    entry="MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nMESSAGE=Process 1 (sh) of user 0 dumped core.\n"
    entry+="COREDUMP_UNIT=lc-dump.service\nCOREDUMP_SIGNAL=11\nCOREDUMP_TIMESTAMP=${second}000000\n"
    # A forged one first, from a unit that is not systemd-coredump, with another signal: it must not be taken.
    journal_send_from lc-forger.service "${entry/SIGNAL=11/SIGNAL=6}"
    journal_send_from systemd-coredump@lc-test.service "$entry"
    c_exec systemctl start lifecycled.service
    wait_for "$WAIT" has_reconciled_crash lc-dump.service
    fields=$(last_crash lc-dump.service)
    assert_eq true "$(jq -r '.LIFECYCLE_RECONCILED // "absent"' <<<"$fields")" "the crash notice is a recovered one"
    assert_eq 11 "$(jq -r '.LIFECYCLE_RUN_COREDUMP_SIGNAL // "absent"' <<<"$fields")" "the recovered dump's signal"
    cursor=$(jq -r '.LIFECYCLE_RUN_COREDUMP_CURSOR // "absent"' <<<"$fields")
    assert_eq systemd-coredump@lc-test.service \
        "$(c_exec journalctl --no-pager -o json --cursor="$cursor" | head -n 1 | jq -r ._SYSTEMD_UNIT)" \
        "the unit of the entry LIFECYCLE_RUN_COREDUMP_CURSOR points at"
}

# A run that began and ended while lifecycled was stopped: its recovered begin and sleep carry what PID 1's journal
# holds of it, the start-up from "Starting" to "Started" and the duration to "Deactivated successfully" (by PID 1's
# monotonic clock); what it cost only where PID 1 logged its "Consumed" entry, which it does at debug level for a run
# this small, so none here.
test_recovered_run_record() {
    local launch sleep startup duration
    c_exec systemctl stop lifecycled.service
    c_exec systemctl start lc-slowstart.service
    sleep 0.5
    c_exec systemctl stop lc-slowstart.service
    c_exec systemctl start lifecycled.service
    wait_for "$WAIT" has_reconciled_sleep lc-slowstart.service
    sleep=$(last_sleep lc-slowstart.service)
    # The run's begin: a wake, as the run before slept a moment ago.
    launch=$(c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled _UID=0 LIFECYCLE_UNIT=lc-slowstart.service \
        "LIFECYCLE_INVOCATION_ID=$(jq -r .LIFECYCLE_INVOCATION_ID <<<"$sleep")" | jq -c 'select(.LIFECYCLE_EVENT != "sleep")')
    assert_eq true "$(jq -r '.LIFECYCLE_RECONCILED // "absent"' <<<"$launch")" "the begin is a recovered one"
    startup=$(jq -r '.LIFECYCLE_RUN_STARTUP_SECONDS // "absent"' <<<"$launch")
    in_range "$startup" 0.9 2.5 || fail "LIFECYCLE_RUN_STARTUP_SECONDS of the recovered begin: $startup"
    assert_eq "$startup" "$(jq -r '.LIFECYCLE_RUN_STARTUP_SECONDS // "absent"' <<<"$sleep")" "the recovered sleep's start-up"
    duration=$(jq -r '.LIFECYCLE_RUN_DURATION_SECONDS // "absent"' <<<"$sleep")
    in_range "$duration" "$startup" 30 || fail "LIFECYCLE_RUN_DURATION_SECONDS of the recovered run: $duration"
}

has_reconciled_sleep() { [[ $(last_sleep "$1" | jq -r '.LIFECYCLE_RECONCILED // ""') == true ]]; }

has_reconciled_crash() { [[ $(last_crash "$1" | jq -r '.LIFECYCLE_RECONCILED // ""') == true ]]; }

# --- run -----------------------------------------------------------------------------------------------------------

PORT=$(free_port) || { echo "metrics.sh: no free loopback port" >&2; exit 1; }
container_install_trap
container_boot "lc-metrics-$$" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
echo "container lc-metrics-$$ booted in $CONTAINER_BOOT_SECONDS s"
# The host's packages may bring enabled services along: only the exporter started below may run.
c_exec systemctl mask --now prometheus.service prometheus-node-exporter.service >/dev/null 2>&1
# Before lifecycled starts: ReadWritePaths= makes only a directory that exists then writable.
c_exec mkdir -p "$TEXTFILE_DIR" /etc/lifecycled
printf '%s\n' "$CONFIG" | c_exec_stdin tee /etc/lifecycled/lifecycled.json >/dev/null
copy_test_units
install_or_exit
c_exec systemd-run --quiet --unit=metrics-node-exporter.service prometheus-node-exporter \
    --collector.disable-defaults --collector.textfile --collector.textfile.directory="$TEXTFILE_DIR" \
    --web.listen-address="127.0.0.1:$PORT"
wait_for "$WAIT" scrape || { echo "node_exporter did not answer on 127.0.0.1:$PORT" >&2; exit 1; }

run_test "written at start: mode 0644, promtool accepts it, node_exporter reads it" test_written_at_start
run_test "rewritten within a second of a dispatch; a unit name's \\x2d is escaped" \
    test_rewritten_within_a_second_of_a_dispatch
run_test "what node_exporter serves for each unit equals its state file" test_served_values_equal_state_files
run_test "lifecyclectl metrics prints the file's unit series, daemon up or down" \
    test_lifecyclectl_metrics_prints_the_same
run_test "the counters survive reset-failed and a restart of lifecycled" test_counters_survive_restart_and_reset_failed
run_test "three SIGKILLs in a row: crash looping is 1" test_crash_loop
run_test "a metrics_file that cannot be written is logged once; tracking goes on; writing resumes" \
    test_unwritable_metrics_file
run_test "a run's record: a start with ExecStartPre=/bin/sleep 1 takes about 1 s, on its launch, in runs and the histogram while it goes on, and on its sleep; a Type=simple launch carries its start-up; CPU only where the host accounts it" \
    test_run_record
run_test "a run that dumps core: its crash notice, runs and the counter carry the dump and its signal; the cursor where systemd-coredump keeps dumps" \
    test_core_dump
run_test "a run the kernel OOM-kills: its crash notice and the counter say the kernel killed it, where the host can tell" \
    test_oom_kill
run_test "a run that dumped core while lifecycled was stopped: the recovered crash notice takes systemd-coredump's entry, not a forged one" \
    test_recovered_core_dump
run_test "a run that began and ended while lifecycled was stopped: its recovered begin and sleep carry its start-up and duration from PID 1's journal" \
    test_recovered_run_record
run_test "promtool accepts the alert rules, their tests pass, it accepts the served metrics" test_alert_rules

container_poweroff
if ((_tests_failed == 0)); then # from lib/assert.sh
    rm -rf "$work"
else
    echo "console log kept in $work"
fi
finish_tests # the last line: "N passed, N failed"
