#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# lifecycled's footprint goals, measured in one throw-away container (Tests/Integration/lib/container.sh) beside a
# floor: a minimal C sd-bus subscriber (c/floor.c: the same match rules plus Subscribe(), nothing else). The load is
# c/churn.c, a direct sd-bus driver (StartTransientUnit, WINDOW alive at once, a unit is done on UnitRemoved), and
# MEM_UNITS loaded, watched `sleep infinity` instances of a template. Both C programs are built here with the host's
# cc against libsystemd and bound into the container with lifecycled's binaries.
#
# Prints every figure of the goals (docs/PERFORMANCE.md) with the floor beside it, lifecycled's ratio to the floor,
# and how busy the whole machine was. A benchmark: it asserts nothing, and scripts/test does not run it. Always powers
# the container off. Needs root, systemd-container, jq, cc and libsystemd-dev (perf, if installed, counts threads).
#
# Usage: Benchmarks/container/goals.sh BUILD_DIR
#   BUILD_DIR holds static release binaries of lifecycled and lifecyclectl, e.g. .build-release/release (build with
#   swift build -c release --static-swift-stdlib --scratch-path .build-release). They are copied first.
#
# Sizes (environment, for quick trials): CHURN_UNITS (2000), CHURN_WINDOW (16), CHURN_LINGER (5 s: how long the
# driver listens for units loaded again), MEM_UNITS (1000), MEM_BATCH (100), READY_RESTARTS (2), IDLE_SECONDS (30),
# RELOAD_REPEATS (3), RELOAD_WINDOW (5 s), LAT_CYCLES (300), MONITOR_UNITS (200: churn runs watched by busctl monitor).
# SERVICE_DROPIN: lines added to lifecycled.service's [Service] in a drop-in (e.g. 'Nice=-5'), to try a setting.
# LAT_SCHED=1: during the latency cycles, also trace every CPU's context switches (perf, sched:sched_switch) and say
# how much of lifecycled's own part its thread spent runnable but off the CPU, and who ran meanwhile.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$here/lib.sh"

CHURN_UNITS=${CHURN_UNITS:-2000}
CHURN_WINDOW=${CHURN_WINDOW:-16}
CHURN_LINGER=${CHURN_LINGER:-5}
MEM_UNITS=${MEM_UNITS:-1000}
MEM_BATCH=${MEM_BATCH:-100}
READY_RESTARTS=${READY_RESTARTS:-2}
IDLE_SECONDS=${IDLE_SECONDS:-30}
RELOAD_REPEATS=${RELOAD_REPEATS:-3}
RELOAD_WINDOW=${RELOAD_WINDOW:-5}
LAT_CYCLES=${LAT_CYCLES:-300}
LAT_SCHED=${LAT_SCHED:-0}
MONITOR_UNITS=${MONITOR_UNITS:-200}

readonly INSIDE=/opt/lifecycled-src/Benchmarks/container/inside
readonly BIN=/opt/lifecycled-build
readonly CONFIG='{"watch": ["lc-lat.service", "lc-churn-*.service", "lc-mon-*.service", "lc-base-*.service", "lc-mem@*.service"]}'

if ((EUID != 0)); then
    echo "goals.sh: must run as root (systemd-nspawn boots a container)" >&2
    exit 1
