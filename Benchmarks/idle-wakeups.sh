#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Idle cost of the release lifecycled outside systemd: starts it with a configuration that watches nothing (no bus
# needed; the D-Bus name is given up on), waits for it to settle, then counts the context switches of all its threads
# over WINDOW seconds, beside `sleep` as the floor in the same run. A benchmark, not a test: it prints figures.
# Usage: Benchmarks/idle-wakeups.sh [BUILD_DIR] [WINDOW]     (default .build-release/release, 30 s)
set -euo pipefail
build_dir=${1:-.build-release/release}
window=${2:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo '{"watch": []}' >"$work/config.json"

switches() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'; }

"$build_dir/lifecycled" --config "$work/config.json" --state-directory "$work/state" >"$work/log" 2>&1 &
daemon=$!
sleep 5000 &
floor=$!
sleep 8
d0=$(switches "$daemon") f0=$(switches "$floor")
sleep "$window"
d1=$(switches "$daemon") f1=$(switches "$floor")
threads=$(ls /proc/"$daemon"/task | wc -l)
kill -TERM "$daemon" "$floor"
wait "$daemon" 2>/dev/null || true
printf 'context switches in %s s idle: lifecycled %s (%s threads), floor (sleep) %s\n' \
    "$window" $((d1 - d0)) "$threads" $((f1 - f0))
