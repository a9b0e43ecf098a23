#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Units that never come back: what lifecycled holds after a host ran many transient units whose names never repeat.
# For each build given, a fresh throw-away container (Tests/Integration/lib/container.sh) gets lifecycled watching
# lc-gone-*.service with a metrics file and archive_after_minutes 0 (records of units systemd unloaded go to
# /var/lib/lifecycled/archive at once; a build that does not know the key is configured without it, and the output
# says so), installed with scripts/install.sh. Then lifecycled is restarted once (READY and VmRSS before), UNITS
# transient units lc-gone-0.service … run /bin/true once each, and the script waits until lifecycled dispatched a
# launch and a sleep for every one that ran (or DISPATCH_LIMIT s have passed) and the archive had ARCHIVE_WAIT s more.
# Prints, per build: how fast the units ran; lifecycled's VmRSS and VmHWM after them, the metrics file's size, the
# state files left in /var/lib/lifecycled/units, the archive's size and lines; the CPU lifecycled and PID 1 used from
# the first unit until lifecycled was idle again; READY and VmRSS at the next start; and the dispatch count (2 per
# unit expected, none twice for one (unit, LIFECYCLE_SEQUENCE)). Give the current code and a baseline in one run, e.g.
#
#   Benchmarks/container/gone-units.sh .build-release/release /path/to/baseline/.build-release/release
#
# The units are started by c/churn.c (StartTransientUnit over one sd-bus connection, PARALLEL of them alive at once,
# built here with the host's cc against libsystemd, as goals.sh does). On 2 cores it ran 100-220 units a second
# against 75-145 for 2 to 8 loops of systemd-run, with about 2 ms of PID 1's CPU a unit against 3.5-4.5 ms. Without
# cc, pkg-config or libsystemd-dev, or with DRIVER=systemd-run, PARALLEL loops of `systemd-run --no-block --collect`
# inside the container start them instead. If lifecycled is restarted meanwhile (its watchdog), the output says so,
# and its CPU figure is then the last process's only.
# journald's rate limit is off in the containers and its runtime journal may grow to JOURNAL_MAX (8G), so that the
# journal holds every dispatch. A benchmark: it asserts nothing, and scripts/test does not run it. Needs root,
# systemd-container and jq. Sizes (environment): UNITS (100000), PARALLEL (16), RUN_LIMIT (s, 3600: for the units),
# READY_LIMIT (s, 300: for each start), DISPATCH_LIMIT (s, 1800: for the dispatches after the last unit ran),
# ARCHIVE_WAIT (s, 10), JOURNAL_MAX (8G), PACE (s, 0: with DRIVER=systemd-run, how long each loop waits after each
# start, to run the units at a lower rate);
# KEEP=1 keeps the dispatches compared, lifecycled's log, its /proc/PID/smaps after the units, its memory sampled each
# second from the first unit on (`memory`: seconds, VmRSS, RssAnon, RssFile, RssShmem in kB) and the install logs in
# the work directory it prints.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$here/lib.sh"

UNITS=${UNITS:-100000}
PARALLEL=${PARALLEL:-16}
READY_LIMIT=${READY_LIMIT:-300}
RUN_LIMIT=${RUN_LIMIT:-3600}
DISPATCH_LIMIT=${DISPATCH_LIMIT:-1800}
ARCHIVE_WAIT=${ARCHIVE_WAIT:-10}
JOURNAL_MAX=${JOURNAL_MAX:-8G}
PACE=${PACE:-0}
readonly PREFIX_INSIDE=/opt/lifecycled
readonly STATE=/var/lib/lifecycled
readonly METRICS_FILE=/var/lib/prometheus/node-exporter/lifecycled.prom
readonly CONFIG_FILE=/etc/lifecycled/lifecycled.json
# PID 1's "Started UNIT" (SD_MESSAGE_UNIT_STARTED).
readonly PID1_STARTED=39f53479d3a045ac8e11786248231fbf

if ((EUID != 0)); then
    echo "gone-units.sh: must run as root (systemd-nspawn boots a container)" >&2
    exit 1