fi
if (($# != 1)); then
    echo "usage: Benchmarks/container/goals.sh BUILD_DIR" >&2
    exit 64
fi
for tool in systemd-nspawn nsenter jq cc pkg-config; do
    command -v "$tool" >/dev/null || { echo "goals.sh: $tool is missing" >&2; exit 1; }
done
build_dir=$1
for binary in lifecycled lifecyclectl; do
    [[ -x $build_dir/$binary ]] || { echo "goals.sh: $build_dir/$binary is missing" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-goals.XXXXXX")
export CONTAINER_LOG_DIR=$work
mkdir "$work/bin"
cp "$build_dir/lifecycled" "$build_dir/lifecyclectl" "$work/bin/"
# The container sees the host's /usr read-only and has no compiler of its own: build here, bind the binaries in.
read -r -a sd_flags <<<"$(pkg-config --cflags --libs libsystemd)"
for program in floor churn; do
    cc -O2 -Wall -Wextra -Werror -o "$work/bin/$program" "$here/c/$program.c" "${sd_flags[@]}"
done

# --- helpers (and lib.sh's) ------------------------------------------------------------------------------------------

# Context switches of all live threads.
switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'; }
# ratio A B [DIGITS]: A / B, or "—" when B is 0.
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { if (b > 0) printf "%.*f", d, a / b; else printf "—" }'; }

# busy_mark, then busy_since MARK: the share of all CPUs' time the whole machine was busy in between ("63%").
busy_mark() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
busy_since() {
    local b0 i0 b1 i1
    read -r b0 i0 <<<"$1"
    read -r b1 i1 <<<"$(busy_mark)"
    awk -v b="$((b1 - b0))" -v i="$((i1 - i0))" 'BEGIN { printf "%.0f%%", (b + i > 0 ? 100 * b / (b + i) : 0) }'
}

# Waits until the process's CPU time has not moved for 2 s: it has handled its backlog.
wait_cpu_quiet() {
    local pid=$1 last now still=0 deadline=$((SECONDS + 300))
    last=$(cpu_ms "$pid")
    while ((SECONDS < deadline)); do
        sleep 0.5
        now=$(cpu_ms "$pid")
        if [[ $now == "$last" ]]; then
            still=$((still + 1))
            ((still >= 4)) && return 0
        else
            still=0
            last=$now
        fi
    done
    say "warning: process $pid still busy after 300 s"
}

# start_lifecycled LABEL: starts lifecycled (Type=notify: start returns at READY=1); prints and stores READY in ms
# (ActiveEnterTimestampMonotonic − InactiveExitTimestampMonotonic) and PID 1's CPU meanwhile. Sets lc_pid.
start_lifecycled() {
    local label=$1 pid1_0 began ready ms cpu1
    pid1_0=$(cpu_ms "$CONTAINER_PID")
    c_exec systemctl start lifecycled.service
    cpu1=$(($(cpu_ms "$CONTAINER_PID") - pid1_0))
    began=$(unit_prop lifecycled.service InactiveExitTimestampMonotonic)
    ready=$(unit_prop lifecycled.service ActiveEnterTimestampMonotonic)
    ms=$(awk -v a="$began" -v b="$ready" 'BEGIN { printf "%.0f", (b - a) / 1000 }')
    lc_pid=$(unit_host_pid lifecycled.service)
    say "  $label: READY after $ms ms; CPU until then: lifecycled $(cpu_ms "$lc_pid") ms, PID 1 $cpu1 ms"
    printf '%s %s\n' "$ms" "$cpu1" >>"$work/ready-${label%% *}.txt"
}

# memory PID: "VmRSS / RssAnon" in MB.
memory() { printf '%s / %s' "$(mb "$(status_kb "$1" VmRSS)")" "$(mb "$(status_kb "$1" RssAnon)")"; }

# Every dispatch: "UNIT EVENT INVOCATION_ID MONOTONIC_US".
dispatches() {
    c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled \
        --output-fields=LIFECYCLE_UNIT,LIFECYCLE_EVENT,LIFECYCLE_INVOCATION_ID |
        jq -r 'select(.LIFECYCLE_EVENT) | [.LIFECYCLE_UNIT, .LIFECYCLE_EVENT, (.LIFECYCLE_INVOCATION_ID // "-"),
            .__MONOTONIC_TIMESTAMP] | join(" ")'
}

# monitor_start / monitor_stop FILE: records every method call to PID 1 (busctl monitor, JSON) and tallies them by
# member, with the interface for GetAll and the property for Get. Watching costs dbus-daemon and PID 1 work, so it
# runs only around steps that are not timed.
monitor_start() {
    c_exec systemd-run --quiet --unit=lc-monitor.service -p StandardOutput=file:/run/lc-monitor.json \
        stdbuf -oL busctl monitor --json=short org.freedesktop.systemd1
    sleep 1
}
monitor_stop() {
    sleep 1
    c_exec systemctl stop lc-monitor.service
    c_exec cat /run/lc-monitor.json >"$1"
    c_exec rm -f /run/lc-monitor.json
}
# calls FILE: "COUNT MEMBER [INTERFACE|PROPERTY]" of the calls to PID 1, busiest first (PID 1's own calls to the bus
# daemon are left out); the driver's StartTransientUnit and Subscribe and systemctl's calls are in it too.
calls() {
    # busctl starts with a line of prose: read lines, keep the JSON ones.
    jq -rR 'fromjson? | select(.type == "method_call" and .destination != "org.freedesktop.DBus") |
        .member + (if .member == "Get" then " " + .payload.data[1] elif .member == "GetAll" then " " + .payload.data[0]
                   else "" end)' "$1" | sort | uniq -c | sort -rn
}

# --- setup ---------------------------------------------------------------------------------------------------------

container_install_trap
trap 'printf "goals.sh: line %s: \"%s\" failed (exit status %s)\n" "$LINENO" "$BASH_COMMAND" "$?" >&2' ERR
run_mark=$(busy_mark)
section "setup"
say "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)," \
    "systemd $(systemctl --version | awk 'NR == 1 { print $2 }'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
say "lifecycled $(sha256sum "$work/bin/lifecycled" | cut -c1-12) from $build_dir"
container_boot "lc-goals-$$" "$work/bin" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
say "container booted in $CONTAINER_BOOT_SECONDS s (PID 1 is host PID $CONTAINER_PID)"
printf '%s\n' "$CONFIG" | c_exec_stdin install -D -m 0644 /dev/stdin /etc/lifecycled/lifecycled.json
printf '[Unit]\nStartLimitIntervalSec=0\n[Service]\nType=simple\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n' |
    c_exec_stdin install -D -m 0644 /dev/stdin /etc/systemd/system/lc-lat.service
printf '[Service]\nType=simple\nExecStart=/bin/sleep infinity\n' |
    c_exec_stdin install -D -m 0644 /dev/stdin /etc/systemd/system/lc-mem@.service
c_exec systemctl daemon-reload
c_exec systemctl enable --quiet lc-lat.service
c_exec systemd-run --quiet --unit=lc-floor.service "$BIN/floor"
floor_pid=$(unit_host_pid lc-floor.service)
# Installed (and so started once) before the units exist; then stopped with its state wiped, so that the start below
# is a first start with MEM_UNITS units.
c_exec env PREFIX=/opt/lifecycled /opt/lifecycled-src/scripts/install.sh "$BIN" >/dev/null
if [[ -n ${SERVICE_DROPIN:-} ]]; then
    printf '[Service]\n%s\n' "$SERVICE_DROPIN" |
        c_exec_stdin install -D -m 0644 /dev/stdin /etc/systemd/system/lifecycled.service.d/benchmark.conf
    c_exec systemctl daemon-reload
    say "lifecycled.service's drop-in: $SERVICE_DROPIN"
fi
c_exec systemctl stop lifecycled.service
c_exec sh -c 'rm -rf /var/lib/lifecycled/*'

# --- 1. READY and memory with MEM_UNITS watched units --------------------------------------------------------------

section "1. READY=1 and memory with $MEM_UNITS loaded, watched units"
mark=$(busy_mark)
c_exec "$INSIDE/units.sh" start lc-mem@ "$MEM_UNITS" "$MEM_BATCH" | sed 's/^/  /'
start_lifecycled "first start"
say "  lifecycled's nice value: $(ps -o ni= -p "$lc_pid" | tr -d ' ')"
sleep 3
say "  3 s after READY: VmRSS / RssAnon MB: lifecycled $(memory "$lc_pid"), floor $(memory "$floor_pid")"
wait_cpu_quiet "$lc_pid"
say "  launches dispatched for lc-mem@: $(dispatches | awk '$1 ~ /^lc-mem@/ && $2 == "launch"' | grep -c . || true)/$MEM_UNITS"
for ((r = 1; r <= READY_RESTARTS; r++)); do
    c_exec systemctl stop lifecycled.service
    start_lifecycled "restart $r"
done
sleep 3
lc_rss=$(status_kb "$lc_pid" VmRSS) lc_anon=$(status_kb "$lc_pid" RssAnon) lc_hwm=$(status_kb "$lc_pid" VmHWM)
fl_rss=$(status_kb "$floor_pid" VmRSS) fl_anon=$(status_kb "$floor_pid" RssAnon)
# VmRSS = RssAnon + RssFile + RssShmem; /opt is a tmpfs inside, so the static binary's pages count as RssShmem.
say "  3 s after the last READY: lifecycled VmRSS $(mb "$lc_rss") MB (RssAnon $(mb "$lc_anon")," \
    "RssFile $(mb "$(status_kb "$lc_pid" RssFile)"), RssShmem $(mb "$(status_kb "$lc_pid" RssShmem)"), VmHWM $(mb "$lc_hwm"))," \
    "floor VmRSS $(mb "$fl_rss") MB (RssAnon $(mb "$fl_anon")); machine busy $(busy_since "$mark")"
# What lifecycled asks PID 1 for at a start (not timed: the monitor slows the bus).
c_exec systemctl stop lifecycled.service
monitor_start
c_exec systemctl start lifecycled.service
monitor_stop "$work/monitor-start.json"
lc_pid=$(unit_host_pid lifecycled.service)
say "  method calls to PID 1 during one more (watched) start, busiest first:"
calls "$work/monitor-start.json" | awk 'NR <= 12 { print "    " $0 }'
wait_cpu_quiet "$lc_pid"

# --- 2. idle -------------------------------------------------------------------------------------------------------

section "2. idle: $IDLE_SECONDS s"
sleep 5
mark=$(busy_mark)
lc_s0=$(switches "$lc_pid") fl_s0=$(switches "$floor_pid") lc_c0=$(cpu_ms "$lc_pid")
if command -v perf >/dev/null; then
    # perf also counts threads that start and exit inside the window, which /proc no longer shows at its end.
    perf stat -x, -e context-switches,task:task_newtask -p "$lc_pid" -o "$work/idle-perf.txt" -- \
        sleep "$IDLE_SECONDS" >/dev/null 2>&1 || sleep "$IDLE_SECONDS"
else
    sleep "$IDLE_SECONDS"
fi
lc_idle=$(($(switches "$lc_pid") - lc_s0)) fl_idle=$(($(switches "$floor_pid") - fl_s0))
idle_perf="no perf"
# ("<not counted>": perf never saw the process run in the window, which is 0.)
if [[ -s $work/idle-perf.txt ]]; then
    idle_perf=$(sed 's/<not counted>/0/g' "$work/idle-perf.txt" |
        awk -F, '$3 == "context-switches" { cs = $1 } $3 == "task:task_newtask" { nt = $1 }
            END { printf "perf: %s context switches, %s threads created", cs, nt }')
fi
say "  context switches (all live threads): lifecycled $lc_idle ($(find /proc/"$lc_pid"/task -mindepth 1 -maxdepth 1 | wc -l) threads;" \
    "$idle_perf), floor $fl_idle; lifecycled CPU $(($(cpu_ms "$lc_pid") - lc_c0)) ms;" \
    "WatchdogUSec $(unit_prop lifecycled.service WatchdogUSec); machine busy $(busy_since "$mark")"

# --- 3. daemon-reload ----------------------------------------------------------------------------------------------

# reload_cpu: PID 1's CPU (ms) from daemon-reload until RELOAD_WINDOW s after it returned.
reload_cpu() {
    local c0
    c0=$(cpu_ms "$CONTAINER_PID")
    c_exec systemctl daemon-reload
    sleep "$RELOAD_WINDOW"
    printf '%s\n' $(($(cpu_ms "$CONTAINER_PID") - c0))
}
section "3. PID 1's CPU in the $RELOAD_WINDOW s after daemon-reload, lifecycled running vs stopped (alternated)"
mark=$(busy_mark)
for ((r = 1; r <= RELOAD_REPEATS; r++)); do
    lc_c0=$(cpu_ms "$lc_pid")
    on=$(reload_cpu)
    lc_reload=$(($(cpu_ms "$lc_pid") - lc_c0))
    wait_cpu_quiet "$lc_pid"
    c_exec systemctl stop lifecycled.service
    off=$(reload_cpu)
    say "  $r: running $on ms (lifecycled itself $lc_reload ms), stopped $off ms"
    printf '%s %s\n' "$on" "$off" >>"$work/reload.txt"
    start_lifecycled "after-reload start $r"
    wait_cpu_quiet "$lc_pid"
done
reload_on=$(awk '{ print $1 }' "$work/reload.txt" | median)
reload_off=$(awk '{ print $2 }' "$work/reload.txt" | median)
say "  medians: running $reload_on ms, stopped $reload_off ms, ratio $(ratio "$reload_on" "$reload_off"); machine busy $(busy_since "$mark")"

# --- 4. latency, back to back --------------------------------------------------------------------------------------

section "4. latency: state change to dispatch, $LAT_CYCLES start/stop cycles back to back"
mark=$(busy_mark)
# With perf: lifecycled's poll(2) returns and sendmsg(2) calls on CLOCK_MONOTONIC, the journal's clock, to split the
# time after PID 1's entry (below). Tracepoints only: the sampling cost is a few µs per event.
perf_pid=
if command -v perf >/dev/null; then
    perf record -q -k CLOCK_MONOTONIC -e syscalls:sys_exit_poll,syscalls:sys_enter_sendmsg -p "$lc_pid" \
        -o "$work/lat.perf" >/dev/null 2>&1 &
    perf_pid=$!
    if [[ $LAT_SCHED == 1 ]]; then
        perf record -q -k CLOCK_MONOTONIC -a -e sched:sched_switch -o "$work/sched.perf" >/dev/null 2>&1 &
        sched_pid=$!
    fi
    sleep 1
fi
c_exec "$INSIDE/latency.sh" lc-lat.service "$LAT_CYCLES" 0 >"$work/lat.txt"
lat_busy=$(busy_since "$mark")
if [[ -n $perf_pid ]]; then
    sleep 0.5
    kill -INT "$perf_pid"
    wait "$perf_pid" || true
    if [[ -n ${sched_pid:-} ]]; then
        kill -INT "$sched_pid"
        wait "$sched_pid" || true
    fi
fi
wait_cpu_quiet "$lc_pid"
# Reference: the unit's own InactiveExit/InactiveEnterTimestampMonotonic, joined on the InvocationID (run.sh's method).
# One line per transition: "start|sleep µs".
dispatches | awk 'FILENAME == ARGV[1] { began[$1] = $2; ended[$1] = $3; next }
    $2 == "sleep" && ($3 in ended) { print "sleep", $4 - ended[$3]; next }
    ($2 == "launch" || $2 == "wake") && ($3 in began) { print "start", $4 - began[$3] }' "$work/lat.txt" - \
    >"$work/lat-kind-us.txt"
awk '{ print $2 }' "$work/lat-kind-us.txt" >"$work/lat-us.txt"
read -r lat_n lat_p50 lat_p99 lat_max <<<"$(percentiles <"$work/lat-us.txt")"
say "  $lat_n of $((2 * LAT_CYCLES)) transitions dispatched: p50 $lat_p50 ms, p99 $lat_p99 ms, max $lat_max ms; machine busy $lat_busy"
for kind in start sleep; do
    read -r n p50 p99 max <<<"$(awk -v k="$kind" '$1 == k { print $2 }' "$work/lat-kind-us.txt" | percentiles)"
    say "    $([[ $kind == start ]] && echo "launch or wake" || echo sleep): $n, p50 $p50 ms, p99 $p99 ms, max $max ms"
done
# Second reference: PID 1's own journal entry for the same transition ("Started", "Deactivated successfully"), which
# PID 1 writes as it sends the signal. Both go through journald, so the difference is lifecycled's part: the signal's
# way through the bus daemon, lifecycled's work, and its entry's way into the journal.
c_exec journalctl --no-pager -o json _PID=1 UNIT=lc-lat.service MESSAGE_ID=39f53479d3a045ac8e11786248231fbf \
    MESSAGE_ID=7ad2d189f7e94e70a38c781354912448 --output-fields=MESSAGE_ID,INVOCATION_ID |
    jq -r '[.MESSAGE_ID, (.INVOCATION_ID // "-"), .__MONOTONIC_TIMESTAMP] | join(" ")' >"$work/lat-pid1.txt"
dispatches | awk 'FILENAME == ARGV[1] { at[$1 "/" $2] = $3; next }
    $1 == "lc-lat.service" && $2 == "sleep" && (("7ad2d189f7e94e70a38c781354912448/" $3) in at) {
        print $4 - at["7ad2d189f7e94e70a38c781354912448/" $3]; next }
    $1 == "lc-lat.service" && ($2 == "launch" || $2 == "wake") && (("39f53479d3a045ac8e11786248231fbf/" $3) in at) {
        print $4 - at["39f53479d3a045ac8e11786248231fbf/" $3] }' "$work/lat-pid1.txt" - >"$work/lat-vs-pid1-us.txt"
read -r lat1_n lat1_p50 lat1_p99 lat1_max <<<"$(percentiles <"$work/lat-vs-pid1-us.txt")"
say "  the same dispatches after PID 1's own entry for the transition: $lat1_n, p50 $lat1_p50 ms, p99 $lat1_p99 ms, max $lat1_max ms"
# The split: for each dispatch, the last sendmsg before its entry (the journal send) and the last poll return before
# that (lifecycled woken by the signal that caused it). PID 1's entry -> wake: PID 1, the bus daemon and the
# scheduler; wake -> send: lifecycled's own work; send -> entry: journald.
if [[ -s $work/lat.perf ]]; then
    perf script -i "$work/lat.perf" -F tid,time,event 2>/dev/null |
        awk '{ t = $2; sub(":", "", t); printf "%.0f %s %s\n", t * 1e6, ($3 ~ /poll/ ? "poll" : "send"), $1 }' \
        >"$work/lat-syscalls.txt"
    dispatches | awk 'FILENAME == ARGV[1] { at[$1 "/" $2] = $3; next }
        FILENAME == ARGV[2] { n++; t[n] = $1; e[n] = $2; tid[n] = $3; next }
        $1 == "lc-lat.service" {
            id = ($2 == "sleep" ? "7ad2d189f7e94e70a38c781354912448/" : "39f53479d3a045ac8e11786248231fbf/") $3
            if (!(id in at) || $4 < t[1] || $4 > t[n] + 100000) next
            send = 0; for (i = n; i > 0; i--) if (t[i] <= $4 && e[i] == "send") { send = t[i]; thread = tid[i]; break }
            wake = 0; for (; i > 0; i--) if (e[i] == "poll" && tid[i] == thread) { wake = t[i]; break }
            if (send && wake) print wake - at[id], send - wake, $4 - send, wake, send, thread }' \
        "$work/lat-pid1.txt" "$work/lat-syscalls.txt" - >"$work/lat-split-us.txt"
    for column in 1 2 3; do
        read -r n p50 p99 max <<<"$(awk -v c="$column" '{ print $c }' "$work/lat-split-us.txt" | percentiles)"
        part=$(case $column in 1) echo "PID 1's entry -> lifecycled woken (PID 1, bus daemon, scheduler)" ;;
            2) echo "woken -> journal send (lifecycled's own work)" ;; 3) echo "send -> entry (journald)" ;; esac)
        say "    $part: p50 $p50 ms, p99 $p99 ms, max $max ms"
        [[ $column == 2 ]] && lat_own_p99=$p99 lat_own_p50=$p50
    done
