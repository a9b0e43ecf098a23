#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# What the journal's sync costs a look (docs/journal.md, "A power cut"), in a throw-away container
# (Tests/Integration/lib/container.sh) whose persistent journal (/var/log/journal) is a directory of the host's disk,
# not the container's tmpfs, so that the fsync reaches a real device. A watched unit is started and stopped for
# SECONDS (60), one transition every PAUSE (0.05 s); every look then finds dispatches and syncs. lifecycled logs each
# sync's duration at debug ("Synced the journal in N µs": the varlink call and the fsync of the files), and the time
# the loop spent on each look is what the sync adds to the state changes waiting behind it. Prints the sync's p50 /
# p99 / max, how many looks synced, and how many lines journald logged about the requests. Then LAT_CYCLES (300)
# start/stop cycles back to back (Benchmarks/container/inside/latency.sh, as goals.sh section 4 measures them): the
# p50 / p99 / max from each state change (systemd's own timestamps) to its dispatch in the journal. A build without
# the sync prints no sync figures, only the latency: run both builds for the before and after.
# JOURNAL_TMPFS=1 leaves the journal on the container's tmpfs: the fsync is then free, and the figure the call's.
# Needs root, systemd-container, jq. Prints figures; asserts nothing. Results: docs/PERFORMANCE.md.
#
# Usage: Benchmarks/container/journal-sync.sh BUILD_DIR
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$repo/Benchmarks/container/lib.sh"
build_dir=$1 seconds=${SECONDS_RUN:-60} pause=${PAUSE:-0.05} cycles=${LAT_CYCLES:-300}
work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-sync.XXXXXX")
export CONTAINER_LOG_DIR=$work
mkdir "$work/bin" "$work/journal"
cp "$build_dir/lifecycled" "$build_dir/lifecyclectl" "$work/bin/"
container_install_trap
journal_bind=(--bind="$work/journal:/var/log/journal")
[[ -z ${JOURNAL_TMPFS:-} ]] || journal_bind=()
container_boot "lc-sync-$$" "$work/bin" --bind-ro="$repo:/opt/lifecycled-src" "${journal_bind[@]}" >/dev/null
c_exec mkdir -p /var/log/journal
c_exec journalctl --flush
echo "machine $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), journal on" \
    "$(c_exec df --output=source /var/log/journal | tail -n 1) (host: $(df --output=source "$work/journal" | tail -n 1))"
echo '{"watch": ["lc-sync.service"], "log_level": "debug"}' |
    c_exec_stdin install -D -m 0644 /dev/stdin /etc/lifecycled/lifecycled.json
printf '[Unit]\nStartLimitIntervalSec=0\n[Service]\nType=simple\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n' |
    c_exec_stdin install -D -m 0644 /dev/stdin /etc/systemd/system/lc-sync.service
c_exec systemctl daemon-reload
c_exec systemctl enable --quiet lc-sync.service
c_exec env PREFIX=/opt/lifecycled /opt/lifecycled-src/scripts/install.sh /opt/lifecycled-build >/dev/null
c_exec ls /var/log/journal/"$(c_exec cat /etc/machine-id)"/system.journal >/dev/null
sleep 2
since=$(c_exec date +%s)
c_exec_stdin bash -c "end=\$((SECONDS + $seconds)); while ((SECONDS < end)); do systemctl start lc-sync; sleep $pause; systemctl stop lc-sync; sleep $pause; done" </dev/null
sleep 3
c_exec journalctl --no-pager -o cat --since "@$since" SYSLOG_IDENTIFIER=lifecycled |
    sed -n 's/.*Synced the journal in \([0-9]*\) µs.*/\1/p' | sort -n >"$work/sync-us.txt"
failed=$(c_exec journalctl --no-pager -o cat --since "@$since" SYSLOG_IDENTIFIER=lifecycled | grep -c "Failed to sync the journal" || true)
requests=$(c_exec journalctl --no-pager -o cat --since "@$since" | grep -c "Received client request to sync journal" || true)
dispatches=$(c_exec journalctl --no-pager -o json --since "@$since" SYSLOG_IDENTIFIER=lifecycled LIFECYCLE_UNIT=lc-sync.service | grep -c . || true)
echo "$dispatches dispatches in $seconds s; journald logged $requests sync requests"
read -r n p50 p99 max <<<"$(percentiles <"$work/sync-us.txt")"
echo "sync per look: $n looks synced ($failed failed): p50 $p50 ms, p99 $p99 ms, max $max ms"

# Latency, back to back: systemd's own timestamps of each transition to the dispatch's entry (µs, monotonic).
c_exec systemctl stop lc-sync.service
sleep 2
c_exec /opt/lifecycled-src/Benchmarks/container/inside/latency.sh lc-sync.service "$cycles" 0 >"$work/lat.txt"
sleep 3
c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled LIFECYCLE_UNIT=lc-sync.service \
    --output-fields=LIFECYCLE_EVENT,LIFECYCLE_INVOCATION_ID |
    jq -r '[.LIFECYCLE_EVENT, (.LIFECYCLE_INVOCATION_ID // "-"), .__MONOTONIC_TIMESTAMP] | join(" ")' |
    awk 'FILENAME == ARGV[1] { began[$1] = $2; ended[$1] = $3; next }
        $1 == "sleep" && ($2 in ended) { print $3 - ended[$2]; next }
        ($1 == "launch" || $1 == "wake") && ($2 in began) { print $3 - began[$2] }' "$work/lat.txt" - >"$work/lat-us.txt"
read -r n p50 p99 max <<<"$(percentiles <"$work/lat-us.txt")"
echo "state change -> dispatch, back to back: $n of $((2 * cycles)) transitions, p50 $p50 ms, p99 $p99 ms, max $max ms"
container_poweroff
rm -rf "$work"
