#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# What one slice of a day-one history costs in mapped journal pages, by where it is read from: the whole journal (as
# lifecycled reads a slice of PID 1's history) or the one file that holds the slice. In one throw-away container
# (Tests/Integration/lib/container.sh), a oneshot unit runs BIG_RUNS times (history.sh's way: Restart=always,
# RestartSec=0), then `journalctl` reads SLICE of PID 1's entries about runs (HistoryReading's matches: _PID=1 and the
# run's MESSAGE_IDs) after the entry at 10 %, 50 % and 90 % of the history, from the whole journal and from each file
# alone; prints its maximum resident set (`/usr/bin/time`), which is mostly the journal's pages it mapped, and that
# of a `journalctl -n 1` as the floor. journalctl stands in for lifecycled's reader: both are sd-journal with the same
# matches. A benchmark: it asserts nothing. Always powers the container off. Needs root and systemd-container.
#
# Usage: Benchmarks/container/journal-pages.sh [BUILD_DIR]     (bound into the container; nothing of it is run)
#   Environment: BIG_RUNS (100000), SLICE (5000).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$here/lib.sh"

BIG_RUNS=${BIG_RUNS:-100000}
SLICE=${SLICE:-5000}
if ((EUID != 0)); then
    echo "journal-pages.sh: must run as root (systemd-nspawn boots a container)" >&2
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-journal-pages.XXXXXX")
build_dir=${1:-$work}
export CONTAINER_LOG_DIR=$work
container_install_trap
container_boot "lc-pages-$$" "$build_dir" >/dev/null

# journald as history.sh sets it up, and the unit that makes the history.
history_journald
history_unit lc-hist-big.service "$BIG_RUNS"
c_exec systemctl daemon-reload
runs_done() { history_runs_done lc-hist-big.service; }
started=$SECONDS
c_exec systemctl start --no-block lc-hist-big.service
sleep 2
while ! runs_done; do sleep 2; done
c_exec journalctl --sync
files=$(c_exec sh -c 'ls -tr /var/log/journal/*/*.journal /run/log/journal/*/*.journal 2>/dev/null; true')
printf 'history: %d runs in %d s, %d journal files\n' "$BIG_RUNS" $((SECONDS - started)) "$(wc -w <<<"$files")"

# HistoryReading.entryMatches: _PID=1 and the MESSAGE_IDs of RunEnding.MessageID.all.
ids=""
for id in 7d4958e842da4a758f6c1cdc7b36dcc5 39f53479d3a045ac8e11786248231fbf be02cf6855d2428ba40df7e9d022f03d \
    7ad2d189f7e94e70a38c781354912448 d9b373ed55a64feb8242e02dbe79a49c 98e322203f7a4ed290d09fe03c09fe15 \
    9d1aaa27d60140bd96365438aad20286 0e4284a0caca4bfc81c0bb6786972673 ae8f7b866b0347b9af31fe1c80b127c0 \
    fe6faa94e7774663a0da52717891d8ef d989611b15e44c9dbf31e3c81256e4ed; do
    ids+=" MESSAGE_ID=$id"
done
total=$(c_exec sh -c "journalctl -q --no-pager -o cat --output-fields=MESSAGE_ID _PID=1 UNIT=lc-hist-big.service $ids | wc -l")
printf "PID 1's entries about the runs: %d\n" "$total"

# read_slice CURSOR [FILE]: "ENTRIES×2 MAXRSS_KB KB FAULTS faults SECONDS s" of reading SLICE entries after CURSOR.
read_slice() {
    local file=${2:+--file=$2}
    c_exec sh -c "/usr/bin/time -f '%M KB %R faults %e s' sh -c \"journalctl -q --no-pager -o cat \
        --output-fields=MESSAGE_ID,INVOCATION_ID $file --after-cursor='$1' _PID=1 $ids | head -n $((2 * SLICE)) | wc -l\" \
        2>&1 | tr '\n' ' '"
}
for at in 0.1 0.5 0.9; do
    skip=$(awk -v t="$total" -v a="$at" 'BEGIN { printf "%d", t * a }')
    cursor=$(c_exec sh -c "journalctl -q --no-pager -o export _PID=1 UNIT=lc-hist-big.service $ids |
        grep -a '^__CURSOR=' | sed -n '$((skip + 1))p' | cut -d= -f2-")
    for i in 1 2; do printf 'at %s, the whole journal: %s\n' "$at" "$(read_slice "$cursor")"; done
    for file in $files; do printf 'at %s, %s alone: %s\n' "$at" "${file##*/}" "$(read_slice "$cursor" "$file")"; done
done
printf 'floor, journalctl -n 1 of the whole journal: %s\n' \
    "$(c_exec sh -c "/usr/bin/time -f '%M KB %R faults' journalctl -q --no-pager -n 1 2>&1 >/dev/null | tail -n 1")"
container_poweroff