fi
# The own part against the scheduler: for each window (woken -> send), how long its thread was switched out while
# runnable (prev_state R: preempted) or waiting (any other state: a system call that blocked), and who took its CPU.
if [[ -s $work/sched.perf && -s $work/lat-split-us.txt ]]; then
    perf script -i "$work/sched.perf" -F time,trace 2>/dev/null |
        awk '{ t = $1; sub(":", "", t)
               match($0, /prev_pid=[0-9]+/); prev = substr($0, RSTART + 9, RLENGTH - 9)
               match($0, /prev_state=[^ ]+/); state = substr($0, RSTART + 11, RLENGTH - 11)
               match($0, /next_comm=.* next_pid=/); comm = substr($0, RSTART + 10, RLENGTH - 20); gsub(/ /, "_", comm)
               match($0, /next_pid=[0-9]+/); next_pid = substr($0, RSTART + 9, RLENGTH - 9)
               printf "%.0f %s %s %s %s\n", t * 1e6, prev, state, next_pid, comm }' >"$work/sched-switches.txt"
    awk 'FILENAME == ARGV[1] { n++; wake[n] = $4; send[n] = $5; of[n] = $6; thread[$6] = 1; next }
        ($2 in thread) { out[$2] = $1; why[$2] = $3; by[$2] = $5; next }
        ($4 in thread) && ($4 in out) { k++; from[k] = out[$4]; to[k] = $1; tid_of[k] = $4
            state[k] = why[$4]; taker[k] = by[$4]; delete out[$4] }
        END {
            for (w = 1; w <= n; w++) {
                pre = 0; blocked = 0; who = "-"
                for (j = 1; j <= k; j++) {
                    if (tid_of[j] != of[w]) continue
                    a = (from[j] > wake[w] ? from[j] : wake[w]); b = (to[j] < send[w] ? to[j] : send[w])
                    if (b <= a) continue
                    if (state[j] ~ /^R/) { pre += b - a; who = taker[j] } else blocked += b - a
                }
                print send[w] - wake[w], pre, blocked, who
            }
        }' "$work/lat-split-us.txt" "$work/sched-switches.txt" >"$work/lat-sched-us.txt"
    read -r n p50 p99 max <<<"$(awk '{ print $1 - $2 }' "$work/lat-sched-us.txt" | percentiles)"
    say "    the own part without the time preempted: p50 $p50 ms, p99 $p99 ms, max $max ms"
    lat_run_p99=$p99 lat_run_p50=$p50
    say "    windows preempted: $(awk '$2 > 0 { p++ } END { print p + 0 }' "$work/lat-sched-us.txt") of $n;" \
        "over 1 ms: $(awk '$1 > 1000 { s++; if ($2 > 0) p++ } END { printf "%d, %d of them preempted", s, p }' "$work/lat-sched-us.txt")"
    say "    who took the CPU from a window: $(awk '$2 > 0 { c[$4] += $2 } END { for (x in c) printf "%s %.2f ms, ", x, c[x] / 1000 }' \
        "$work/lat-sched-us.txt")"
    say "    time blocked in a system call within windows: $(awk '{ b += $3 } END { printf "%.2f ms in all", b / 1000 }' \
        "$work/lat-sched-us.txt")"
