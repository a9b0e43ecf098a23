#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# A long history on day one: lifecycled installed on a host whose watched units already ran many times. For each
# build given, a fresh throw-away container (Tests/Integration/lib/container.sh) runs one oneshot unit BIG_RUNS times
# and SMALL_UNITS units SMALL_RUNS times each (Restart=always with RestartSec=0, so that systemd itself runs them as
# fast as it can), then installs lifecycled with scripts/install.sh, which starts it: its first start rebuilds every
# run from PID 1's journal (history_from_journal). Prints, per build: READY (or the start's failure), lifecycled's
# VmHWM, the largest state file seen while it recovered, and whether every run PID 1's journal holds was recorded
# exactly once (a launch or wake and a sleep per run). Give the current code and a baseline in one run, e.g.
#
#   Benchmarks/container/history.sh .build-release/release /path/to/baseline/.build-release/release
#
# journald's rate limit is off in the containers and its runtime journal may grow to 4 GB, so that PID 1's journal
# holds every run. A benchmark: it asserts nothing, and scripts/test does not run it. Needs root, systemd-container
# and jq. HISTORY_PERSISTENT=1 gives journald a persistent journal in a directory of the host's disk (bound to
# /var/log/journal) instead of the container's tmpfs: each look that finds dispatches then has the journal synced to a
# real device (docs/journal.md, "A power cut"). Sizes (environment): BIG_RUNS (10000), SMALL_UNITS (100), SMALL_RUNS
# (100), READY_LIMIT (s, 200);
# HISTORY_KEEP=1 keeps the runs and dispatches compared, lifecycled's log, and its memory while it recovered
# (memory.tsv, sampled every 0.2 s), in the work directory it prints.
# HISTORY_ONE_JOURNAL=1 measures every build given in one container, on one history: made once (a long history takes
# minutes), then, before each build after the first, lifecycled stopped, its state directory removed and the journal
# put back as it was before the first install (journald's files written since are deleted). Builds are then compared
# on the same entries, which separate containers do not give (each makes its own history). HISTORY_PERF=1 records
# lifecycled with `perf record` from its start to READY (perf-LABEL.data in the work directory; implies HISTORY_KEEP);
# HISTORY_PERF_GRAPH=dwarf for call graphs through libsystemd, which has no frame pointers; HISTORY_PERF_EVENTS=page-faults
# (say) records those events instead of CPU time.
# HISTORY_LIVE_CYCLES=N starts and stops a watched unit that never ran before (lc-hist-live.service, enabled, so it is
# in the listing) N times back to back (Benchmarks/container/inside/latency.sh) from when lifecycled logged the first
# slice of the history (started earlier, the unit could already be in the journal whose units lifecycled names, and its
# changes held until READY), then N times more once it is READY, and prints per build the p50, p99 and max from each
# state change (the unit's own InactiveExit/InactiveEnterTimestampMonotonic) to its dispatch in the journal: of the
# changes made before READY, while the history was recovered, and of those made after, while tracking (goals.sh's
# method).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$here/lib.sh"

BIG_RUNS=${BIG_RUNS:-10000}
SMALL_UNITS=${SMALL_UNITS:-100}
SMALL_RUNS=${SMALL_RUNS:-100}
READY_LIMIT=${READY_LIMIT:-200}
readonly PREFIX_INSIDE=/opt/lifecycled
readonly INSIDE=/opt/lifecycled-src/Benchmarks/container/inside LIVE_UNIT=lc-hist-live.service
readonly UNITS_DIR=/var/lib/lifecycled/units

check_builds history.sh "$@"

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-history.XXXXXX")
export CONTAINER_LOG_DIR=$work
container_install_trap

