#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# lifecycled's instructions per churn run, counted by callgrind, for a build and a baseline in the same container.
# CPU time per run moves by a quarter between runs on a shared machine; an instruction count moves by under 1 %, so
# it shows what a change to lifecycled's own code did (docs/PERFORMANCE.md). It counts user-space instructions only:
# system calls, page faults and context switches are in goals.sh's CPU figure, not here.
#
# Each build runs as lifecycled.service under `valgrind --tool=callgrind` (its sandbox relaxed for valgrind), is warmed
# up with WARMUP runs of c/churn.c, has its counters zeroed, handles RUNS runs, and is dumped once idle. Prints the
# instructions per run, split into lifecycled's binary, libsystemd and libc. A benchmark: it asserts nothing. Always
# powers the container off. Needs root, systemd-container, valgrind, cc and libsystemd-dev.
#
# Usage: Benchmarks/container/instructions.sh BUILD_DIR [BASELINE_DIR]
#   Each directory holds static release binaries of lifecycled and lifecyclectl (swift build -c release
#   --static-swift-stdlib --scratch-path .build-release). Environment: RUNS (200), WARMUP (20), WINDOW (16),
#   LOADED_UNITS (0: watched `sleep infinity` instances started before the churn, as goals.sh's 1,000, to show
#   whether a run costs more when lifecycled knows more units).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$here/lib.sh"

RUNS=${RUNS:-200}
WARMUP=${WARMUP:-20}
WINDOW=${WINDOW:-16}
LOADED_UNITS=${LOADED_UNITS:-0}
readonly BIN=/opt/lifecycled-build

if ((EUID != 0)); then
    echo "instructions.sh: must run as root (systemd-nspawn boots a container)" >&2
    exit 1