fi

# --- 5. churn ------------------------------------------------------------------------------------------------------

# churn PREFIX COUNT: runs the driver; sets cpu_pid1, cpu_lc (and its cpu_lc_user, cpu_lc_system), cpu_floor, cpu_dbus
# (ms), churn_line and churn_busy.
# CPU is counted from the first request until lifecycled (when running) has been idle for 2 s.
churn() {
    local prefix=$1 count=$2 p0 l0 f0 d0 mark running
    running=$(unit_prop lifecycled.service ActiveState)
    p0=$(cpu_ms "$CONTAINER_PID") f0=$(cpu_ms "$floor_pid") d0=$(cpu_ms "$dbus_pid")
    [[ $running == active ]] && l0=$(cpu_ms "$lc_pid") && read -r lc_user0 lc_system0 < <(cpu_split "$lc_pid")
    mark=$(busy_mark)
    churn_line=$(c_exec "$BIN/churn" "$prefix" "$count" "$CHURN_WINDOW" "$CHURN_LINGER")
    [[ $running == active ]] && wait_cpu_quiet "$lc_pid"
    churn_busy=$(busy_since "$mark")
    cpu_pid1=$(($(cpu_ms "$CONTAINER_PID") - p0)) cpu_floor=$(($(cpu_ms "$floor_pid") - f0))
    cpu_dbus=$(($(cpu_ms "$dbus_pid") - d0)) cpu_lc=0
    cpu_lc_user=0 cpu_lc_system=0
    if [[ $running == active ]]; then
        cpu_lc=$(($(cpu_ms "$lc_pid") - l0))
        read -r lc_user lc_system < <(cpu_split "$lc_pid")
        cpu_lc_user=$(((lc_user - lc_user0) * TICK_MS)) cpu_lc_system=$(((lc_system - lc_system0) * TICK_MS))
    fi
    say "  $churn_line"
    say "  CPU: PID 1 $cpu_pid1 ms, floor $cpu_floor ms, lifecycled $cpu_lc ms, dbus-daemon $cpu_dbus ms; machine busy $churn_busy"
}
field() { sed -E "s/.*\<$1=([^ ]*).*/\1/" <<<"$churn_line"; }

