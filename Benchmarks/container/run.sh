#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# lifecycled under a real systemd: boots this machine's own root as a throw-away container (the integration suites'
# harness, Tests/Integration/lib/container.sh), installs lifecycled with scripts/install.sh, and measures
#   1. latency from a unit's own transition (systemd's state-change timestamp) to its dispatch in the journal, in
#      three series of start/stop cycles: paced, back to back, and paced with version_source none,
#   2. idle cost: CPU and wakeups per thread over a quiet minute,
#   3. resident memory and time to READY=1 with 1,000 loaded, watched units (then once more after the churn),
#   4. churn: transient units as fast as systemd runs them; dispatches vs runs, lifecycled's CPU vs PID 1's.
# Prints figures and a summary (with how busy the whole machine was meanwhile); asserts nothing. Always powers the
# container off. Needs root, systemd-container and jq (perf, if installed, adds a count of short-lived threads).
# About 5 minutes on 2 cores. Method and results: docs/PERFORMANCE.md.
#
# Usage: Benchmarks/container/run.sh [BUILD_DIR]
#   BUILD_DIR holds static release binaries of lifecycled and lifecyclectl; without it the script builds them with
#   swift build -c release --static-swift-stdlib --scratch-path .build-release
# The binaries are copied first, so a rebuild during the run does not change what is measured.
#
# Sizes (environment, for quick trials): LAT_CYCLES (500: start/stop cycles per latency series), LAT_PAUSE (0.05 s),
# CHURN_UNITS (2000), CHURN_CLIENTS (4), IDLE_SECONDS (60), MEM_UNITS (1000), MEM_BATCH (100), READY_RESTARTS (3).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$here/lib.sh"

LAT_CYCLES=${LAT_CYCLES:-500}
LAT_PAUSE=${LAT_PAUSE:-0.05}
CHURN_UNITS=${CHURN_UNITS:-2000}
CHURN_CLIENTS=${CHURN_CLIENTS:-4}
IDLE_SECONDS=${IDLE_SECONDS:-60}
MEM_UNITS=${MEM_UNITS:-1000}
MEM_BATCH=${MEM_BATCH:-100}
READY_RESTARTS=${READY_RESTARTS:-3}

readonly INSIDE=/opt/lifecycled-src/Benchmarks/container/inside
readonly PREFIX_INSIDE=/opt/lifecycled
# PID 1's "Started UNIT" (SD_MESSAGE_UNIT_STARTED), "UNIT: Deactivated successfully." (SD_MESSAGE_UNIT_SUCCESS) and
# "UNIT: Failed with result …" (SD_MESSAGE_UNIT_FAILURE_RESULT).
readonly PID1_STARTED=39f53479d3a045ac8e11786248231fbf
readonly PID1_SUCCESS=7ad2d189f7e94e70a38c781354912448
readonly PID1_FAILED=d9b373ed55a64feb8242e02dbe79a49c
# journald's "Suppressed N messages from UNIT" (SD_MESSAGE_JOURNAL_DROPPED).
readonly JOURNAL_DROPPED=a596d6fe7bfa4994828e72309e95d61e
readonly CONFIG='{"watch": [{"pattern": "lc-latnv.service", "version_source": "none"}, "lc-lat.service", "lc-churn-*.service", "lc-mem@*.service"]}'

if ((EUID != 0)); then
    echo "run.sh: must run as root (systemd-nspawn boots a container)" >&2
    exit 1
fi
for tool in systemd-nspawn nsenter jq; do
    command -v "$tool" >/dev/null || { echo "run.sh: $tool is missing (apt-get install systemd-container util-linux jq)" >&2; exit 1; }
done