fi
if (($# < 1 || $# > 2)); then
    echo "usage: Benchmarks/container/instructions.sh BUILD_DIR [BASELINE_DIR]" >&2
    exit 64
fi
for tool in systemd-nspawn nsenter valgrind callgrind_control cc pkg-config strip; do
    command -v "$tool" >/dev/null || { echo "instructions.sh: $tool is missing" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-instructions.XXXXXX")
export CONTAINER_LOG_DIR=$work
mkdir "$work/bin"
labels=()
add_build() {
    local label=$1 dir=$2
    for binary in lifecycled lifecyclectl; do
        [[ -x $dir/$binary ]] || { echo "instructions.sh: $dir/$binary is missing" >&2; exit 1; }
    done
    mkdir "$work/bin/$label"
    # valgrind 3.19 cannot read the DWARF 5 the toolchain writes; the symbol table is enough for names.
    strip -g -o "$work/bin/$label/lifecycled" "$dir/lifecycled"
    cp "$dir/lifecyclectl" "$work/bin/$label/"
    labels+=("$label")
    say "$label: $dir (lifecycled $(sha256sum "$dir/lifecycled" | cut -c1-12))"
}
(($# == 2)) && add_build baseline "$2"
add_build build "$1"
read -r -a sd_flags <<<"$(pkg-config --cflags --libs libsystemd)"
cc -O2 -Wall -Wextra -Werror -o "$work/bin/churn" "$here/c/churn.c" "${sd_flags[@]}"

container_install_trap
container_boot "lc-instructions-$$" "$work/bin" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
printf '%s\n' '{"watch": ["lc-churn-*.service", "lc-mem@*.service"]}' |
    c_exec_stdin install -D -m 0644 /dev/stdin /etc/lifecycled/lifecycled.json
c_exec env PREFIX=/opt/lifecycled /opt/lifecycled-src/scripts/install.sh "$BIN/${labels[-1]}" >/dev/null
if ((LOADED_UNITS > 0)); then
    printf '[Service]\nType=simple\nExecStart=/bin/sleep infinity\n' |
        c_exec_stdin install -D -m 0644 /dev/stdin /etc/systemd/system/lc-mem@.service
    c_exec systemctl daemon-reload
    c_exec /opt/lifecycled-src/Benchmarks/container/inside/units.sh start lc-mem@ "$LOADED_UNITS" 100 >/dev/null
fi

# Self cost of a callgrind dump per object file: "lifecycled libsystemd libc other".
split_by_object() {
    # An object's name comes with its first mention, in an ob= or a cob= line; later ones give only its number.
    awk '/^c?ob=/ { id = $1; sub(/^c?ob=/, "", id); if (NF > 1) name[id] = $2 }
        /^ob=/ { current = id; next }
        /^fn=/ { object = current; next }
        /^calls=/ { inclusive = 1; next }
        /^[0-9+*-]/ { if (inclusive) { inclusive = 0; next } cost[object] += $2 }
        END { for (id in cost) { n = name[id]
                  if (n ~ /lifecycled$/) a += cost[id]; else if (n ~ /libsystemd/) b += cost[id]
                  else if (n ~ /libc\.so/) c += cost[id]; else d += cost[id] }
              print a + 0, b + 0, c + 0, d + 0 }' "$1"
}

section "instructions per churn run: $RUNS transient units, $WINDOW alive at once, after $WARMUP to warm up," \
    "$LOADED_UNITS other watched units loaded"
for label in "${labels[@]}"; do
    # valgrind generates code (MemoryDenyWriteExecute), makes system calls outside the filter, and callgrind_control
    # finds it through files in its /tmp; its start is slow, and it answers no watchdog.
    c_exec_stdin install -D -m 0644 /dev/stdin /run/systemd/system/lifecycled.service.d/callgrind.conf <<EOF
[Service]
ExecStart=
ExecStart=/usr/bin/valgrind --tool=callgrind --callgrind-out-file=/run/lifecycled.callgrind.%%p $BIN/$label/lifecycled
WatchdogSec=0
TimeoutStartSec=900
MemoryDenyWriteExecute=no
SystemCallFilter=
NoNewPrivileges=no
ProtectSystem=no
PrivateTmp=no
EOF
    c_exec systemctl daemon-reload
    c_exec systemctl restart lifecycled.service
    pid=$(unit_prop lifecycled.service MainPID)
    host=$(unit_host_pid lifecycled.service)
    c_exec "$BIN/churn" "lc-churn-warm-$label" "$WARMUP" "$WINDOW" 1 >/dev/null
    wait_idle "$host" 4  # under valgrind lifecycled lags far behind the driver
    c_exec callgrind_control -z "$pid" >/dev/null 2>&1
    c_exec "$BIN/churn" "lc-churn-$label" "$RUNS" "$WINDOW" 1 >/dev/null
    wait_idle "$host" 4  # under valgrind lifecycled lags far behind the driver
    c_exec sh -c 'rm -f /run/lifecycled.callgrind.*.*'
    c_exec callgrind_control -d "$pid" >/dev/null 2>&1
    sleep 1
    c_exec sh -c 'cat "$(ls -t /run/lifecycled.callgrind.*.* | head -1)"' >"$work/$label.callgrind"
    total=$(awk '/^(summary|totals):/ { print $2; exit }' "$work/$label.callgrind")
    read -r own sd libc other <<<"$(split_by_object "$work/$label.callgrind")"
    per=$((total / RUNS))
    eval "per_$label=$per"
    say "  $label: $per instructions per run (lifecycled $((own / RUNS)), libsystemd $((sd / RUNS))," \
        "libc $((libc / RUNS)), other $((other / RUNS)))"
    c_exec systemctl stop lifecycled.service
done
if ((${#labels[@]} == 2)); then
    say "  build / baseline: $(awk -v a="$per_build" -v b="$per_baseline" 'BEGIN { printf "%.3f", a / b }')"
fi
container_poweroff
say "raw data (callgrind_annotate works on the dumps): $work"
