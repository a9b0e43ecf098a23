# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# What the container benchmarks share: finding a container process's host PID, reading its CPU time and memory from
# /proc, waiting for it to settle, medians and percentiles, checking the builds given. Source it after
# Tests/Integration/lib/container.sh (it reads CONTAINER_PID, c_exec).

say() { printf '%s\n' "$*"; }
section() { printf '\n== %s\n' "$*"; }

# The host's PID of the container's process INNER (PID namespaces: /proc/PID/status NSpid lists both).
host_pid() {
    local inner=$1 ns file pid
    ((inner == 1)) && { printf '%s\n' "$CONTAINER_PID"; return 0; }
    ns=$(readlink "/proc/$CONTAINER_PID/ns/pid")
    for file in $( (awk -v want="$inner" '$1 == "NSpid:" && NF > 2 && $NF == want { print FILENAME; nextfile }' \
        /proc/[0-9]*/status 2>/dev/null || true)); do
        pid=${file#/proc/}
        pid=${pid%/status}
        if [[ $(readlink "/proc/$pid/ns/pid" 2>/dev/null) == "$ns" ]]; then
            printf '%s\n' "$pid"
            return 0
        fi
    done
    return 1
}

unit_prop() { c_exec systemctl show -p "$2" --value "$1"; }

# The host PID of a unit's main process; retried for a while, since a busy machine can leave the lookup racing a start.
unit_host_pid() {
    local try inner
    for ((try = 0; try < 20; try++)); do
        inner=$(unit_prop "$1" MainPID)
        [[ $inner =~ ^[1-9][0-9]*$ ]] && host_pid "$inner" && return 0
        sleep 0.5
    done
    say "no main process for $1" >&2
    return 1
}

# User and system CPU time of a process and its threads, dead ones included, in clock ticks: "USER SYSTEM".
cpu_split() {
    local stat fields
    stat=$(<"/proc/$1/stat")
    stat=${stat##*) }
    read -r -a fields <<<"$stat"
    printf '%s %s\n' "${fields[11]}" "${fields[12]}"
}

# CPU time (user + system) of a process and its threads, dead ones included, in clock ticks.
cpu_ticks() {
    local user system
    read -r user system < <(cpu_split "$1")
    printf '%s\n' $((user + system))
}
# shellcheck disable=SC2034 # used by the scripts that source this file
readonly TICK_MS=$((1000 / $(getconf CLK_TCK)))

# The same in ms.
cpu_ms() { printf '%s\n' $(($(cpu_ticks "$1") * TICK_MS)); }

# wait_idle PID SECONDS: waits until the process's CPU time has not moved for SECONDS.
wait_idle() {
    local pid=$1 last=-1 now
    while now=$(cpu_ticks "$pid") && [[ $now != "$last" ]]; do
        last=$now
        sleep "$2"
    done
}

# The median of the numbers on standard input, one a line (0 for none).
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : 0) }'; }

# Percentiles of the integers (µs) on standard input, nearest rank: "N P50 P99 MAX" in ms ("0 - - -" for none).
percentiles() {
    sort -n | awk '{ v[NR] = $1 }
        function rank(q,  r) { r = int(q * NR); if (r < q * NR) r++; if (r < 1) r = 1; return v[r] }
        END { if (NR == 0) { print "0 - - -"; exit }
              printf "%d %.2f %.2f %.2f\n", NR, rank(0.50) / 1000, rank(0.99) / 1000, v[NR] / 1000 }'
}

# status_kb PID FIELD: a /proc/PID/status size in kB (VmRSS, VmHWM, RssAnon).
status_kb() { awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# check_builds NAME BUILD_DIR...: the checks of a benchmark run for each build given (history.sh, nostore.sh): root,
# at least one build, each with its lifecycled. Exits with the reason otherwise.
check_builds() {
    local name=$1 build
    shift
    if ((EUID != 0)); then
        echo "$name: must run as root (systemd-nspawn boots a container)" >&2
        exit 1
    fi
    if (($# < 1)); then
        echo "usage: Benchmarks/container/$name BUILD_DIR [BASELINE_BUILD_DIR...]" >&2
        exit 64
    fi
    for build in "$@"; do
        [[ -x $build/lifecycled ]] || { echo "$name: $build/lifecycled is missing" >&2; exit 1; }
    done
}

# measure_each BUILD_DIR...: calls `measure BUILD LABEL` for each build, labelled build, baseline, baseline2, ...
measure_each() {
    local labels=(build baseline baseline2 baseline3) index=0 build
    for build in "$@"; do
        measure "$build" "${labels[$index]}"
        index=$((index + 1))
    done
}

# The history benchmarks' journald (history.sh, journal-pages.sh): no rate limit, room for the whole history, files of
# 128 MB at most; and /run/lc-hist, where each run of a history_unit counts itself.
history_journald() {
    c_exec mkdir -p /run/lc-hist /etc/systemd/journald.conf.d
    printf '[Journal]\nRateLimitIntervalSec=0\nRuntimeMaxUse=4G\nRuntimeMaxFileSize=128M\nSystemMaxUse=4G\nSystemMaxFileSize=128M\n' |
        c_exec_stdin tee /etc/systemd/journald.conf.d/lc-history.conf >/dev/null
    c_exec systemctl restart systemd-journald.service
}

# history_unit NAME RUNS: /run/systemd/system/NAME, a service that runs RUNS times, restarted at once after each run
# (a template when NAME ends in @.service: each instance RUNS times). Each run counts itself; the last one exits 3,
# a success that stops the restarts. ($$ is systemd's escape for $; %n the unit's name.)
history_unit() {
    local runner='n=$$(cat /run/lc-hist/%n 2>/dev/null || echo 0); n=$$((n + 1)); echo $$n >/run/lc-hist/%n; [ $$n -lt RUNS ] || exit 3'
    printf '[Unit]\nStartLimitIntervalSec=0\n[Service]\nExecStart=/bin/sh -c %s\nRestart=always\nRestartSec=0\nSuccessExitStatus=3\nRestartPreventExitStatus=3\n' \
        "'${runner/RUNS/$2}'" | c_exec_stdin tee "/run/systemd/system/$1" >/dev/null
}

# history_runs_done UNIT...: whether the history is over: none of UNIT (patterns too) active, and no lc-hist-* unit
# active or activating.
history_runs_done() {
    ! c_exec systemctl is-active --quiet "$@" 2>/dev/null &&
        [[ -z $(c_exec systemctl list-units --no-legend --state=activating,active 'lc-hist-*') ]]
}
