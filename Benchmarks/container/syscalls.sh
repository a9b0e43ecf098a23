#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# lifecycled's system calls per churn run, by call, for a build and a baseline in the same container. Instructions
# (instructions.sh) leave out what the kernel does for lifecycled; every system call costs a kernel entry and often
# a wake-up, so their count per run is the other half of CPU per run (docs/PERFORMANCE.md).
#
# Each build runs as lifecycled.service (the installed unit, unchanged), is warmed up with WARMUP runs of c/churn.c,
# then strace (from the host, all threads) counts its calls while it handles RUNS runs. A benchmark: it asserts
# nothing. Always powers the container off. Needs root, systemd-container, strace, cc and libsystemd-dev.
#
# Usage: Benchmarks/container/syscalls.sh BUILD_DIR [BASELINE_DIR]
#   Each directory holds static release binaries of lifecycled and lifecyclectl. Environment: RUNS (500), WARMUP
#   (20), WINDOW (16).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$here/lib.sh"

RUNS=${RUNS:-500}
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
    wait_idle "$host" 2
    strace -c -f -q -o "$work/$label.strace" -p "$host" &
    tracer=$!
    sleep 1
    c_exec "$BIN/churn" "lc-churn-$label" "$RUNS" "$WINDOW" 1 >/dev/null
    wait_idle "$host" 2
    kill -INT "$tracer"
    wait "$tracer" || true
    # strace -c: "% time seconds usecs/call calls errors syscall", a total line last.
    awk -v runs="$RUNS" -v label="$label" '
        $NF == "total" { printf "  %s: %.1f system calls per run\n", label, $(NF - 1 - ($(NF-1) ~ /^[0-9]+$/ && NF == 6)) / runs; next }
        /^ *[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+/ { calls = $4; printf "    %-18s %6.2f per run%s\n", $NF, calls / runs, (NF == 6 ? sprintf(" (%d failed)", $5) : "") }
    ' "$work/$label.strace"
    c_exec systemctl stop lifecycled.service
done
container_poweroff
say "raw data: $work"