dbus_pid=$(unit_host_pid dbus.service)
section "5a. churn without lifecycled: $CHURN_UNITS transient units, $CHURN_WINDOW alive at once (floor and driver only)"
c_exec systemctl stop lifecycled.service
churn lc-base "$CHURN_UNITS"
base_pid1=$cpu_pid1 base_floor=$cpu_floor base_runs=$(field runs) base_again=$(field loaded_again) base_names=$(field names_loaded_again)
say "  floor ÷ PID 1 without lifecycled: $(ratio "$base_floor" "$base_pid1")"
start_lifecycled "before-churn start"
wait_cpu_quiet "$lc_pid"

section "5b. churn with lifecycled: $CHURN_UNITS transient units, $CHURN_WINDOW alive at once"
churn lc-churn "$CHURN_UNITS"
runs=$(field runs) rate=$(field rate) again=$(field loaded_again) names_again=$(field names_loaded_again)
churn_disp=$(dispatches | awk '$1 ~ /^lc-churn-/' | grep -c . || true)
per_run() { awk -v a="$1" -v n="$2" 'BEGIN { printf "%.2f", (n > 0 ? a / n : 0) }'; }
say "  per run: PID 1 $(per_run "$cpu_pid1" "$runs") ms (without lifecycled $(per_run "$base_pid1" "$base_runs") ms)," \
    "lifecycled $(per_run "$cpu_lc" "$runs") ms (user $(per_run "$cpu_lc_user" "$runs"), system" \
    "$(per_run "$cpu_lc_system" "$runs")), floor $(per_run "$cpu_floor" "$runs") ms; $churn_disp dispatches"