if (($# > 1)); then
    echo "usage: Benchmarks/container/run.sh [BUILD_DIR]" >&2
    exit 64
fi
origin="given as BUILD_DIR"
if (($# == 1)); then
    build_dir=$1
else
    origin="built from checkout $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
    git -C "$repo" diff --quiet HEAD -- Sources Package.swift 2>/dev/null || origin+=" with uncommitted changes to Sources"
    [[ -d /opt/swift/usr/bin ]] && PATH=/opt/swift/usr/bin:$PATH
    (cd "$repo" && swift build -c release --static-swift-stdlib --scratch-path .build-release >&2)
    build_dir=$(cd "$repo" && swift build -c release --static-swift-stdlib --scratch-path .build-release --show-bin-path)
fi
for binary in lifecycled lifecyclectl; do
    [[ -x $build_dir/$binary ]] || { echo "run.sh: $build_dir/$binary is missing" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-bench.XXXXXX")
export CONTAINER_LOG_DIR=$work
mkdir "$work/bin"
cp "$build_dir/lifecycled" "$build_dir/lifecyclectl" "$work/bin/"

declare -A result=()
# record KEY VALUE: a figure for the summary.
record() { result[$1]=$2; }

# --- helpers -------------------------------------------------------------------------------------------------------

# Waits until the process's CPU time has not moved for SECONDS (default 2): lifecycled has handled its backlog.
wait_cpu_quiet() {
    local pid=$1 quiet=${2:-2} last now still=0 deadline=$((SECONDS + 300))
    last=$(cpu_ticks "$pid")
    while ((SECONDS < deadline)); do
        sleep 0.5
        now=$(cpu_ticks "$pid")
        if [[ $now == "$last" ]]; then
            still=$((still + 1))
            ((still >= quiet * 2)) && return 0
        else
            still=0
            last=$now
        fi
    done
    say "warning: process $pid still busy after 300 s"
}

# Every dispatch: "UNIT EVENT INVOCATION_ID MONOTONIC_US", one per line.
dispatches() {
    c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled \
        --output-fields=LIFECYCLE_UNIT,LIFECYCLE_EVENT,LIFECYCLE_INVOCATION_ID |
        jq -r 'select(.LIFECYCLE_EVENT) | [.LIFECYCLE_UNIT, .LIFECYCLE_EVENT, (.LIFECYCLE_INVOCATION_ID // "-"),
            .__MONOTONIC_TIMESTAMP] | join(" ")'
}

# PID 1's start and end entries: "UNIT MESSAGE_ID INVOCATION_ID MONOTONIC_US".
pid1_entries() {
    c_exec journalctl --no-pager -o json _PID=1 "MESSAGE_ID=$PID1_STARTED" "MESSAGE_ID=$PID1_SUCCESS" \
        "MESSAGE_ID=$PID1_FAILED" --output-fields=UNIT,MESSAGE_ID,INVOCATION_ID |
        jq -r '[.UNIT, .MESSAGE_ID, (.INVOCATION_ID // "-"), .__MONOTONIC_TIMESTAMP] | join(" ")'
}

# lifecycled's own log lines at warning or worse (not dispatches): "COUNT MESSAGE" with unit names folded.
daemon_warnings() {
    c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled -p warning --output-fields=MESSAGE,LIFECYCLE_EVENT |
        jq -r 'select(.LIFECYCLE_EVENT | not) | .MESSAGE' |
        sed -E 's/lc-(churn|mem|lat|latnv)[-@][0-9]*[.a-z]*/lc-\1-N/g' | sort | uniq -c | sort -rn
}

# Other work on the machine skews every figure here: each section says how loaded the machine was.
load_note() {
    printf 'load average %s; systemd-nspawn processes on the machine: %s\n' \
        "$(cut -d' ' -f1-3 /proc/loadavg)" "$(pgrep -c -x systemd-nspawn || true)"
}
# busy_mark, then busy_since MARK: the share of all CPUs' time the whole machine spent busy (anything but idle and
# iowait) in between, e.g. "63%". Our container is part of it.
busy_mark() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
busy_since() {
    local b0 i0 b1 i1
    read -r b0 i0 <<<"$1"
    read -r b1 i1 <<<"$(busy_mark)"
    awk -v b="$((b1 - b0))" -v i="$((i1 - i0))" 'BEGIN { printf "%.0f%%", (b + i > 0 ? 100 * b / (b + i) : 0) }'
}

# --- setup ---------------------------------------------------------------------------------------------------------

container_install_trap
trap 'printf "run.sh: line %s: \"%s\" failed (exit status %s)\n" "$LINENO" "$BASH_COMMAND" "$?" >&2' ERR
section "setup"
say "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)"
say "systemd $(systemctl --version | awk 'NR == 1 { print $2 }'), $(dbus-daemon --version 2>/dev/null | awk 'NR == 1')"
say "lifecycled $(sha256sum "$work/bin/lifecycled" | cut -c1-12) from $build_dir ($origin)"
load_note
container_boot "lc-bench-$$" "$work/bin" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
say "container booted in $CONTAINER_BOOT_SECONDS s (PID 1 is host PID $CONTAINER_PID)"

printf '%s\n' "$CONFIG" | c_exec_stdin install -D -m 0644 /dev/stdin /etc/lifecycled/lifecycled.json
# Latency units: enabled (wanted by multi-user.target) so that systemd keeps them loaded with their timestamps
# between runs; no start rate limit, since they start 500 times in a row.
for unit in lc-lat.service lc-latnv.service; do
    printf '[Unit]\nStartLimitIntervalSec=0\n[Service]\nType=simple\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n' |
        c_exec_stdin install -D -m 0644 /dev/stdin "/etc/systemd/system/$unit"
done
printf '[Service]\nType=simple\nExecStart=/bin/sleep infinity\n' |
    c_exec_stdin install -D -m 0644 /dev/stdin /etc/systemd/system/lc-mem@.service
c_exec systemctl daemon-reload
c_exec systemctl enable --quiet lc-lat.service lc-latnv.service
c_exec env PREFIX=$PREFIX_INSIDE /opt/lifecycled-src/scripts/install.sh /opt/lifecycled-build >/dev/null
say "lifecycled: $(unit_prop lifecycled.service ActiveState), $(unit_prop lifecycled.service StatusText)"
lc_pid=$(unit_host_pid lifecycled.service)
journald_pid=$(unit_host_pid systemd-journald.service)
dbus_pid=$(unit_host_pid dbus.service)
say "host PIDs: lifecycled $lc_pid, PID 1 $CONTAINER_PID, journald $journald_pid, dbus-daemon $dbus_pid"

# --- 1. latency ----------------------------------------------------------------------------------------------------

# latency_series NAME UNIT CYCLES PAUSE: drives the unit, then joins each dispatch with the transition it reports.
# Reference: systemd's own state-change time of the unit, InactiveExitTimestampMonotonic for a run's start (launch
# or wake) and InactiveEnterTimestampMonotonic for its end (sleep). Second reference, for comparison: PID 1's own
# journal entries for the same InvocationID ("Started", "Deactivated successfully"), which go through journald the
# same way the dispatch does.
latency_series() {
    local name=$1 unit=$2 cycles=$3 pause=$4 transitions started elapsed mark busy
    transitions=$work/lat-$name.txt
    started=$EPOCHREALTIME
    mark=$(busy_mark)
    c_exec "$INSIDE/latency.sh" "$unit" "$cycles" "$pause" >"$transitions"
    busy=$(busy_since "$mark")
    elapsed=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
    sleep 1
    # Only this series' runs: the unit's earlier runs belong to the series before.
    dispatches | awk 'FILENAME == ARGV[1] { run[$1] = 1; next } ($3 in run)' "$transitions" - \
        >"$work/lat-$name-dispatches.txt"
    pid1_entries | awk 'FILENAME == ARGV[1] { run[$1] = 1; next } ($3 in run)' "$transitions" - \
        >"$work/lat-$name-pid1.txt"
    # lines: KIND LATENCY_US (kind: begin or end), from the unit's timestamps
    awk 'FILENAME == ARGV[1] { began[$1] = $2; ended[$1] = $3; next }
        $2 == "sleep" && ($3 in ended) { print "end", $4 - ended[$3]; next }
        ($2 == "launch" || $2 == "wake") && ($3 in began) { print "begin", $4 - began[$3] }' \
        "$transitions" "$work/lat-$name-dispatches.txt" >"$work/lat-$name-us.txt"
    awk -v s="$PID1_STARTED" -v d="$PID1_SUCCESS" \
        'FILENAME == ARGV[1] { if ($2 == s) began[$3] = $4; else if ($2 == d) ended[$3] = $4; next }
        $2 == "sleep" && ($3 in ended) { print "end", $4 - ended[$3]; next }
        ($2 == "launch" || $2 == "wake") && ($3 in began) { print "begin", $4 - began[$3] }' \
        "$work/lat-$name-pid1.txt" "$work/lat-$name-dispatches.txt" >"$work/lat-$name-pid1-us.txt"
    local all begin end pid1 n_disp
    all=$(awk '{ print $2 }' "$work/lat-$name-us.txt" | percentiles)
    begin=$(awk '$1 == "begin" { print $2 }' "$work/lat-$name-us.txt" | percentiles)
    end=$(awk '$1 == "end" { print $2 }' "$work/lat-$name-us.txt" | percentiles)
    pid1=$(awk '{ print $2 }' "$work/lat-$name-pid1-us.txt" | percentiles)
    n_disp=$(grep -c . "$work/lat-$name-dispatches.txt" || true)
    say "$name: $unit, $cycles cycles in $elapsed s, pause $pause s; $n_disp dispatches for $((2 * cycles)) transitions;" \
        "machine busy $busy"
    printf '  %-44s %6s %8s %8s %8s\n' "latency, ms" n p50 p99 max
    lat_row "all transitions (vs unit timestamps)" "$all"
    lat_row "  run began: launch/wake vs InactiveExit" "$begin"
    lat_row "  run ended: sleep vs InactiveEnter" "$end"
    lat_row "all (vs PID 1's journal entry, same run)" "$pid1"
    record "lat_${name}_all" "$all"
    record "lat_${name}_begin" "$begin"
    record "lat_${name}_end" "$end"
    record "lat_${name}_pid1" "$pid1"
    record "lat_${name}_count" "$n_disp/$((2 * cycles))"
    record "lat_${name}_busy" "$busy"
}

# lat_row LABEL "N P50 P99 MAX"
lat_row() {
    local -a v
    read -r -a v <<<"$2"
    printf '  %-44s %6s %8s %8s %8s\n' "$1" "${v[@]}"
}

section "1. latency: transition to dispatch"
load_note
latency_series paced lc-lat.service "$LAT_CYCLES" "$LAT_PAUSE"
latency_series b2b lc-lat.service "$LAT_CYCLES" 0
latency_series nover lc-latnv.service "$((LAT_CYCLES / 2))" "$LAT_PAUSE"
say "(paced: $LAT_PAUSE s after each transition; b2b: back to back; nover: version_source none, paced)"

# --- 2. idle -------------------------------------------------------------------------------------------------------

# thread_snapshot PID: "TID COMM/WCHAN VOLUNTARY NONVOLUNTARY RUNTIME_NS" per thread. WCHAN is the kernel function
# the thread sleeps in, which tells the threads apart where their names do not (an sd-bus thread inherits the name of
# the libdispatch worker that created it): poll_schedule_timeout is an sd-bus thread's poll(2) (one for the units, one
# for lifecycled's own D-Bus interface), do_epoll_wait the libdispatch manager (its timers), futex_* idle workers,
# sigsuspend the main thread. WCHAN is read at the end of the period.
thread_snapshot() {
    local task comm
    for task in /proc/"$1"/task/*; do
        comm=$(tr ' ' '_' <"$task/comm")/$(cat "$task/wchan" 2>/dev/null || echo '?')
        printf '%s %s %s %s %s\n' "${task##*/}" "$comm" \
            "$(awk '$1 == "voluntary_ctxt_switches:" { print $2 }' "$task/status")" \
            "$(awk '$1 == "nonvoluntary_ctxt_switches:" { print $2 }' "$task/status")" \
            "$(cut -d' ' -f1 "$task/schedstat")"
    done
}

section "2. idle: $IDLE_SECONDS s without transitions"
sleep 5
load_note
lc_pid=$(unit_host_pid lifecycled.service)
thread_snapshot "$lc_pid" >"$work/idle-before.txt"
idle_cpu_before=$(cpu_ticks "$lc_pid")
mark=$(busy_mark)
# perf, when present, also counts the threads that come and go meanwhile (libdispatch starts workers on demand and
# ends them after 5 idle seconds, so /proc only shows the threads alive at the end).
if command -v perf >/dev/null; then
    perf stat -x, -e context-switches,task-clock,task:task_newtask -p "$lc_pid" -o "$work/idle-perf.txt" -- \
        sleep "$IDLE_SECONDS" >/dev/null 2>&1 || sleep "$IDLE_SECONDS"
else
    sleep "$IDLE_SECONDS"
fi
thread_snapshot "$lc_pid" >"$work/idle-after.txt"
idle_cpu_after=$(cpu_ticks "$lc_pid")
say "  machine busy $(busy_since "$mark") meanwhile"
printf '  %-8s %-36s %10s %13s %12s\n' tid "thread/blocked in" voluntary nonvoluntary "cpu (µs)"
awk 'FILENAME == ARGV[1] { v[$1] = $3; n[$1] = $4; r[$1] = $5; next }
    { printf "  %-8s %-36s %10d %13d %12.0f\n", $1, $2, $3 - v[$1], $4 - n[$1], ($5 - r[$1]) / 1000
      tv += $3 - v[$1]; tn += $4 - n[$1]; tr += $5 - r[$1] }
    END { printf "  %-8s %-36s %10d %13d %12.0f\n", "all", "", tv, tn, tr / 1000 }' \
    "$work/idle-before.txt" "$work/idle-after.txt" | tee "$work/idle.txt"
idle_wakeups=$(awk '$1 == "all" { print $2 + $3 }' "$work/idle.txt")
idle_cpu_us=$(awk '$1 == "all" { print $4 }' "$work/idle.txt")
say "  threads: $(wc -l <"$work/idle-after.txt"); CPU (utime+stime) $(((idle_cpu_after - idle_cpu_before) * TICK_MS)) ms;" \
    "VmRSS $(mb "$(status_kb "$lc_pid" VmRSS)") MB"
if [[ -s $work/idle-perf.txt ]]; then
    idle_perf=$(awk -F, '$3 == "context-switches" { cs = $1 } $3 == "task-clock" { tc = $1 } $3 == "task:task_newtask" { nt = $1 }
        END { printf "%s context switches, %.2f ms on CPU, %s threads created", cs, tc, nt }' "$work/idle-perf.txt")
    say "  perf stat over all threads, short-lived ones included: $idle_perf"
    record idle_perf "$idle_perf"
fi
record idle_wakeups "$idle_wakeups"
record idle_cpu "$idle_cpu_us µs ($(((idle_cpu_after - idle_cpu_before) * TICK_MS)) ms in ticks)"
record idle_threads "$(awk '$1 != "all" && ($3 + $4) > 0 { printf "%s%s: %d", sep, $2, $3 + $4; sep = ", " }' "$work/idle.txt")"

# --- 3. memory and READY with MEM_UNITS loaded units ---------------------------------------------------------------

section "3. memory and time to READY=1 with $MEM_UNITS loaded, watched units"
load_note
started=$EPOCHREALTIME
c_exec "$INSIDE/units.sh" start lc-mem@ "$MEM_UNITS" "$MEM_BATCH" | tee "$work/mem-start.txt" | sed 's/^/  /'
say "  started $MEM_UNITS units in batches of $MEM_BATCH in $(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s;" \
    "loaded lc-mem@ units: $(c_exec systemctl list-units --no-legend 'lc-mem@*.service' | grep -c . || true)"
record mem_owner "$(awk '$1 == "owner" { print ($2 == $3 ? "PID 1 kept its bus name " $2 : "PID 1 changed bus name " $2 " -> " $3) }' "$work/mem-start.txt")"
wait_cpu_quiet "$lc_pid"
mem_launches=$(dispatches | awk '$1 ~ /^lc-mem@/ && $2 == "launch"' | grep -c . || true)
say "  lifecycled dispatched $mem_launches launches of lc-mem@ units;" \
    "VmRSS $(mb "$(status_kb "$lc_pid" VmRSS)") MB, VmHWM $(mb "$(status_kb "$lc_pid" VmHWM)") MB while running through them"
record mem_launches "$mem_launches/$MEM_UNITS"

# restart_ready LABEL: stops lifecycled, starts it (Type=notify: start returns at READY=1) and reports
# ActiveEnterTimestampMonotonic - InactiveExitTimestampMonotonic, the start command's own duration and memory.
restart_ready() {
    local label=$1 file=$work/ready-${1// /-}.txt began ready wall pid rss hwm rss2 hwm2 status pid1_0 dbus_0
    c_exec systemctl stop lifecycled.service
    pid1_0=$(cpu_ticks "$CONTAINER_PID")
    dbus_0=$(cpu_ticks "$dbus_pid")
    wall=$EPOCHREALTIME
    c_exec systemctl start lifecycled.service
    wall=$(awk -v a="$wall" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", (b - a) * 1000 }')
    local cpu_pid1 cpu_dbus cpu_lc
    cpu_pid1=$((($(cpu_ticks "$CONTAINER_PID") - pid1_0) * TICK_MS))
    cpu_dbus=$((($(cpu_ticks "$dbus_pid") - dbus_0) * TICK_MS))
    began=$(unit_prop lifecycled.service InactiveExitTimestampMonotonic)
    ready=$(unit_prop lifecycled.service ActiveEnterTimestampMonotonic)
    status=$(unit_prop lifecycled.service StatusText)
    pid=$(unit_host_pid lifecycled.service)
    cpu_lc=$(($(cpu_ticks "$pid") * TICK_MS))
    rss=$(status_kb "$pid" VmRSS)
    hwm=$(status_kb "$pid" VmHWM)
    sleep 3
    rss2=$(status_kb "$pid" VmRSS)
    hwm2=$(status_kb "$pid" VmHWM)
    local ms
    ms=$(awk -v a="$began" -v b="$ready" 'BEGIN { printf "%.0f", (b - a) / 1000 }')
    printf '  %-14s READY after %5s ms (systemctl start: %5s ms); at READY VmRSS %5s MB VmHWM %5s MB; 3 s later %5s / %5s MB; "%s"\n' \
        "$label" "$ms" "$wall" "$(mb "$rss")" "$(mb "$hwm")" "$(mb "$rss2")" "$(mb "$hwm2")" "$status"
    # VmRSS = RssAnon + RssFile + RssShmem. Inside the container /opt is a tmpfs, so the pages of the static binary
    # itself count as RssShmem there (RssFile on a disk).
    printf '  %-14s CPU until READY: lifecycled %s ms, PID 1 %s ms, dbus-daemon %s ms; 3 s after READY RssAnon %s MB, RssFile %s MB, RssShmem %s MB\n' \
        "" "$cpu_lc" "$cpu_pid1" "$cpu_dbus" "$(mb "$(status_kb "$pid" RssAnon)")" "$(mb "$(status_kb "$pid" RssFile)")" \
        "$(mb "$(status_kb "$pid" RssShmem)")"
    printf '%s %s %s %s %s %s %s %s %s %s\n' "$ms" "$wall" "$rss" "$hwm" "$rss2" "$hwm2" "$cpu_lc" "$cpu_pid1" "$cpu_dbus" \
        "$(status_kb "$pid" RssAnon)" >>"$file"
}

for ((r = 1; r <= READY_RESTARTS; r++)); do
    restart_ready "restart $r"
done
lc_pid=$(unit_host_pid lifecycled.service)
record ready_ms "$(awk '{ printf "%s%s", sep, $1; sep = ", " }' "$work"/ready-restart*.txt) ms"
record ready_rss "$(awk '{ if ($5 > r) r = $5; if ($6 > h) h = $6; if ($10 > a) a = $10 } END { printf "VmRSS %.1f MB, VmHWM %.1f MB (RssAnon %.1f MB)", r / 1024, h / 1024, a / 1024 }' "$work"/ready-restart*.txt)"
record ready_cpu "$(awk '{ printf "%s%s/%s/%s", sep, $7, $8, $9; sep = ", " } END { printf " ms" }' "$work"/ready-restart*.txt)"
record ready_dispatches "$(dispatches | awk '$1 ~ /^lc-mem@/' | grep -c . || true) dispatches of lc-mem@ units in total (expected $MEM_UNITS: restarts dispatch nothing)"

started=$EPOCHREALTIME
c_exec "$INSIDE/units.sh" stop lc-mem@ "$MEM_UNITS" "$MEM_BATCH" | sed 's/^/  /'
wait_cpu_quiet "$lc_pid"
say "  stopped them again in $(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s;" \
    "sleeps dispatched: $(dispatches | awk '$1 ~ /^lc-mem@/ && $2 == "sleep"' | grep -c . || true)"

# --- 4. churn ------------------------------------------------------------------------------------------------------

section "4. churn: $CHURN_UNITS transient units from $CHURN_CLIENTS clients"
load_note
lc_pid=$(unit_host_pid lifecycled.service)
cpu_lc0=$(cpu_ticks "$lc_pid")
cpu_pid1_0=$(cpu_ticks "$CONTAINER_PID")
cpu_journald0=$(cpu_ticks "$journald_pid")
cpu_dbus0=$(cpu_ticks "$dbus_pid")
mark=$(busy_mark)
started=$EPOCHREALTIME
c_exec "$INSIDE/churn.sh" lc-churn "$CHURN_UNITS" "$CHURN_CLIENTS"
sent=$EPOCHREALTIME
deadline=$((SECONDS + 300))
while [[ -n $(c_exec systemctl list-units --all --no-legend 'lc-churn-*.service') ]] && ((SECONDS < deadline)); do
    sleep 0.5
done
gone=$EPOCHREALTIME
wait_cpu_quiet "$lc_pid"
cpu_lc=$((($(cpu_ticks "$lc_pid") - cpu_lc0) * TICK_MS))
cpu_pid1=$((($(cpu_ticks "$CONTAINER_PID") - cpu_pid1_0) * TICK_MS))
cpu_journald=$((($(cpu_ticks "$journald_pid") - cpu_journald0) * TICK_MS))
cpu_dbus=$((($(cpu_ticks "$dbus_pid") - cpu_dbus0) * TICK_MS))
churn_busy=$(busy_since "$mark")

dispatches | awk '$1 ~ /^lc-churn-/' >"$work/churn-dispatches.txt"
pid1_entries | awk '$1 ~ /^lc-churn-/' >"$work/churn-pid1.txt"
runs=$(awk -v s="$PID1_STARTED" '$2 == s' "$work/churn-pid1.txt" | grep -c . || true)
ends=$(awk -v d="$PID1_SUCCESS" '$2 == d' "$work/churn-pid1.txt" | grep -c . || true)
failed=$(awk -v f="$PID1_FAILED" '$2 == f' "$work/churn-pid1.txt" | grep -c . || true)
begins=$(awk '$2 == "launch" || $2 == "wake"' "$work/churn-dispatches.txt" | grep -c . || true)
sleeps=$(awk '$2 == "sleep"' "$work/churn-dispatches.txt" | grep -c . || true)
others=$(awk '$2 != "launch" && $2 != "wake" && $2 != "sleep"' "$work/churn-dispatches.txt" | grep -c . || true)
# (No `sort | head` under pipefail: head's early exit would kill sort with SIGPIPE.)
first_run=$(awk -v s="$PID1_STARTED" '$2 == s && (m == "" || $4 < m) { m = $4 } END { print m }' "$work/churn-pid1.txt")
last_end=$(awk -v d="$PID1_SUCCESS" '$2 == d && $4 > m { m = $4 } END { print m }' "$work/churn-pid1.txt")
last_dispatch=$(awk '$4 > m { m = $4 } END { print m }' "$work/churn-dispatches.txt")
run_seconds=$(awk -v a="$first_run" -v b="$last_end" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
rate=$(awk -v n="$runs" -v a="$first_run" -v b="$last_end" 'BEGIN { printf "%.0f", n / ((b - a) / 1e6) }')
lag=$(awk -v a="$last_end" -v b="$last_dispatch" 'BEGIN { printf "%.0f", (b - a) / 1000 }')
say "  requests sent in $(awk -v a="$started" -v b="$sent" 'BEGIN { printf "%.1f", b - a }') s;" \
    "all units gone after $(awk -v a="$started" -v b="$gone" 'BEGIN { printf "%.1f", b - a }') s"
say "  systemd: $runs runs started, $ends ended cleanly, $failed failed, in $run_seconds s ($rate runs/s)"
say "  lifecycled: $begins launch/wake and $sleeps sleep dispatches ($others others); last dispatch $lag ms after the last run ended"
# Runs without a matching dispatch, by InvocationID, and when they happened.
awk -v s="$PID1_STARTED" -v d="$PID1_SUCCESS" 'FILENAME == ARGV[1] { seen[$3 " " ($2 == "sleep" ? "end" : "begin")] = 1; next }
    $2 == s && !(($3 " begin") in seen) { print "begin", $1, $4 }
    $2 == d && !(($3 " end") in seen) { print "end", $1, $4 }' \
    "$work/churn-dispatches.txt" "$work/churn-pid1.txt" >"$work/churn-missing.txt"
missing=$(grep -c . "$work/churn-missing.txt" || true)
if ((missing > 0)); then
    say "  MISSING: $missing transitions without a dispatch; first ones:"
    sort -k3n "$work/churn-missing.txt" | awk 'NR <= 5 { print "    " $0 }'
    awk -v a="$first_run" '{ printf "    at %.0f s into the churn\n", ($3 - a) / 1e6 }' "$work/churn-missing.txt" | sort | uniq -c | awk 'NR <= 20'
fi
say "  CPU over the churn (until lifecycled was idle again): lifecycled $cpu_lc ms, PID 1 $cpu_pid1 ms," \
    "journald $cpu_journald ms, dbus-daemon $cpu_dbus ms; machine busy $churn_busy"
ratio=$(awk -v a="$cpu_lc" -v b="$cpu_pid1" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
say "  lifecycled / PID 1 = $ratio; lifecycled per run: $(awk -v a="$cpu_lc" -v n="$runs" 'BEGIN { printf "%.0f", (n > 0 ? a * 1000 / n : 0) }') µs"
record churn_rate "$runs runs in $run_seconds s ($rate/s)"
record churn_counts "$begins/$runs starts, $sleeps/$ends stops, missing $missing"
record churn_cpu "lifecycled $cpu_lc ms, PID 1 $cpu_pid1 ms, ratio $ratio (machine busy $churn_busy)"
record churn_lag "$lag ms"
dropped=$(c_exec journalctl --no-pager -o cat "MESSAGE_ID=$JOURNAL_DROPPED" | grep -c . || true)
say "  journald suppression notices: $dropped"
[[ $dropped == 0 ]] || c_exec journalctl --no-pager -o cat "MESSAGE_ID=$JOURNAL_DROPPED" | sed 's/^/    /'
record churn_suppressed "$dropped"

section "5. READY again, now with $(c_exec sh -c 'ls /var/lib/lifecycled/units | wc -l') state files and no lc-mem@ unit loaded"
restart_ready "after churn"
record ready_after_churn "$(awk '{ printf "%s ms, VmHWM %.1f MB", $1, $6 / 1024 }' "$work/ready-after-churn.txt")"

section "lifecycled's warnings during the run (unit numbers folded)"
daemon_warnings | awk 'NR <= 10 { print "  " $0 }'
say "  journal: $(c_exec journalctl --disk-usage)"

container_poweroff

# --- summary -------------------------------------------------------------------------------------------------------

section "summary"
fmt_lat() { awk '{ printf "p50 %s / p99 %s / max %s ms (n=%s)", $2, $3, $4, $1 }' <<<"$1"; }
printf '%-46s | %-22s | %s\n' measurement aim result
printf '%-46s | %-22s | %s\n' "latency, paced, all transitions" "p99 < 5 ms" "$(fmt_lat "${result[lat_paced_all]}"), machine busy ${result[lat_paced_busy]}"
printf '%-46s | %-22s | %s\n' "  launch/wake" "" "$(fmt_lat "${result[lat_paced_begin]}")"
printf '%-46s | %-22s | %s\n' "  sleep" "" "$(fmt_lat "${result[lat_paced_end]}")"
printf '%-46s | %-22s | %s\n' "  vs PID 1's journal entries" "" "$(fmt_lat "${result[lat_paced_pid1]}")"
printf '%-46s | %-22s | %s\n' "latency, back to back, all transitions" "p99 < 5 ms" "$(fmt_lat "${result[lat_b2b_all]}"), machine busy ${result[lat_b2b_busy]}"
printf '%-46s | %-22s | %s\n' "  launch/wake" "" "$(fmt_lat "${result[lat_b2b_begin]}")"
printf '%-46s | %-22s | %s\n' "  sleep" "" "$(fmt_lat "${result[lat_b2b_end]}")"
printf '%-46s | %-22s | %s\n' "latency, paced, version_source none" "—" "$(fmt_lat "${result[lat_nover_all]}")"
printf '%-46s | %-22s | %s\n' "  launch/wake" "" "$(fmt_lat "${result[lat_nover_begin]}")"
printf '%-46s | %-22s | %s\n' "latency dispatches / transitions" "all" "paced ${result[lat_paced_count]}, b2b ${result[lat_b2b_count]}, nover ${result[lat_nover_count]}"
printf '%-46s | %-22s | %s\n' "churn rate" "—" "${result[churn_rate]}"
printf '%-46s | %-22s | %s\n' "churn dispatches vs systemd's runs" "equal" "${result[churn_counts]}"
printf '%-46s | %-22s | %s\n' "churn CPU" "lifecycled < PID 1 / 4" "${result[churn_cpu]}"
printf '%-46s | %-22s | %s\n' "churn: last dispatch after last run ended" "—" "${result[churn_lag]}"
printf '%-46s | %-22s | %s\n' "churn: journald suppression notices" "0" "${result[churn_suppressed]}"
printf '%-46s | %-22s | %s\n' "idle ${IDLE_SECONDS} s: wakeups (context switches)" "watchdog pings only" "${result[idle_wakeups]} (${result[idle_threads]})"
printf '%-46s | %-22s | %s\n' "idle ${IDLE_SECONDS} s: CPU" "≈ 0" "${result[idle_cpu]}"
printf '%-46s | %-22s | %s\n' "idle ${IDLE_SECONDS} s: perf stat, all threads" "—" "${result[idle_perf]:-perf not installed}"
printf '%-46s | %-22s | %s\n' "READY with $MEM_UNITS loaded units" "< 1 s" "${result[ready_ms]}"
printf '%-46s | %-22s | %s\n' "  CPU until READY: lifecycled/PID 1/dbus" "—" "${result[ready_cpu]}"
printf '%-46s | %-22s | %s\n' "memory with $MEM_UNITS loaded units" "< 24 MB" "${result[ready_rss]}"
printf '%-46s | %-22s | %s\n' "$MEM_UNITS launches dispatched; restarts" "all; none" "${result[mem_launches]}; ${result[ready_dispatches]}"
printf '%-46s | %-22s | %s\n' "PID 1 on the bus after batched starts" "kept" "${result[mem_owner]}"
printf '%-46s | %-22s | %s\n' "READY after churn (many state files)" "—" "${result[ready_after_churn]}"
say "raw data: $work"