fi
if (($# < 1)); then
    echo "usage: Benchmarks/container/gone-units.sh BUILD_DIR [BASELINE_BUILD_DIR...]" >&2
    exit 64
fi
for build in "$@"; do
    [[ -x $build/lifecycled ]] || { echo "gone-units.sh: $build/lifecycled is missing" >&2; exit 1; }
done
for tool in systemd-nspawn nsenter jq; do
    command -v "$tool" >/dev/null || { echo "gone-units.sh: $tool is missing" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-gone.XXXXXX")
export CONTAINER_LOG_DIR=$work
container_install_trap

# The driver: c/churn.c when it builds here, otherwise (or with DRIVER=systemd-run) systemd-run loops.
driver=${DRIVER:-sd-bus}
if [[ $driver == sd-bus ]]; then
    if command -v cc >/dev/null && command -v pkg-config >/dev/null && pkg-config --exists libsystemd; then
        mkdir "$work/driver"
        read -r -a sd_flags <<<"$(pkg-config --cflags --libs libsystemd)"
        cc -O2 -Wall -Wextra -Werror -o "$work/driver/churn" "$here/c/churn.c" "${sd_flags[@]}"
    else
        say "no cc, pkg-config or libsystemd-dev here: the units are started by systemd-run instead of c/churn.c"
        driver=systemd-run
    fi
fi

# journald without its rate limit and with room for every dispatch; the metrics file's directory; the configuration,
# without archive_after_minutes if the build refuses it. Sets config_note; fails if the build refuses even that.
prepare_container() {
    c_exec mkdir -p /etc/systemd/journald.conf.d /etc/lifecycled "${METRICS_FILE%/*}" /run/lc-gone
    printf '[Journal]\nRateLimitIntervalSec=0\nRuntimeMaxUse=%s\nRuntimeMaxFileSize=128M\n' "$JOURNAL_MAX" |
        c_exec_stdin tee /etc/systemd/journald.conf.d/lc-gone.conf >/dev/null
    c_exec systemctl restart systemd-journald.service
    local without answer with
    without=$(printf '{"watch": ["lc-gone-*.service"], "metrics_file": "%s"' "$METRICS_FILE")
    with="$without, \"archive_after_minutes\": 0}"
    without+="}"
    printf '%s\n' "$with" | c_exec_stdin tee "$CONFIG_FILE" >/dev/null
    config_note="archive_after_minutes 0"
    if ! answer=$(c_exec /opt/lifecycled-build/lifecycled --check-config --config "$CONFIG_FILE" 2>&1); then
        if [[ $answer != *archive_after_minutes* ]]; then
            say "  configuration refused: $answer"
            return 1
        fi
        printf '%s\n' "$without" | c_exec_stdin tee "$CONFIG_FILE" >/dev/null
        config_note="no archive_after_minutes: this build refuses the key (\"$(tail -n 1 <<<"$answer")\")"
        if ! answer=$(c_exec /opt/lifecycled-build/lifecycled --check-config --config "$CONFIG_FILE" 2>&1); then
            say "  configuration refused even without archive_after_minutes: $answer"
            return 1
        fi
    fi
}

# Waits at most READY_LIMIT s for lifecycled to be active; true if it is.
wait_active() {
    local started=$SECONDS state
    while ((SECONDS - started < READY_LIMIT)); do
        state=$(unit_prop lifecycled.service ActiveState 2>/dev/null || echo missing)
        [[ $state == active ]] && return 0
        [[ $state == failed ]] && return 1
        sleep 0.5
    done
    return 1
}

# seconds A_US B_US: (B - A) in seconds, one decimal.
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) / 1e6 }'; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

# restart_ready LABEL WHEN: restarts lifecycled (Type=notify: the restart job ends at READY=1, systemctl waits at most
# READY_LIMIT s) and prints READY (InactiveExitTimestampMonotonic -> ActiveEnterTimestampMonotonic), then VmRSS and
# VmHWM 3 s after READY. True if lifecycled became active.
restart_ready() {
    local label=$1 when=$2 began ready pid state
    c_exec timeout "$READY_LIMIT" systemctl restart lifecycled.service 2>/dev/null || true
    state=$(unit_prop lifecycled.service ActiveState)
    if [[ $state != active ]]; then
        say "  $label: $when: not READY after $READY_LIMIT s (ActiveState $state, NRestarts" \
            "$(unit_prop lifecycled.service NRestarts))"
        return 1
    fi
    began=$(unit_prop lifecycled.service InactiveExitTimestampMonotonic)
    ready=$(unit_prop lifecycled.service ActiveEnterTimestampMonotonic)
    pid=$(unit_host_pid lifecycled.service)
    sleep 3
    say "  $label: $when: READY after $(seconds "$began" "$ready") s; 3 s later VmRSS $(mb "$(status_kb "$pid" VmRSS)") MB," \
        "VmHWM $(mb "$(status_kb "$pid" VmHWM)") MB"
}

# lifecycled's dispatches for lc-gone units, from the journal: "UNIT SEQUENCE EVENT" per line. With a cursor file,
# only those after the last call's.
dispatches() {
    c_exec journalctl --no-pager -o json "$@" SYSLOG_IDENTIFIER=lifecycled _UID=0 \
        --output-fields=LIFECYCLE_UNIT,LIFECYCLE_EVENT,LIFECYCLE_SEQUENCE |
        jq -r 'select(.LIFECYCLE_EVENT and ((.LIFECYCLE_UNIT // "") | startswith("lc-gone-")))
            | "\(.LIFECYCLE_UNIT) \(.LIFECYCLE_SEQUENCE // "-") \(.LIFECYCLE_EVENT)"'
}

# Runs the units, for at most RUN_LIMIT s; sets run_line (what the driver says), run_seconds and runs (lc-gone units
# PID 1 started: its "Started" entries in the journal).
run_units() {
    local started=$EPOCHREALTIME deadline=$((SECONDS + RUN_LIMIT))
    if [[ $driver == sd-bus ]]; then
        run_line=$(c_exec timeout "$RUN_LIMIT" /opt/lc-gone-driver/churn lc-gone "$UNITS" "$PARALLEL" 0) ||
            run_line="driver stopped after RUN_LIMIT $RUN_LIMIT s"
    else
        # PARALLEL loops, unit i in loop i % PARALLEL; a refused request is counted, not retried. (No awk inside: the
        # container's /etc, where its alternatives link lives, is a fresh tmpfs.)
        # shellcheck disable=SC2016 # expanded by the shell inside the container
        run_line=$(c_exec timeout "$RUN_LIMIT" bash -c '
            for ((p = 0; p < $2; p++)); do
                (f=0; for ((i = p; i < $1; i += $2)); do
                    systemd-run --no-block --quiet --collect --unit="lc-gone-$i" /bin/true || f=$((f + 1))
                    [[ $3 == 0 ]] || sleep "$3"
                done; echo "$f" >/run/lc-gone/failed-$p) &
            done
            wait
            n=0; for f in /run/lc-gone/failed-*; do n=$((n + $(<"$f"))); done; echo "failed_calls=$n"' _ "$UNITS" "$PARALLEL" "$PACE") ||
            run_line="driver stopped after RUN_LIMIT $RUN_LIMIT s"
        while [[ -n $(c_exec systemctl list-units --all --no-legend 'lc-gone-*.service') ]] && ((SECONDS < deadline)); do
            sleep 0.5
        done
    fi
    run_seconds=$(elapsed "$started")
    runs=$(c_exec journalctl --no-pager -o json _PID=1 MESSAGE_ID=$PID1_STARTED --output-fields=UNIT |
        jq -r '.UNIT // empty' | grep -c '^lc-gone-' || true)
}

# sample_memory PID FILE: every second until killed, "SECONDS VmRSS RssAnon RssFile RssShmem" (kB) of PID, appended to
# FILE; VmHWM says how high the resident set went, these say in what.
sample_memory() {
    local pid=$1 file=$2 began=$SECONDS
    while [[ -r /proc/$pid/status ]]; do
        awk -v t=$((SECONDS - began)) '$1 == "VmRSS:" { r = $2 } $1 == "RssAnon:" { a = $2 } $1 == "RssFile:" { f = $2 }
            $1 == "RssShmem:" { s = $2 } END { print t, r, a, f, s }' "/proc/$pid/status" >>"$file" 2>/dev/null || break
        sleep 1
    done
}

# memory_peaks FILE: the sample with the highest VmRSS, split, and each part's own highest.
memory_peaks() {
    sort -k2,2n "$1" | tail -n 1 | awk '{ printf "highest VmRSS sampled %.1f MB at %d s (RssAnon %.1f, RssFile %.1f, RssShmem %.1f)",
        $2 / 1024, $1, $3 / 1024, $4 / 1024, $5 / 1024 }'
    awk '$3 > a { a = $3 } $4 > f { f = $4 } $5 > s { s = $5 } END {
        printf "; each part at its highest: RssAnon %.1f, RssFile %.1f, RssShmem %.1f MB\n", a / 1024, f / 1024, s / 1024 }' "$1"
}