lc_ratio=$(ratio "$cpu_lc" "$cpu_pid1") fl_ratio=$(ratio "$cpu_floor" "$cpu_pid1")
say "  ÷ PID 1: lifecycled $lc_ratio, floor $fl_ratio; PID 1 with ÷ without lifecycled per run:" \
    "$(ratio "$(per_run "$cpu_pid1" "$runs")" "$(per_run "$base_pid1" "$base_runs")")"

section "5c. what lifecycled asks PID 1 during $MONITOR_UNITS runs (busctl monitor; not timed)"
monitor_start
mon_line=$(c_exec "$BIN/churn" lc-mon "$MONITOR_UNITS" "$CHURN_WINDOW" "$CHURN_LINGER")
wait_cpu_quiet "$lc_pid"
monitor_stop "$work/monitor-churn.json"
say "  $mon_line"
calls "$work/monitor-churn.json" | awk -v n="$MONITOR_UNITS" 'NR <= 15 { printf "    %6d  %5.2f per run  %s\n", $1, $1 / n, substr($0, index($0, $2)) }'

# Resident memory again, after every step above: code that start-up dropped and later steps ran is back by now.
lc_rss_end=$(status_kb "$lc_pid" VmRSS) lc_anon_end=$(status_kb "$lc_pid" RssAnon)
say "  after every step: lifecycled VmRSS $(mb "$lc_rss_end") MB (RssAnon $(mb "$lc_anon_end"))," \
    "floor VmRSS $(mb "$(status_kb "$floor_pid" VmRSS)") MB"