# The units, and journald without its rate limit and with room for the whole history.
prepare_container() {
    history_journald
    c_exec mkdir -p /etc/lifecycled
    [[ -z ${HISTORY_PERSISTENT:-} ]] || c_exec journalctl --flush
    history_unit lc-hist-big.service "$BIG_RUNS"
    history_unit lc-hist-small@.service "$SMALL_RUNS"
    if [[ -n ${HISTORY_LIVE_CYCLES:-} ]]; then
        printf '[Unit]\nStartLimitIntervalSec=0\n[Service]\nType=simple\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n' |
            c_exec_stdin install -D -m 0644 /dev/stdin /etc/systemd/system/$LIVE_UNIT
    fi
    c_exec systemctl daemon-reload
    [[ -z ${HISTORY_LIVE_CYCLES:-} ]] || c_exec systemctl enable --quiet $LIVE_UNIT
    printf '{"watch": ["lc-hist-*.service"]}\n' | c_exec_stdin tee /etc/lifecycled/lifecycled.json >/dev/null
}

# live_latency CYCLES_FILE [BEFORE_US]: from each state change latency.sh made (the file it printed) to the unit's
# dispatch in the journal, in µs, one line each; only the changes made before BEFORE_US (monotonic), when given.
live_latency() {
    c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled _UID=0 LIFECYCLE_UNIT=$LIVE_UNIT \
        --output-fields=LIFECYCLE_EVENT,LIFECYCLE_INVOCATION_ID |
        jq -r 'select(.LIFECYCLE_EVENT) | [.LIFECYCLE_EVENT, (.LIFECYCLE_INVOCATION_ID // "-"), .__MONOTONIC_TIMESTAMP] | join(" ")' |
        awk -v before="${2:-0}" 'FILENAME == ARGV[1] { began[$1] = $2; ended[$1] = $3; next }
            function keep(at) { return before == 0 || at < before }
            $1 == "sleep" && ($2 in ended) && keep(ended[$2]) { print $3 - ended[$2]; next }
            ($1 == "launch" || $1 == "wake") && ($2 in began) && keep(began[$2]) { print $3 - began[$2] }' "$1" -
}

