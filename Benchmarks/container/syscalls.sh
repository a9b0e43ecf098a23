#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# lifecycled's system calls per churn run, counted by strace, for a build and a baseline in the same container.
# instructions.sh counts user space only; about 40 % of lifecycled's CPU time in the churn is the kernel's (system
# calls, the state files' fsyncs, the journal's sends and looks), and a count of calls moves by under 1 % between runs
# where CPU time moves by a quarter (docs/PERFORMANCE.md).
#
# Each build runs as lifecycled.service and is warmed up with WARMUP runs of c/churn.c. It then handles RUNS runs
# untraced, for its user and system CPU time per run (/proc, clock ticks: a coarse split), and RUNS more with
# `strace -c -f` attached from the host, detached once it is idle. Prints the calls per run by name (those above 0.05 a
# run) and their total. A benchmark: it asserts nothing. Always powers the container off. Needs root,
# systemd-container, strace, cc and libsystemd-dev.
#
# Usage: Benchmarks/container/syscalls.sh BUILD_DIR [BASELINE_DIR]
#   Each directory holds static release binaries of lifecycled and lifecyclectl (swift build -c release
#   --static-swift-stdlib --scratch-path .build-release). Environment: RUNS (1000), WARMUP (20), WINDOW (16).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$here/lib.sh"

RUNS=${RUNS:-1000}
WARMUP=${WARMUP:-20}
WINDOW=${WINDOW:-16}
readonly BIN=/opt/lifecycled-build

if ((EUID != 0)); then
    echo "syscalls.sh: must run as root (systemd-nspawn boots a container)" >&2
    exit 1
fi
if (($# < 1 || $# > 2)); then
    echo "usage: Benchmarks/container/syscalls.sh BUILD_DIR [BASELINE_DIR]" >&2
    exit 64
fi
for tool in systemd-nspawn nsenter strace cc pkg-config; do
    command -v "$tool" >/dev/null || { echo "syscalls.sh: $tool is missing" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-syscalls.XXXXXX")
export CONTAINER_LOG_DIR=$work
mkdir "$work/bin"
labels=()
add_build() {
    local label=$1 dir=$2
    for binary in lifecycled lifecyclectl; do
        [[ -x $dir/$binary ]] || { echo "syscalls.sh: $dir/$binary is missing" >&2; exit 1; }
    done
    mkdir "$work/bin/$label"
    cp "$dir/lifecycled" "$dir/lifecyclectl" "$work/bin/$label/"
    labels+=("$label")
    say "$label: $dir (lifecycled $(sha256sum "$dir/lifecycled" | cut -c1-12))"
}
(($# == 2)) && add_build baseline "$2"
add_build build "$1"
read -r -a sd_flags <<<"$(pkg-config --cflags --libs libsystemd)"
cc -O2 -Wall -Wextra -Werror -o "$work/bin/churn" "$here/c/churn.c" "${sd_flags[@]}"

container_install_trap
container_boot "lc-syscalls-$$" "$work/bin" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
printf '%s\n' '{"watch": ["lc-churn-*.service"]}' |
    c_exec_stdin install -D -m 0644 /dev/stdin /etc/lifecycled/lifecycled.json

section "system calls per churn run: $RUNS transient units, $WINDOW alive at once, after $WARMUP to warm up"
for label in "${labels[@]}"; do
    c_exec env PREFIX=/opt/lifecycled /opt/lifecycled-src/scripts/install.sh "$BIN/$label" >/dev/null
    c_exec systemctl restart lifecycled.service
    host=$(unit_host_pid lifecycled.service)
    c_exec "$BIN/churn" "lc-churn-warm-$label" "$WARMUP" "$WINDOW" 1 >/dev/null
    wait_idle "$host" 3
    read -r -a before < <(cpu_split "$host")
    c_exec "$BIN/churn" "lc-churn-untraced-$label" "$RUNS" "$WINDOW" 1 >/dev/null
    wait_idle "$host" 3
    read -r -a after < <(cpu_split "$host")
    say "  $label: CPU per run untraced: user $(((after[0] - before[0]) * TICK_MS * 1000 / RUNS)) µs," \
        "system $(((after[1] - before[1]) * TICK_MS * 1000 / RUNS)) µs (clock ticks of $TICK_MS ms)"
    strace -c -f -S calls -U name,calls,time-total -o "$work/$label.strace" -p "$host" &
    tracer=$!
    sleep 1
    c_exec "$BIN/churn" "lc-churn-$label" "$RUNS" "$WINDOW" 1 >/dev/null
    wait_idle "$host" 3
    kill -INT "$tracer"
    wait "$tracer" || true
    say "  $label (calls per run, kernel time per run in µs as strace saw it):"
    awk -v runs="$RUNS" 'NF == 3 && $2 ~ /^[0-9]+$/ {
            per = $2 / runs
            if ($1 == "total") { printf "    %-18s %6.2f  %7.1f µs\n", "total", per, $3 * 1e6 / runs; next }
            if (per >= 0.05) printf "    %-18s %6.2f  %7.1f µs\n", $1, per, $3 * 1e6 / runs }' "$work/$label.strace"
    c_exec systemctl stop lifecycled.service
done
container_poweroff
say "raw data: $work"