# Waits until lifecycled's CPU time has stood still for 2 s (at most 120 s).
wait_cpu_quiet() {
    local pid=$1 last now still=0 deadline=$((SECONDS + 120))
    last=$(cpu_ticks "$pid")
    while ((SECONDS < deadline)); do
        sleep 0.5
        now=$(cpu_ticks "$pid")
        if [[ $now == "$last" ]]; then
            ((++still >= 4)) && return 0
        else
            still=0
            last=$now
        fi
    done
}

measure() {
    local build=$1 label=$2 booted lc_pid nrestarts runs l0 p0 l_runs p_runs seen waited deadline lc_cpu pid1_cpu
    booted=$EPOCHREALTIME
    mkdir -p "$work/$label"
    cp "$build/lifecycled" "$build/lifecyclectl" "$work/$label/"
    local binds=(--bind-ro="$repo:/opt/lifecycled-src")
    [[ $driver == sd-bus ]] && binds+=(--bind-ro="$work/driver:/opt/lc-gone-driver")
    container_boot "lc-gone-$label-$$" "$work/$label" "${binds[@]}" >/dev/null
    say "  $label: lifecycled $(sha256sum "$work/$label/lifecycled" | cut -c1-12) from $build"
    if ! prepare_container; then
        container_poweroff
        return 0
    fi
    say "  $label: configured with $config_note"
    c_exec env PREFIX=$PREFIX_INSIDE /opt/lifecycled-src/scripts/install.sh /opt/lifecycled-build \
        >"$work/$label/install.log" 2>&1 || true
    if ! wait_active; then
        say "  $label: not active after the install (ActiveState $(unit_prop lifecycled.service ActiveState)); see" \
            "$work/$label/install.log"
        container_poweroff
        return 0
    fi
    if ! restart_ready "$label" "before the units"; then
        container_poweroff
        return 0
    fi

    lc_pid=$(unit_host_pid lifecycled.service)
    nrestarts=$(unit_prop lifecycled.service NRestarts)
    l0=$(cpu_ticks "$lc_pid")
    p0=$(cpu_ticks "$CONTAINER_PID")
    sample_memory "$lc_pid" "$work/$label/memory" &
    local sampler=$!
    run_units
    l_runs=$(cpu_ticks "$lc_pid" 2>/dev/null || echo "$l0")
    p_runs=$(cpu_ticks "$CONTAINER_PID")
    say "  $label: PID 1 started $runs of $UNITS units in $run_seconds s ($(awk -v n="$runs" -v s="$run_seconds" \
        'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }') runs/s; $driver, $PARALLEL at once): $run_line"

    # Every unit's launch and sleep in the journal, counted as they come (a cursor file: each look reads only the
    # new entries).
    waited=$EPOCHREALTIME
    deadline=$((SECONDS + DISPATCH_LIMIT))
    seen=0
    while :; do
        seen=$((seen + $(dispatches --cursor-file=/run/lc-gone/cursor | wc -l)))
        ((seen >= 2 * runs || SECONDS >= deadline)) && break
        sleep 5
    done
    if ((seen >= 2 * runs)); then
        say "  $label: all $seen dispatches in the journal $(elapsed "$waited") s after the last unit ran"
    else
        say "  $label: only $seen of $((2 * runs)) dispatches in the journal after $DISPATCH_LIMIT s more"
    fi
    sleep "$ARCHIVE_WAIT"
    wait_cpu_quiet "$lc_pid" 2>/dev/null || true
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    say "  $label: sampled each second from the first unit on: $(memory_peaks "$work/$label/memory")"
    if [[ $(unit_prop lifecycled.service NRestarts) != "$nrestarts" ]] ||
        [[ $(unit_host_pid lifecycled.service 2>/dev/null) != "$lc_pid" ]]; then
        say "  $label: lifecycled restarted meanwhile: NRestarts $nrestarts -> $(unit_prop lifecycled.service NRestarts)," \
            "$(c_exec journalctl --no-pager -o cat _PID=1 UNIT=lifecycled.service | grep -c 'Watchdog timeout' || true)" \
            "watchdog timeouts; its CPU time below is the last process's only"
        lc_pid=$(unit_host_pid lifecycled.service)
        l0=0
        l_runs=""
    fi
    lc_cpu=$((($(cpu_ticks "$lc_pid") - l0) * TICK_MS))
    pid1_cpu=$((($(cpu_ticks "$CONTAINER_PID") - p0) * TICK_MS))

    local files archive metrics files_n files_kb archive_files archive_lines archive_bytes metrics_lines metrics_bytes
    files=$(c_exec sh -c "find $STATE/units -maxdepth 1 -type f | wc -l; du -sk $STATE/units | cut -f1" | paste -sd ' ')
    archive=$(c_exec sh -c "ls $STATE/archive/*.jsonl 2>/dev/null | wc -l; cat $STATE/archive/*.jsonl 2>/dev/null | wc -l -c" |
        paste -sd ' ')
    metrics=$(c_exec sh -c "if [ -e $METRICS_FILE ]; then wc -c -l <$METRICS_FILE; else echo 0 0; fi")
    read -r files_n files_kb <<<"$files"
    read -r archive_files archive_lines archive_bytes <<<"$archive"
    read -r metrics_lines metrics_bytes <<<"$metrics"
    say "  $label: after the units: VmRSS $(mb "$(status_kb "$lc_pid" VmRSS)") MB (RssAnon" \
        "$(mb "$(status_kb "$lc_pid" RssAnon)"), RssFile $(mb "$(status_kb "$lc_pid" RssFile)"), RssShmem" \
        "$(mb "$(status_kb "$lc_pid" RssShmem)")), VmHWM $(mb "$(status_kb "$lc_pid" VmHWM)") MB;" \
        "metrics file $(mb $((metrics_bytes / 1024))) MB ($metrics_lines lines)"
    [[ -n ${KEEP:-} ]] && cp "/proc/$lc_pid/smaps" "$work/$label/smaps-after-units"
    say "  $label: $files_n files in $STATE/units ($(mb "$files_kb") MB on disk); archive $archive_files files," \
        "$(mb $((archive_bytes / 1024))) MB, $archive_lines lines"
    say "  $label: CPU from the first unit until lifecycled was idle: lifecycled $lc_cpu ms" \
        "($((lc_cpu * 1000 / (runs > 0 ? runs : 1))) µs a unit;" \
        "$(if [[ -n $l_runs ]]; then echo "$(((l_runs - l0) * TICK_MS)) ms while the units ran"; else echo "the last process only"; fi))," \
        "PID 1 $pid1_cpu ms ($((pid1_cpu * 1000 / (runs > 0 ? runs : 1))) µs a unit; $(((p_runs - p0) * TICK_MS)) ms while they ran)"

    restart_ready "$label" "the next start" || true

    dispatches >"$work/$label/dispatches"
    local total launches sleeps others units twice once duplicates
    total=$(wc -l <"$work/$label/dispatches")
    launches=$(awk '$3 == "launch"' "$work/$label/dispatches" | wc -l)
    sleeps=$(awk '$3 == "sleep"' "$work/$label/dispatches" | wc -l)
    others=$((total - launches - sleeps))
    read -r units twice once <<<"$(awk '{ n[$1]++ } END { for (u in n) { units++; if (n[u] == 2) two++; else other++ }
        print units + 0, two + 0, other + 0 }' "$work/$label/dispatches")"
    duplicates=$(awk '{ print $1, $2 }' "$work/$label/dispatches" | sort | uniq -d | wc -l)
    say "  $label: dispatches: $total for $units units (2 per unit that ran expected: $((2 * runs))); $launches launches," \
        "$sleeps sleeps, $others others; $twice units with 2, $once with another count, $((runs - units)) of those that ran with none;" \
        "$duplicates (unit, sequence) pairs twice"
    say "  $label: journal: $(c_exec journalctl --disk-usage | sed -E 's/.* take up ([^ ]+) .*/\1/');" \
        "wall time for this build $(elapsed "$booted") s"
    if [[ -n ${KEEP:-} ]]; then
        c_exec journalctl --no-pager -o short-monotonic SYSLOG_IDENTIFIER=lifecycled -u lifecycled.service \
            >"$work/$label/lifecycled.log" 2>&1 || true
    else
        rm -f "$work/$label/dispatches"
    fi
    container_poweroff
}

section "Units that never come back: $UNITS transient units lc-gone-N.service, one /bin/true run each"
say "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
labels=(build baseline baseline2 baseline3)
index=0
for build in "$@"; do
    measure "$build" "${labels[$index]}"
    index=$((index + 1))
done
if [[ -n ${KEEP:-} ]]; then say "evidence kept in $work"; else rm -rf "$work"; fi