container_poweroff
run_busy=$(busy_since "$run_mark")

# --- summary -------------------------------------------------------------------------------------------------------

section "summary (machine busy over the whole run: $run_busy)"
row() { printf '%-52s | %-10s | %-22s | %-10s | %s\n' "$@"; }
row figure goal lifecycled floor "lifecycled / floor"
row "CPU per run / PID 1's CPU per run (churn)" "<= 0.20" "$lc_ratio" "$fl_ratio" "$(ratio "$cpu_lc" "$cpu_floor" 1)"
row "  CPU per run, ms ($runs runs, $rate runs/s)" "-" "$(per_run "$cpu_lc" "$runs")" "$(per_run "$cpu_floor" "$runs")" ""
row "PID 1's CPU after daemon-reload, running / stopped" "<= 1.2" "$(ratio "$reload_on" "$reload_off") ($reload_on/$reload_off ms)" "-" ""
row "READY=1, first start with $MEM_UNITS units" "<= 1 s" "$(awk '{ print $1 " ms" }' "$work/ready-first.txt")" "-" ""
row "READY=1, restarts" "<= 1 s" "$(awk '{ printf "%s%s", s, $1; s = ", " } END { print " ms" }' "$work/ready-restart.txt")" "-" ""
row "READY=1, first start after a reload while stopped" "<= 1 s" "$(awk '{ printf "%s%s", s, $1; s = ", " } END { print " ms" }' "$work/ready-after-reload.txt")" "-" ""
row "VmRSS with $MEM_UNITS units, MB" "<= 16" "$(mb "$lc_rss")" "$(mb "$fl_rss")" "$(ratio "$lc_rss" "$fl_rss" 1)"
row "  RssAnon, MB" "-" "$(mb "$lc_anon")" "$(mb "$fl_anon")" "$(ratio "$lc_anon" "$fl_anon" 1)"
row "  VmRSS after every step (RssAnon), MB" "-" "$(mb "$lc_rss_end") ($(mb "$lc_anon_end"))" "-" ""
row "context switches in $IDLE_SECONDS s idle" "pings" "$lc_idle ($idle_perf)" "$fl_idle" ""
row "p99 state change -> dispatch, back to back, ms" "<= 5" "$lat_p99 (p50 $lat_p50, n=$lat_n)" "-" ""
row "  p99 after PID 1's own journal entry, ms" "-" "$lat1_p99 (p50 $lat1_p50, n=$lat1_n)" "-" ""
row "  p99 of lifecycled's own part (woken -> send), ms" "-" "${lat_own_p99:-no perf} (p50 ${lat_own_p50:--})" "-" ""
[[ -n ${lat_run_p99:-} ]] && row "    without the time preempted (LAT_SCHED=1), ms" "-" "$lat_run_p99 (p50 $lat_run_p50)" "-" ""
row "transient units loaded again after collection" "0" "$names_again of $runs runs ($again loads)" \
    "$base_names of $base_runs ($base_again)" ""
say "raw data: $work"
