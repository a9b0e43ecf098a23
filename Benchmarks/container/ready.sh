#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# READY=1 with MEM_UNITS loaded, watched units (issue 31: ≤ 1 s), for one or more builds, alternated in ONE throw-away
# container so that each build meets the same machine, the same PID 1 and the same journal: for each round and each
# build in turn, a first start (fresh_start: the journal holds the units' starts and no dispatch of them), RESTARTS
# restarts, and RELOADS starts after a `daemon-reload` made while lifecycled was stopped (PID 1 then answers its first
# calls slowly). goals.sh measures the same starts among its other goals; this is the quicker, fairer comparison
# (docs/PERFORMANCE.md, "READY with 1,000 units").
#
# For each start: READY (ActiveEnterTimestampMonotonic − InactiveExitTimestampMonotonic), and the CPU until then of
# lifecycled, PID 1 and the bus daemon (every call to PID 1 and its reply pass through it). With TIMELINE=1
# lifecycled logs at debug level, and each start's own messages are printed with their time after the start: the
# state files loaded, the unit source's resync done, the recovery's barrier and history, the bus name, READY.
#
# Usage: Benchmarks/container/ready.sh BUILD_DIR [BUILD_DIR...]
# Environment: MEM_UNITS (1000), ROUNDS (2), RESTARTS (3), RELOADS (2), TIMELINE (0).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$here/lib.sh"

MEM_UNITS=${MEM_UNITS:-1000}
ROUNDS=${ROUNDS:-2}
RESTARTS=${RESTARTS:-3}
RELOADS=${RELOADS:-2}
TIMELINE=${TIMELINE:-0}
readonly INSIDE=/opt/lifecycled-src/Benchmarks/container/inside
readonly BIN=/opt/lifecycled-build
level=info
((TIMELINE)) && level=debug
readonly CONFIG="{\"log_level\": \"$level\", \"watch\": [\"lc-mem@*.service\"]}"

check_builds ready.sh "$@"
work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-ready.XXXXXX")
export CONTAINER_LOG_DIR=$work
builds=("$@")
for index in "${!builds[@]}"; do
    mkdir -p "$work/bin/$index"
    cp "${builds[$index]}/lifecycled" "${builds[$index]}/lifecyclectl" "$work/bin/$index/"
done


# use BUILD_INDEX: puts that build's binaries in place (lifecycled stopped).
use() { c_exec install -m 0755 "$BIN/$1/lifecycled" "$BIN/$1/lifecyclectl" /opt/lifecycled/bin/; }

# start BUILD_INDEX KIND: starts lifecycled (Type=notify: start returns at READY=1) and records READY, the CPU.
start() {
    local index=$1 kind=$2 pid1_0 bus_0 began ready ms pid cpu cpu1 cpu_bus line
    pid1_0=$(cpu_ms "$CONTAINER_PID") bus_0=$(cpu_ms "$bus_pid")
    if ! c_exec systemctl start lifecycled.service; then
        # Seen in these containers: status=219/CGROUP, PID 1 failing to set up the cgroup before lifecycled runs.
        # Said, and tried once more (nothing of lifecycled ran, so a first start is still one).
        c_exec journalctl --no-pager -n 10 -u lifecycled.service
        c_exec systemctl reset-failed lifecycled.service
        sleep 1
        pid1_0=$(cpu_ms "$CONTAINER_PID") bus_0=$(cpu_ms "$bus_pid")
        c_exec systemctl start lifecycled.service
    fi
    cpu1=$(($(cpu_ms "$CONTAINER_PID") - pid1_0)) cpu_bus=$(($(cpu_ms "$bus_pid") - bus_0))
    began=$(unit_prop lifecycled.service InactiveExitTimestampMonotonic)
    ready=$(unit_prop lifecycled.service ActiveEnterTimestampMonotonic)
    ms=$(awk -v a="$began" -v b="$ready" 'BEGIN { printf "%.0f", (b - a) / 1000 }')
    pid=$(unit_host_pid lifecycled.service)
    cpu=$(cpu_ms "$pid")
    line="build $index  $kind: READY $ms ms, CPU lifecycled $cpu ms, PID 1 $cpu1 ms, dbus-daemon $cpu_bus ms"
    if ((TIMELINE)); then
        # lifecycled's own messages of this start, in ms after it (monotonic, µs in the journal).
        c_exec journalctl --no-pager -o json _SYSTEMD_UNIT=lifecycled.service --output-fields=MESSAGE |
            jq -r --argjson began "$began" 'select((.__MONOTONIC_TIMESTAMP | tonumber) >= $began) |
                "\(((.__MONOTONIC_TIMESTAMP | tonumber) - $began) / 1000 | floor) ms  \(.MESSAGE)"' |
            grep -v '^[0-9]* ms  lc-mem@' | head -40 | sed 's/^/      /' >"$work/timeline" || true
    fi
    say "  $line"
    ((TIMELINE)) && cat "$work/timeline"
    printf '%s %s %s %s\n' "$index" "$kind" "$ms" "$cpu" >>"$work/ready.txt"
}

