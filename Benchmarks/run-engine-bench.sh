#!/usr/bin/env bash
# Engine and replay throughput on one core, with peak memory. Prints figures; asserts nothing.
# Usage: Benchmarks/run-engine-bench.sh [EVENTS]   (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-1000000}
command -v /usr/bin/time >/dev/null || { apt-get install -y -qq time >/dev/null; }
swift build -c release --product lifecycle-bench >/dev/null
swift build -c release --product lifecyclectl >/dev/null
bin=$(swift build -c release --show-bin-path)
history=$(mktemp --suffix=.jsonl)
trap 'rm -f "$history"' EXIT
"$bin/lifecycle-bench" generate "$events" >"$history"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "history: $events lines, $(du -h "$history" | cut -f1)"
for run in 1 2 3; do
    taskset -c 0 "$bin/lifecycle-bench" engine "$events"
done
for run in 1 2 3; do
    /usr/bin/time -f "%e %M" -o /tmp/replay-time.$$ taskset -c 0 "$bin/lifecyclectl" replay \
        --timezone Europe/Berlin --config Benchmarks/replay-config.json "$history" >/dev/null
    read -r seconds kilobytes </tmp/replay-time.$$
    awk -v n="$events" -v s="$seconds" -v k="$kilobytes" \
        'BEGIN { printf "replay: %d events in %.2f s = %d events/s; peak RSS %.1f MB\n", n, s, n / s, k / 1024 }'
done
rm -f /tmp/replay-time.$$