# Minor page faults of a process so far (/proc/PID/stat): each is a page of a mapped file, such as a journal file on
# tmpfs, mapped in. A count, steadier than CPU time on a busy machine.
minor_faults() {
    local stat fields
    stat=$(<"/proc/$1/stat")
    stat=${stat##*) }
    read -r -a fields <<<"$stat"
    printf '%s\n' "${fields[7]}"
}

max() { if (($1 > $2)); then echo "$1"; else echo "$2"; fi; }

runs_done() { history_runs_done lc-hist-big.service 'lc-hist-small@*.service'; }

make_history() {
    local started=$SECONDS i units=()
    for ((i = 1; i <= SMALL_UNITS; i++)); do units+=("lc-hist-small@$i.service"); done
    c_exec systemctl start --no-block lc-hist-big.service "${units[@]}"
    sleep 1
    while ! runs_done; do sleep 1; done
    c_exec journalctl --sync
    say "  history: $BIG_RUNS runs of lc-hist-big.service and $SMALL_RUNS of each of $SMALL_UNITS lc-hist-small@N in $((SECONDS - started)) s"
}

# The largest state file while lifecycled recovers, sampled every 50 ms into /run/lc-hist/largest until the install
# is over.
sample_state_files() {
    c_exec sh -c "largest=0; until [ -e /run/lc-hist/installed ]; do
        s=\$(stat -c %s $UNITS_DIR/*.json 2>/dev/null | sort -n | tail -n 1)
        if [ \"\${s:-0}\" -gt \"\$largest\" ]; then largest=\$s; echo \$largest >/run/lc-hist/largest; fi
        sleep 0.05
    done" &
}

# Every run of PID 1's journal against lifecycled's dispatches: "RUNS BEGINS ENDS DUPLICATES MISSING".
check_runs() {
    c_exec journalctl --no-pager -o json _PID=1 MESSAGE_ID=39f53479d3a045ac8e11786248231fbf --output-fields=UNIT,INVOCATION_ID |
        jq -r 'select((.UNIT // "") | startswith("lc-hist-")) | "\(.UNIT) \(.INVOCATION_ID)"' | sort -u >"$work/pid1-runs"
    c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled _UID=0 \
        --output-fields=LIFECYCLE_UNIT,LIFECYCLE_EVENT,LIFECYCLE_INVOCATION_ID |
        jq -r 'select(.LIFECYCLE_EVENT and ((.LIFECYCLE_UNIT // "") | startswith("lc-hist-")))
            | "\(.LIFECYCLE_UNIT) \(.LIFECYCLE_INVOCATION_ID // "-") \(.LIFECYCLE_EVENT)"' >"$work/dispatched"
    local runs begins ends duplicates missing
    runs=$(wc -l <"$work/pid1-runs")
    begins=$(awk '$3 == "launch" || $3 == "wake"' "$work/dispatched" | wc -l)
    ends=$(awk '$3 == "sleep" || $3 == "crash"' "$work/dispatched" | wc -l)
    duplicates=$(sort "$work/dispatched" | uniq -d | wc -l)
    missing=$(awk '$3 == "launch" || $3 == "wake" { print $1, $2 }' "$work/dispatched" | sort -u |
        comm -23 "$work/pid1-runs" - | wc -l)
    printf '%s %s %s %s %s\n' "$runs" "$begins" "$ends" "$duplicates" "$missing"
}

# Boots a container (the builds' directory DIR bound at /opt/lifecycled-build) and makes the history in it.
boot_with_history() {
    local dir=$1 name=$2 journal=()
    if [[ -n ${HISTORY_PERSISTENT:-} ]]; then
        mkdir -p "$work/$name-journal"
        journal=(--bind="$work/$name-journal:/var/log/journal")
    fi
    container_boot "lc-history-$name-$$" "$dir" --bind-ro="$repo:/opt/lifecycled-src" "${journal[@]}" >/dev/null
    prepare_container
    make_history
}

# The journal's files as the history left them: the active files archived, so that nothing writes to these again.
snapshot_journal() {
    c_exec journalctl --sync
    c_exec journalctl --rotate
    c_exec find /run/log/journal /var/log/journal -name '*.journal' ! -name system.journal >"$work/journal-files"
}

# Before the next build: lifecycled stopped, its state gone, and the journal as snapshot_journal left it (the files
# journald archived since, which hold the previous build's entries, deleted).
restore_journal() {
    c_exec systemctl stop lifecycled.service
    c_exec rm -rf /var/lib/lifecycled /run/lc-hist/installed /run/lc-hist/largest
    c_exec journalctl --sync
    c_exec journalctl --rotate
    local file
    for file in $(c_exec find /run/log/journal /var/log/journal -name '*.journal' ! -name system.journal); do
        grep -qxF "$file" "$work/journal-files" || c_exec rm -f "$file"
    done
}

measure() {
    local build=$1 label=$2
    mkdir -p "$work/$label"
    cp "$build/lifecycled" "$build/lifecyclectl" "$work/$label/"
    boot_with_history "$work/$label" "$label"
    install_and_measure /opt/lifecycled-build "$label"
    container_poweroff
}

# Every build in one container, on one history (HISTORY_ONE_JOURNAL). Each build is copied when its turn comes, so
# a build may still be made while a long history is.
measure_on_one_journal() {
    local labels=(build baseline baseline2 baseline3) index
    boot_with_history "$work" one
    snapshot_journal
    for ((index = 1; index <= $#; index++)); do
        ((index == 1)) || restore_journal
        mkdir -p "$work/${labels[index - 1]}"
        cp "${!index}/lifecycled" "${!index}/lifecyclectl" "$work/${labels[index - 1]}/"
        install_and_measure "/opt/lifecycled-build/${labels[index - 1]}" "${labels[index - 1]}"
    done
    container_poweroff
}

# Installs the build at INSIDE (a path in the container) and measures its first start.
install_and_measure() {
    local inside=$1 label=$2 began ready state pid hwm anon=0 shmem=0 now_anon now_shmem largest result started
    local hpid="" perf="" cpu="" faults="" cycler=""
    printf 'seconds\tRssAnon_kB\tRssShmem_kB\tRssFile_kB\tVmHWM_kB\n' >"$work/$label/memory.tsv"
    sample_state_files
    started=$SECONDS
    c_exec env PREFIX=$PREFIX_INSIDE /opt/lifecycled-src/scripts/install.sh "$inside" >"$work/$label/install.log" 2>&1 &
    local installer=$!
    state=activating
    while ((SECONDS - started < READY_LIMIT)); do
        state=$(unit_prop lifecycled.service ActiveState 2>/dev/null || echo missing)
        [[ $state == active || $state == failed ]] && break
        if [[ $state == activating ]] && pid=$(unit_prop lifecycled.service MainPID) && [[ $pid != 0 ]] &&
            hpid=$(host_pid "$pid" 2>/dev/null); then
            # Once the first slice of PID 1's history is recorded: the journal's units were named by then, and a unit
            # that had run before would be named too, its changes held (not live) until READY.
            if [[ -n ${HISTORY_LIVE_CYCLES:-} && -z $cycler ]] &&
                (($(c_exec journalctl -q --no-pager SYSLOG_IDENTIFIER=lifecycled "_PID=$pid" -o cat | grep -c '^Rebuilding' || true) > 0)); then
                c_exec "$INSIDE/latency.sh" $LIVE_UNIT "$HISTORY_LIVE_CYCLES" 0 >"$work/$label/live-recovery.txt" &
                cycler=$!
            fi
            if [[ -n ${HISTORY_PERF:-} && -z $perf ]]; then
                perf record -q --call-graph="${HISTORY_PERF_GRAPH:-fp}" ${HISTORY_PERF_EVENTS:+-e "$HISTORY_PERF_EVENTS"} -F 499 -p "$hpid" -o "$work/perf-$label.data" >/dev/null 2>&1 &
                perf=$!
            fi
            cpu=$(cpu_ticks "$hpid" 2>/dev/null || echo "$cpu")
            faults=$(minor_faults "$hpid" 2>/dev/null || echo "$faults")
            hwm=$(status_kb "$hpid" VmHWM 2>/dev/null || echo "${hwm:-0}")
            now_anon=$(status_kb "$hpid" RssAnon 2>/dev/null || echo 0)
            now_shmem=$(status_kb "$hpid" RssShmem 2>/dev/null || echo 0)
            anon=$(max "${anon:-0}" "$now_anon")
            shmem=$(max "${shmem:-0}" "$now_shmem")
            printf '%s\t%s\t%s\t%s\t%s\n' "$((SECONDS - started))" "$now_anon" "$now_shmem" \
                "$(status_kb "$hpid" RssFile 2>/dev/null || echo 0)" "$hwm" >>"$work/$label/memory.tsv"
        fi
        sleep 0.2
    done
    c_exec touch /run/lc-hist/installed
    if [[ $state == active ]]; then
        began=$(unit_prop lifecycled.service InactiveExitTimestampMonotonic)
        ready=$(unit_prop lifecycled.service ActiveEnterTimestampMonotonic)
        result="READY after $(awk -v a="$began" -v b="$ready" 'BEGIN { printf "%.1f", (b - a) / 1e6 }') s"
        hpid=$(unit_host_pid lifecycled.service)
        [[ -z $perf ]] || { kill -INT "$perf"; wait "$perf" 2>/dev/null || true; }
        # The CPU time until READY, from the last sample before it (0.2 s apart).
        [[ -z $cpu ]] || result+=" ($(awk -v t="$cpu" -v ms="$TICK_MS" 'BEGIN { printf "%.1f", t * ms / 1000 }') s of CPU, $faults minor page faults)"
        # Wait for the last round's confirmation, then read the peak.
        sleep 3
        hwm=$(status_kb "$hpid" VmHWM)
        anon=$(max "$anon" "$(status_kb "$hpid" RssAnon)")
    else
        result="not READY after $((SECONDS - started)) s (ActiveState $state, NRestarts $(unit_prop lifecycled.service NRestarts))"
        [[ -z $perf ]] || { kill -INT "$perf"; wait "$perf" 2>/dev/null || true; }
        c_exec systemctl stop lifecycled.service 2>/dev/null || true
    fi
    wait "$installer" 2>/dev/null || true
    [[ -z $cycler ]] || live_measure "$label" "${ready:-0}" "$cycler"
    largest=$(c_exec cat /run/lc-hist/largest 2>/dev/null || echo 0)
    read -r runs begins ends duplicates missing <<<"$(check_runs)"
    # A probe follows each look that found dispatches not written yet (docs/journal.md, "Where recovery resumes").
    local probes
    probes=$(c_exec journalctl --no-pager -o cat SYSLOG_IDENTIFIER=lifecycled _UID=0 \
        MESSAGE_ID=a77f27aab5d441e6881b299bd4764154 | wc -l)
    say "  $label: $result; VmHWM $(mb "${hwm:-0}") MB (largest RssAnon seen $(mb "$anon") MB, RssShmem" \
        "$(mb "$shmem") MB: the binary's pages and the journal's files, both on the container's tmpfs);" \
        "largest state file $((largest / 1024)) KB"
    say "  $label: PID 1's journal holds $runs runs; dispatched $begins launches/wakes and $ends sleeps/crashes," \
        "$duplicates duplicated, $missing runs without a launch or wake; $probes probes"
    if [[ -n ${HISTORY_KEEP:-} ]]; then
        mv "$work/pid1-runs" "$work/dispatched" "$work/$label/"
        c_exec journalctl --no-pager -o short-monotonic SYSLOG_IDENTIFIER=lifecycled -u lifecycled.service \
            >"$work/$label/lifecycled.log" 2>&1 || true
    fi
}

# The live unit's latencies (HISTORY_LIVE_CYCLES): the cycles begun at lifecycled's start (its changes before READY,
# monotonic READY_US, were made while the history was recovered), then as many once it tracks.
live_measure() {
    local label=$1 ready_us=$2 cycler=$3 n p50 p99 max
    wait "$cycler" || true
    sleep 1
    read -r n p50 p99 max <<<"$(live_latency "$work/$label/live-recovery.txt" "$ready_us" | percentiles)"
    say "  $label: $LIVE_UNIT during the recovery: $n of $((2 * $(wc -l <"$work/$label/live-recovery.txt"))) state changes made before READY, p50 $p50 ms, p99 $p99 ms, max $max ms"
    c_exec "$INSIDE/latency.sh" $LIVE_UNIT "$HISTORY_LIVE_CYCLES" 0 >"$work/$label/live-tracking.txt"
    sleep 1
    read -r n p50 p99 max <<<"$(live_latency "$work/$label/live-tracking.txt" | percentiles)"
    say "  $label: $LIVE_UNIT while tracking: $n state changes, p50 $p50 ms, p99 $p99 ms, max $max ms"
}

[[ -z ${HISTORY_PERF:-} ]] || HISTORY_KEEP=1
section "A long history on day one: $BIG_RUNS runs of one unit, $SMALL_RUNS runs of each of $SMALL_UNITS units"
if [[ -n ${HISTORY_ONE_JOURNAL:-} ]]; then
    measure_on_one_journal "$@"
else
    measure_each "$@"
fi
if [[ -n ${HISTORY_KEEP:-} ]]; then say "evidence kept in $work"; else rm -rf "$work"; fi