# fresh_start: a first start as on a new machine, every time: the units' runs in PID 1's journal and no dispatch of
# them (an emptied state directory alone is rebuilt from the dispatches of the previous start), lifecycled stopped.
fresh_start() {
    c_exec systemctl stop 'lc-mem@*.service'
    c_exec sh -c 'rm -rf /var/lib/lifecycled/*'
    c_exec journalctl --rotate
    sleep 1.1
    c_exec journalctl --vacuum-time=1s >/dev/null 2>&1
    c_exec "$INSIDE/units.sh" start lc-mem@ "$MEM_UNITS" 100 >/dev/null
    sleep 1
}

container_install_trap
section "setup"
say "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for index in "${!builds[@]}"; do
    say "build $index: ${builds[$index]} (lifecycled $(sha256sum "$work/bin/$index/lifecycled" | cut -c1-12))"
done
container_boot "lc-ready-$$" "$work/bin" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
printf '%s\n' "$CONFIG" | c_exec_stdin install -D -m 0644 /dev/stdin /etc/lifecycled/lifecycled.json
printf '[Service]\nType=simple\nExecStart=/bin/sleep infinity\n' |
    c_exec_stdin install -D -m 0644 /dev/stdin /etc/systemd/system/lc-mem@.service
# Restarts in a row would reach systemd's start limit.
printf '[Unit]\nStartLimitIntervalSec=0\n' |
    c_exec_stdin install -D -m 0644 /dev/stdin /etc/systemd/system/lifecycled.service.d/50-no-start-limit.conf
c_exec env PREFIX=/opt/lifecycled /opt/lifecycled-src/scripts/install.sh "$BIN/0" >/dev/null
c_exec systemctl stop lifecycled.service
c_exec "$INSIDE/units.sh" start lc-mem@ "$MEM_UNITS" 100 | sed 's/^/  /'
bus_pid=$(unit_host_pid dbus.service)

for ((round = 1; round <= ROUNDS; round++)); do
    section "round $round"
    for index in "${!builds[@]}"; do
        use "$index"
        fresh_start
        start "$index" first
        sleep 3
        for ((r = 1; r <= RESTARTS; r++)); do
            c_exec systemctl stop lifecycled.service
            start "$index" restart
            sleep 1
        done
        for ((r = 1; r <= RELOADS; r++)); do
            c_exec systemctl stop lifecycled.service
            c_exec systemctl daemon-reload
            start "$index" after-reload
            sleep 1
        done
        c_exec systemctl stop lifecycled.service
    done
done

section "medians (READY ms / CPU ms), every round"
for index in "${!builds[@]}"; do
    for kind in first restart after-reload; do
        ready=$(awk -v i="$index" -v k="$kind" '$1 == i && $2 == k { print $3 }' "$work/ready.txt" | median)
        cpu=$(awk -v i="$index" -v k="$kind" '$1 == i && $2 == k { print $4 }' "$work/ready.txt" | median)
        all=$(awk -v i="$index" -v k="$kind" '$1 == i && $2 == k { printf "%s%s", s, $3; s = ", " }' "$work/ready.txt")
        say "  build $index $kind: READY $ready ms, CPU $cpu ms  ($all)"
    done
done
container_poweroff
