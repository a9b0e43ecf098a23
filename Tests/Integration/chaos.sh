#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# lifecycled under randomized, seeded chaos against a real systemd, judged by PID 1's own journal. Per seed: boots
# this machine's root as a throw-away container, starts capturing the journal as it is written, runs a unit
# CHAOS_HISTORY_RUNS times (a history, in several journal files: journald rotates every 4-11 s meanwhile), then
# installs lifecycled with scripts/install.sh: its first start rebuilds that history from PID 1's journal
# (history_from_journal) while the chaos begins. For CHAOS_SECONDS it runs a churn
# of watched units (a Restart=always crash loop, a long-running service restarted, stopped, started and killed, a
# oneshot that sometimes fails, a stream of transient units, a service whose executable is replaced, a oneshot whose
# ExecCondition= check sometimes skips the start or fails, a service PID 1 logs nothing of (LogLevelMax=notice) that
# records its own runs in /run/lc-chaos/quiet.log; with "longname", transient units and a template instance whose
# names are 250 bytes; with "manual", two units driven only by lifecyclectl launch/wake/sleep/track, one every second
# or so, one in bursts 15-35 s apart) while a second loop disturbs lifecycled and its world (the first 0.2-1.5 s into
# its first start; SIGKILL, also during its start-up; restart; stop for 2-5 s; daemon-reload; daemon-reexec; restart
# of dbus; journald stopped with SIGSTOP for 1-10 s; dbus-daemon stopped with SIGSTOP for 5-20 s; the journal rotated
# and every archived file vacuumed, once the capture holds it all and not before the first start's recovery saved
# its journal position; "startlag": journald stopped just before lifecycled starts, a watched oneshot run meanwhile,
# journald going on 1-4 s after the new process exists; "nostore": journald storing nothing below notice
# (MaxLevelStore=notice) for a few seconds while a oneshot runs 18-27 times, recording its runs itself; "busy":
# 200-400 transient units started at once while dbus-daemon is stopped). Units systemd unloaded are archived within
# about half a minute (archive_after_minutes 0). A sampler records each state file's sequence and counters as they
# change. Then it settles (disturbances off, lifecycled running, churn stopped, a marker unit's launch and sleep
# dispatched) and lib/chaos_oracle.py compares every run PID 1 logged (as captured while the journal was written),
# every run the self-recording units recorded and every manual event lifectl was told was accepted with lifecycled's
# dispatches, its state files and archive, and the samples (its docstring lists each check). The oracle's own tests
# run first.
#
# Usage: Tests/Integration/chaos.sh [--seed N] BUILD_DIR        (the release build: scripts/test passes it)
# Tunables (environment):
#   CHAOS_SEED=N            the first seed (default: a random one, printed); --seed N does the same
#   CHAOS_RUNS=N            seeds to run, N, N+1, ... each in its own container (default 2; e.g. 20 for a soak)
#   CHAOS_SECONDS=S         seconds of chaos per seed (default 50), then the settle phase
#   CHAOS_HISTORY_RUNS=N    runs of lc-chaos-hist.service before lifecycled's first start (default 4000, which PID 1's
#                           journal holds in four of the slices lifecycled reads it in; 0: none)
#   CHAOS_DISTURBANCES=L    comma-separated from sigkill,restart,stop,reload,reexec,dbus,journald,dbusstall,vacuum,
#                           startlag,nostore,busy (drawn by the seed, one at a time) and manual,longname (churn that
#                           runs all along); "all" (default) or "none"
#   CHAOS_KEEP=1            keep the evidence of passing seeds too
# Evidence of a failing seed (journal export, state files, archive, samples, disturbance, churn and manual-event logs,
# the oracle's report) stays in the work directory printed at the end. One seed takes about 110 s (boot, history
# 20-30 s, install, chaos 50-65 s, settle, oracle; up to 3 minutes on a loaded machine, the history then 60-100 s),
# the default run about 4 minutes.
# Needs root, systemd-container, jq and python3.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"
# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"

seed=${CHAOS_SEED:-}
args=()
while (($#)); do
    case $1 in
        --seed)
            (($# >= 2)) || { echo "chaos.sh: --seed needs a number" >&2; exit 64; }
            seed=$2
            shift 2
            ;;
        --seed=*) seed=${1#--seed=}; shift ;;
        *) args+=("$1"); shift ;;
    esac
done
if [[ -z $seed ]]; then
    seed=$((SRANDOM % 1000000))
fi
readonly RUNS=${CHAOS_RUNS:-2} CHAOS_SECONDS=${CHAOS_SECONDS:-50} HISTORY_RUNS=${CHAOS_HISTORY_RUNS:-4000}
readonly ALL_DISTURBANCES=sigkill,restart,stop,reload,reexec,dbus,journald,dbusstall,vacuum,startlag,nostore,busy,manual,longname
disturbances=${CHAOS_DISTURBANCES:-all}
[[ $disturbances == all ]] && disturbances=$ALL_DISTURBANCES
[[ $disturbances == none ]] && disturbances=""
for number in "$seed" "$RUNS" "$CHAOS_SECONDS" "$HISTORY_RUNS"; do
    [[ $number =~ ^[0-9]+$ ]] || { echo "chaos.sh: '$number' is not a non-negative integer" >&2; exit 64; }
done
IFS=, read -r -a kinds <<<"$disturbances"
for kind in "${kinds[@]}"; do
    [[ ,$ALL_DISTURBANCES, == *,"$kind",* ]] || {
        echo "chaos.sh: unknown disturbance '$kind' (known: $ALL_DISTURBANCES, all, none)" >&2
        exit 64
    }
done
readonly disturbances

readonly PYTHON=${PYTHON:-/usr/bin/python3}
readonly UNITS_DIR=/var/lib/lifecycled/units ARCHIVE_DIR=/var/lib/lifecycled/archive CONFIG=/etc/lifecycled/lifecycled.json
# Every chaos unit is watched and autotracked but lc-chaos-job-*, driven only by manual events; a unit systemd
# unloaded is archived within about half a minute (archive_after_minutes 0), a manual-only one after each restart;
# debug level makes lifecycled log its resyncs (for diagnosis).
readonly CHAOS_CONFIG='{"watch": [{"pattern": "lc-chaos-job-*", "autotracking_enabled": false}, "lc-chaos-*.service"],
    "archive_after_minutes": 0, "log_level": "debug"}'
readonly WAIT=60 # seconds lifecycled may take to catch up after the chaos (its backlog, its reconciliation)
readonly INSIDE=/etc/lc-chaos RUN_INSIDE=/run/lc-chaos

# The oracle first: fast, no container, and an oracle that cannot fail proves nothing.
test_oracle() {
    local out
    out=$("$PYTHON" "$here/lib/chaos_oracle_test.py" 2>&1) || fail "the oracle's own tests failed:"$'\n'"$out"
    printf '  %s\n' "$(tail -n 3 <<<"$out" | grep -E '^(Ran|OK)' | paste -sd' ' -)"
}
run_test "the oracle catches lost, duplicated, invented and misnumbered dispatches (handcrafted journals)" test_oracle

suite_preflight chaos.sh "${args[@]}"
command -v "$PYTHON" >/dev/null || { echo "chaos.sh: $PYTHON is missing" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-chaos.XXXXXX")
export CONTAINER_LOG_DIR=$work

# --- what runs inside ----------------------------------------------------------------------------------------------

# The crash loop's one run: the next line of the seeded plan says how long it lives and its exit status.
write_loop_script() {
    cat <<'EOF'
#!/bin/bash
n=$(($(cat /run/lc-chaos/loop.n 2>/dev/null || echo 0) + 1))
echo "$n" >/run/lc-chaos/loop.n
lines=$(wc -l </etc/lc-chaos/loop.plan)
read -r secs code < <(sed -n "$(((n - 1) % lines + 1))p" /etc/lc-chaos/loop.plan)
sleep "$secs"
exit "$code"
EOF
}

# The churn (churn.sh SEED): one loop per unit kind, each seeded from SEED, until /run/lc-chaos/stop-churn exists;
# then it stops the long-running units and waits until no chaos unit runs. Every action is logged with its time.
# A failing systemctl is logged, not fatal: around a daemon-reexec systemd may refuse or drop a call, and the truth
# is what PID 1 logged anyway.
write_churn_script() {
    cat <<'EOF'
#!/bin/bash
set -u
seed=$1
kinds=,${2:-},
dir=/run/lc-chaos
ctl=/opt/lifecycled/bin/lifecyclectl
say() { printf '%s %s\n' "$EPOCHREALTIME" "$*" >>"$dir/churn.log"; }
# pause MIN_MS MAX_MS: a seeded random pause.
pause() { local ms=$(($1 + RANDOM % ($2 - $1 + 1))); sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"; }
running() { [[ ! -e $dir/stop-churn ]]; }
act() { say "$*"; "$@" >/dev/null 2>&1 || say "failed (exit $?): $*"; }

long() {
    RANDOM=$((seed + 1))
    local u=lc-chaos-long.service r
    while running; do
        pause 300 1500
        r=$((RANDOM % 10))
        if ((r < 3)); then act systemctl restart $u
        elif ((r < 5)); then act systemctl stop $u
        elif ((r < 7)); then act systemctl start $u
        elif systemctl is-active --quiet $u; then act systemctl kill -s KILL $u
        else act systemctl start $u
        fi
    done
}

app() {
    RANDOM=$((seed + 2))
    local u=lc-chaos-app.service r version=1
    while running; do
        pause 500 2000
        r=$((RANDOM % 10))
        if ((r < 2)); then
            version=$((version + 1))
            # A new file moved over the old one: the running process keeps its copy, the next start hashes the new.
            printf '#!/bin/sh\n# version %d\nexec sleep infinity\n' "$version" >/etc/lc-chaos/app.new
            chmod 0755 /etc/lc-chaos/app.new
            mv /etc/lc-chaos/app.new /etc/lc-chaos/app
            say "replaced /etc/lc-chaos/app: version $version"
            act systemctl restart $u
        elif ((r < 5)); then act systemctl restart $u
        elif ((r < 7)); then act systemctl stop $u
        else act systemctl start $u
        fi
    done
}

oneshot() {
    RANDOM=$((seed + 3))
    local code
    while running; do
        pause 200 1000
        code=0
        ((RANDOM % 4 == 0)) && code=3
        echo "0.$((RANDOM % 3)) $code" >$dir/oneshot.next
        if ((code == 0)); then
            act systemctl start lc-chaos-oneshot.service
        else
            # systemctl reports the failed start it was asked for: not a failed command.
            say "systemctl start lc-chaos-oneshot.service (told to exit 3)"
            systemctl start lc-chaos-oneshot.service >/dev/null 2>&1
        fi
    done
}

transient() {
    RANDOM=$((seed + 4))
    local i=0 code
    while running; do
        pause 100 600
        i=$((i + 1))
        code=0
        ((RANDOM % 5 == 0)) && code=2
        act systemd-run --quiet --unit="lc-chaos-t-$i.service" /bin/sh -c "sleep 0.$((RANDOM % 4)); exit $code"
    done
    echo "$i" >$dir/transients
}

loop() {
    RANDOM=$((seed + 5))
    while running; do
        pause 4000 10000
        running || break
        if ((RANDOM % 2)); then
            act systemctl restart lc-chaos-loop.service
        else
            act systemctl stop lc-chaos-loop.service
            pause 300 1000
            act systemctl start lc-chaos-loop.service
        fi
    done
}

# The oneshot behind ExecCondition=: the check passes (0), skips the start (1: no run) or fails (255: a failed run).
cond() {
    RANDOM=$((seed + 6))
    local r code
    while running; do
        pause 200 1000
        r=$((RANDOM % 8))
        if ((r < 4)); then code=0
        elif ((r < 7)); then code=1
        else code=255
        fi
        echo "$code 0.$((RANDOM % 3))" >$dir/cond.next
        if ((code != 255)); then
            # A skipped start is no failed command either: systemctl start succeeds.
            act systemctl start lc-chaos-cond.service
        else
            say "systemctl start lc-chaos-cond.service (its check told to exit 255)"
            systemctl start lc-chaos-cond.service >/dev/null 2>&1
        fi
    done
}

# The unit PID 1 logs nothing of: each run sleeps 0.3-1.9 s (quiet.next), exits 0 and is started again by systemd.
quiet() {
    RANDOM=$((seed + 7))
    local u=lc-chaos-quiet.service r
    while running; do
        pause 500 2500
        echo "$((RANDOM % 2)).$((3 + RANDOM % 7))" >$dir/quiet.next
        r=$((RANDOM % 10))
        if ((r < 3)); then act systemctl restart $u
        elif ((r < 5)); then act systemctl stop $u
        else act systemctl start $u
        fi
    done
}

# A unit driven only by manual events (autotracking off; systemd never lists it): launch, wake, sleep or a custom
# event, each through lifecyclectl, whatever lifecycled is doing. One line per call in manual.log: "START END UNIT
# EVENT OUTCOME SEQUENCE MESSAGE": OUTCOME ok (exit 0, SEQUENCE the dispatch's number), refused (lifecycled said no,
# or was not on the bus: nothing recorded) or unknown (a timeout, a lost reply: recorded or not).
# manual UNIT SEED_OFFSET BUSY: BUSY 1 sends an event every 0.3-1.5 s; 0 sends bursts of 3-6 events 15-35 s apart, so
# that a restart meanwhile archives the record (archive_after_minutes 0) and the next event must bring it back.
manual() {
    RANDOM=$((seed + $2))
    local u=$1 busy=$3 r ev out rc outcome seqno started n=0 burst=0 i
    while running; do
        if ((busy)); then
            pause 300 1500
        elif ((burst > 0)); then
            burst=$((burst - 1))
            pause 200 800
        else
            for ((i = 15 + RANDOM % 21; i > 0; i--)); do running && sleep 1; done
            burst=$((2 + RANDOM % 4))
        fi
        running || break
        r=$((RANDOM % 10))
        if ((r < 3)); then ev=launch
        elif ((r < 5)); then ev=wake
        elif ((r < 8)); then ev=sleep
        else ev=tick
        fi
        n=$((n + 1))
        started=$EPOCHREALTIME
        if [[ $ev == tick ]]; then
            out=$(timeout 40 $ctl track --verbose "$u" tick "n=$n" 2>&1)
        else
            out=$(timeout 40 $ctl $ev --verbose "$u" "n=$n" 2>&1)
        fi
        rc=$?
        seqno=-
        if ((rc == 0)) && [[ $out =~ dispatched,\ sequence\ ([0-9]+) ]]; then
            outcome=ok seqno=${BASH_REMATCH[1]}
        elif ((rc != 0 && rc != 124)) && [[ $out == *"Refused "* || $out == *"is not running"* ||
            $out == *"Failed to connect"* || $out == *"Too many calls"* ]]; then
            outcome=refused
        else
            outcome=unknown
        fi
        out=${out//$'\n'/ }
        printf '%s %s %s %s %s %s exit %s: %s\n' "$started" "$EPOCHREALTIME" "$u" "$ev" "$outcome" "$seqno" "$rc" \
            "${out:0:200}" >>$dir/manual.log
    done
}

# Names of 250 bytes (systemd allows 255; lifecycled names such a state file <prefix>~<hash>.json): a stream of
# transient units, and a template instance (an escape in it) restarted, stopped, started and killed.
longname() {
    RANDOM=$((seed + 10))
    local i=0 r code name pad
    local tpl="lc-chaos-tpl@n\x2d$(printf 'x%.0s' {1..224}).service"
    while running; do
        pause 300 1500
        r=$((RANDOM % 10))
        if ((r < 4)); then
            i=$((i + 1))
            name="lc-chaos-n-$i-"
            pad=$((250 - ${#name} - 8))
            name+="$(printf 'y%.0s' $(seq 1 $pad)).service"
            code=0
            ((RANDOM % 5 == 0)) && code=2
            act systemd-run --quiet --unit="$name" /bin/sh -c "sleep 0.$((RANDOM % 4)); exit $code"
        elif ((r < 6)); then act systemctl restart "$tpl"
        elif ((r < 8)); then act systemctl stop "$tpl"
        elif systemctl is-active --quiet "$tpl"; then act systemctl kill -s KILL "$tpl"
        else act systemctl start "$tpl"
        fi
    done
    act systemctl stop "$tpl"
}

act systemctl start lc-chaos-loop.service lc-chaos-quiet.service
long & app & oneshot & transient & loop & cond & quiet &
if [[ $kinds == *,manual,* ]]; then
    manual lc-chaos-job-a.service 8 1 &
    manual lc-chaos-job-b.service 9 0 &
fi
[[ $kinds == *,longname,* ]] && longname &
wait
act systemctl stop lc-chaos-long.service lc-chaos-app.service lc-chaos-loop.service lc-chaos-quiet.service
for ((i = 0; i < 300; i++)); do
    [[ -z $(systemctl list-units --no-legend --plain --state=active,activating,deactivating 'lc-chaos-*') ]] && break
    sleep 0.1
done
say "churn over: $(cat $dir/transients) transient units; still running: $(systemctl list-units --no-legend --plain --state=active,activating,deactivating 'lc-chaos-*' | wc -l)"
EOF
}

# The disturbances (disturb.sh SEED KINDS): at seeded random moments 2.5-6 s apart, one of KINDS (comma-separated),
# until /run/lc-chaos/stop-disturb exists; after each, waits until lifecycled is up again (a new process for a kill, a
# restart or a stop; its bus name owned again after a restart of dbus). One line per disturbance in
# disturbances.log: "START END KIND DETAIL", START and END in seconds since the epoch (the oracle reads it).
write_disturb_script() {
    cat <<'EOF'
#!/bin/bash
set -u
RANDOM=$1
IFS=, read -r -a all <<<"$2"
kinds=()
for kind in "${all[@]}"; do
    [[ $kind == manual || $kind == longname ]] || kinds+=("$kind") # churn, not disturbances
done
dir=/run/lc-chaos
unit=lifecycled.service
position=/var/lib/lifecycled/journal-position.json
note() { printf '%s %s\n' "$EPOCHREALTIME" "$*" >>"$dir/disturb-notes.log"; }
pause() { local ms=$(($1 + RANDOM % ($2 - $1 + 1))); sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"; }
main_pid() { systemctl show -p MainPID --value $unit; }
# up OLD_PID: lifecycled active under another main process than OLD_PID ("" accepts any).
up() {
    local pid state
    pid=$(main_pid)
    state=$(systemctl show -p ActiveState --value $unit)
    [[ $state == active && $pid != 0 && $pid != "$1" ]]
}
# wait_up OLD_PID: until up, 30 s at most. lifecycled's start limit (5 starts in 10 s) may stop systemd from
# starting it again: then it is started by hand, and that is logged.
wait_up() {
    local i state
    for ((i = 0; i < 300; i++)); do
        up "$1" && return 0
        state=$(systemctl show -p ActiveState --value $unit)
        if [[ $state == failed || ($state == inactive && $i -gt 20) ]]; then
            note "lifecycled $state ($(systemctl show -p Result --value $unit)): reset-failed and start"
            systemctl reset-failed $unit
            systemctl start $unit
        fi
        sleep 0.1
    done
    note "lifecycled not up within 30 s after a disturbance"
    return 1
}
name_owned() {
    [[ $(busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s \
        org.lifecycled.Lifecycle1 2>/dev/null) == "b true" ]]
}

# The first disturbance comes 0.2-1.5 s after lifecycled's first start began (the loop starts then): while that
# start still rebuilds the history from PID 1's journal, or just after.
first=1 busy=0
mkdir -p /etc/systemd/journald.conf.d
while [[ ! -e $dir/stop-disturb ]] && ((${#kinds[@]})); do
    if ((first)); then pause 200 1500; else pause 2500 6000; fi
    first=0
    [[ -e $dir/stop-disturb ]] && break
    kind=${kinds[RANDOM % ${#kinds[@]}]}
    if [[ $kind == vacuum && ! -e $position ]]; then
        # Retention before lifecycled's first recovery saved its position would take runs no process read yet:
        # lost for good, not a fault of lifecycled's. Put off.
        note "vacuum put off: no $position yet (the first recovery is not over)"
        continue
    fi
    start=$EPOCHREALTIME
    old=$(main_pid)
    detail="PID $old"
    state=$(systemctl show -p ActiveState --value $unit)
    [[ $state == active ]] || detail+=" (lifecycled $state)"
    case $kind in
        sigkill)
            if [[ $old == 0 ]]; then
                detail+=" (no process)"
            else
                kill -KILL "$old" 2>/dev/null || detail+=" (already gone)"
            fi
            if ((RANDOM % 4 == 0)); then
                # Also the next process, as soon as it exists: lifecycled killed while loading and reconciling.
                for ((i = 0; i < 2000; i++)); do
                    pid=$(main_pid)
                    if [[ $pid != 0 && $pid != "$old" ]]; then
                        kill -KILL "$pid" && detail+=", then PID $pid during its start-up"
                        old=$pid
                        break
                    fi
                done
            fi
            wait_up "$old"
            ;;
        restart)
            systemctl restart $unit || detail+=" (restart failed)"
            wait_up "$old"
            ;;
        stop)
            systemctl stop $unit || detail+=" (stop failed)"
            ms=$((2000 + RANDOM % 3001))
            detail+=", stopped for $ms ms"
            sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
            systemctl start $unit || detail+=" (start failed)"
            wait_up "$old"
            ;;
        reload)
            systemctl daemon-reload || detail+=" (failed)"
            wait_up ""
            ;;
        reexec)
            systemctl daemon-reexec || detail+=" (failed)"
            wait_up ""
            ;;
        journald | dbusstall)
            # A stalled journald (entries wait in its socket) or bus daemon (signals and calls wait): slow, not lost.
            if [[ $kind == journald ]]; then
                service=systemd-journald.service ms=$((1000 + RANDOM % 9001))
            else
                service=dbus.service ms=$((5000 + RANDOM % 15001))
            fi
            stalled=$(systemctl show -p MainPID --value $service)
            detail+=", $service (PID $stalled) stopped for $ms ms"
            kill -STOP "$stalled"
            sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
            kill -CONT "$stalled"
            wait_up ""
            ;;
        vacuum)
            # Retention, as SystemMaxUse= and MaxRetentionSec= do on every host: the active file archived, and every
            # archived file dropped (the oracle reads the journal as it was captured while written).
            # The capture must hold everything the rotation archived before it goes: a mark after the rotation, in
            # the new file, and the vacuum only once the capture has it (it follows the journal in order).
            journalctl --rotate >/dev/null 2>&1 || detail+=" (rotate failed)"
            mark="lc-chaos-mark $start"
            systemd-cat -t lc-chaos-mark echo "$mark"
            for ((i = 0; i < 100; i++)); do
                grep -qF "$mark" $dir/captured.json && break
                sleep 0.1
            done
            if ! grep -qF "$mark" $dir/captured.json; then
                detail+=" (the capture did not catch up within 10 s: no vacuum)"
            else
                sleep 1.2
                journalctl --vacuum-time=1s >/dev/null 2>&1 || detail+=" (vacuum failed)"
            fi
            ;;
        startlag)
            # journald stopped just before lifecycled starts: a watched oneshot runs while no lifecycled exists (and,
            # one time in two, another while it starts); PID 1 logs them before lifecycled's history ends, journald
            # writes them after. journald goes on 1-4 s after the new process exists.
            systemctl stop $unit || detail+=" (stop failed)"
            stalled=$(systemctl show -p MainPID --value systemd-journald.service)
            ms=$((1000 + RANDOM % 3001)) twice=$((RANDOM % 2))
            kill -STOP "$stalled"
            systemctl start lc-chaos-lag.service || detail+=" (lc-chaos-lag.service failed)"
            systemctl start --no-block $unit || detail+=" (start failed)"
            for ((i = 0; i < 500; i++)); do
                pid=$(main_pid)
                [[ $pid != 0 && $pid != "$old" ]] && break
                sleep 0.01
            done
            ((twice)) && { systemctl start lc-chaos-lag.service || detail+=" (lc-chaos-lag.service failed)"; }
            detail+=", systemd-journald.service (PID $stalled) stopped until $ms ms after PID $pid began"
            detail+=" ($((twice + 1)) run(s) of lc-chaos-lag.service)"
            sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
            kill -CONT "$stalled"
            wait_up "$old"
            ;;
        nostore)
            # journald stores nothing below notice (MaxLevelStore=notice) for a while: neither PID 1's info entries
            # nor lifecycled's dispatches. lc-chaos-nostore.service runs 18-27 times meanwhile (more than the 16
            # dispatches a unit may have waiting), recording its runs itself. This line's START..END is the window.
            # lifecycled must be ready first (it listens to systemd by then): the oracle demands every run counted.
            wait_up ""
            start=$EPOCHREALTIME
            printf '[Journal]\nMaxLevelStore=notice\n' >/etc/systemd/journald.conf.d/60-lc-chaos-nostore.conf
            systemctl restart systemd-journald.service || detail+=" (journald restart failed)"
            n=$((18 + RANDOM % 10))
            for ((i = 0; i < n; i++)); do
                systemctl start lc-chaos-nostore.service || detail+=" (run $i failed)"
                pause 50 250
            done
            pause 500 2000
            rm -f /etc/systemd/journald.conf.d/60-lc-chaos-nostore.conf
            systemctl restart systemd-journald.service || detail+=" (journald restart failed)"
            detail+=", $n runs of lc-chaos-nostore.service"
            wait_up ""
            ;;
        busy)
            # A busy PID 1: 200-400 transient units started at once while dbus-daemon is stopped (systemd-run talks
            # to PID 1 over its private socket), so that PID 1's signals queue up and are coalesced.
            stalled=$(systemctl show -p MainPID --value dbus.service)
            n=$((200 + RANDOM % 201)) busy=$((busy + 1))
            kill -STOP "$stalled"
            for ((i = 1; i <= n; i++)); do
                secs=$((RANDOM % 5)) code=$((RANDOM % 6 == 0 ? 2 : 0))
                systemd-run --no-block --quiet --unit="lc-chaos-b$busy-$i.service" /bin/sh -c \
                    "sleep 0.$secs; exit $code" >/dev/null 2>&1 &
                ((i % 40 == 0)) && wait
            done
            wait
            ms=$((1000 + RANDOM % 4001))
            sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
            detail+=", $n transient units started while dbus.service (PID $stalled) was stopped, for $ms ms more"
            kill -CONT "$stalled"
            wait_up ""
            ;;
        dbus)
            systemctl restart dbus.service || detail+=" (restart failed)"
            for ((i = 0; i < 300; i++)); do
                name_owned && break
                sleep 0.1
            done
            name_owned || detail+=" (lifecycled did not own its bus name again within 30 s)"
            wait_up ""
            ;;
    esac
    printf '%s %s %s %s -> PID %s\n' "$start" "$EPOCHREALTIME" "$kind" "$detail" "$(main_pid)" >>"$dir/disturbances.log"
    # Two starts in a row: give lifecycled's start limit room.
    [[ $detail == *"start-up"* ]] && sleep 3
done
touch "$dir/disturbances.log"
EOF
}

# The state files as they change (sampler.py): once a second, each unit's sequence and counters whenever they differ
# from the last sample of it, a JSON line in samples.jsonl, until /run/lc-chaos/stop-sample exists. The oracle checks
# that none ever goes back (also over a restart, a set-aside file, an archived record brought back).
write_sampler_script() {
    cat <<'EOF'
#!/usr/bin/python3
import json, os, time
units, out, stop = "/var/lib/lifecycled/units", "/run/lc-chaos/samples.jsonl", "/run/lc-chaos/stop-sample"
last = {}
with open(out, "a") as f:
    while not os.path.exists(stop):
        try:
            names = os.listdir(units)
        except OSError:
            names = []
        for name in names:
            if not name.endswith(".json"):
                continue
            try:
                with open(os.path.join(units, name)) as g:
                    data = json.load(g)
            except (OSError, ValueError):
                continue
            st = data.get("state") or {}
            row = [data.get("sequence")] + [st.get("count_total_" + k) for k in ("launch", "wake", "sleep", "crash")]
            unit = data.get("unit") or name[:-5]
            if last.get(unit) != row:
                last[unit] = row
                f.write(json.dumps({"t": time.time(), "unit": unit, "values": row}) + "\n")
        f.flush()
        time.sleep(1)
EOF
}

# --- one seed ------------------------------------------------------------------------------------------------------

lifecycled_active() { [[ $(unit_prop lifecycled.service ActiveState) == active ]]; }

# The most dispatches one state file keeps waiting for the journal (a file archived meanwhile is left out).
most_pending() {
    c_exec sh -c "cat $UNITS_DIR/*.json 2>/dev/null; true" | jq -s 'map(.pending_dispatches // [] | length) | max // 0'
}

# Waits (at most 30 s) until no state file keeps more than 16 dispatches waiting for the journal, the oracle's bound.
# A journald stalled for seconds just before the settle leaves each busy unit's dispatches of the stall waiting, and
# a state file holds what the first minute of a journal that shows nothing brought (docs/journal.md, "A journal that
# stores nothing"); once journald answers again they are confirmed within seconds. The bound is the settled state's.
wait_pending_within_bound() {
    local began=$SECONDS deadline=$((SECONDS + 30)) most first
    first=$(most_pending)
    most=$first
    while ((most > 16 && SECONDS < deadline)); do
        sleep 0.5
        most=$(most_pending)
    done
    ((first <= 16)) || printf '  a state file kept %s dispatches waiting for the journal; %s after %d s\n' \
        "$first" "$most" $((SECONDS - began))
}

# Copies the scripts and the seeded plans in; RANDOM is seeded by the caller.
prepare_inside() {
    local out=$1 i
    write_loop_script >"$out/loop"
    write_churn_script >"$out/churn.sh"
    write_disturb_script >"$out/disturb.sh"
    write_sampler_script >"$out/sampler.py"
    printf '#!/bin/sh\n# version 1\nexec sleep infinity\n' >"$out/app"
    # 200 runs of the crash loop: 0.2-1.9 s each, one in five a clean exit (then the next run is a wake).
    for ((i = 0; i < 200; i++)); do
        printf '%d.%d %d\n' $((RANDOM % 2)) $((2 + RANDOM % 8)) $((RANDOM % 5 == 0 ? 0 : 1))
    done >"$out/loop.plan"
    c_copy "$out/loop" $INSIDE/loop 0755
    c_copy "$out/churn.sh" $INSIDE/churn.sh 0755
    c_copy "$out/disturb.sh" $INSIDE/disturb.sh 0755
    c_copy "$out/sampler.py" $INSIDE/sampler.py 0755
    c_copy "$out/app" $INSIDE/app 0755
    c_copy "$out/loop.plan" $INSIDE/loop.plan
    c_exec mkdir -p $RUN_INSIDE
    c_exec sh -c "echo '0.1 0' >$RUN_INSIDE/oneshot.next; echo '0 0.1' >$RUN_INSIDE/cond.next
        echo 0.5 >$RUN_INSIDE/quiet.next; : >>$RUN_INSIDE/quiet.log; : >>$RUN_INSIDE/nostore.log
        : >>$RUN_INSIDE/manual.log"
    c_exec sh -c "echo $HISTORY_RUNS >$INSIDE/hist.runs"
}

# The journal as it is written, from before the history on: retention (the vacuum disturbance) removes entries the
# oracle needs. The vacuum disturbance's marks (lc-chaos-mark) say how far it got.
start_capture() {
    c_exec systemd-run --quiet --unit=chaos-capture.service sh -c \
        "exec journalctl --follow --no-tail --no-pager -o json _PID=1 + SYSLOG_IDENTIFIER=lifecycled + SYSLOG_IDENTIFIER=lc-chaos-mark >$RUN_INSIDE/captured.json"
}

history_done() {
    [[ $(c_exec cat $RUN_INSIDE/hist.n 2>/dev/null) == "$HISTORY_RUNS" &&
        $(unit_prop lc-chaos-hist.service ActiveState) == inactive ]]
}

captured() { c_exec grep -qF "$1" $RUN_INSIDE/captured.json; }

# Before lifecycled is installed: lc-chaos-hist.service runs HISTORY_RUNS times, for lifecycled's first start to
# rebuild from PID 1's journal. journald rotates its file every 4-11 s meanwhile, so that the history lies in several
# files and its slices cross from one to the next (docs/architecture.md, "PID 1's history, one file at a time").
# Returns once the capture holds all of it.
make_history() {
    local started=$SECONDS rotations=0
    c_exec systemctl start --no-block lc-chaos-hist.service
    while ! history_done && ((SECONDS - started < 300)); do
        sleep $((4 + RANDOM % 8))
        history_done || ! c_exec journalctl --rotate >/dev/null 2>&1 || rotations=$((rotations + 1))
    done
    wait_for 300 history_done || fail "lc-chaos-hist.service did not run $HISTORY_RUNS times within 300 s" \
        "(it ran $(c_exec cat $RUN_INSIDE/hist.n 2>/dev/null || echo 0) times)"
    c_exec systemd-run --quiet --wait --unit=chaos-history-done.service true >/dev/null
    c_exec journalctl --sync
    wait_for 60 captured chaos-history-done.service || fail "the capture did not reach the history's end in 60 s"
    printf '  history: %d runs of lc-chaos-hist.service in %d s, journal rotated %d times\n' "$HISTORY_RUNS" \
        $((SECONDS - started)) "$rotations"
}

main_pid_known() { [[ $(unit_prop lifecycled.service MainPID 2>/dev/null) =~ ^[1-9] ]]; }

# Prints a disturbance log's lines by kind, e.g. "sigkill 3, stop 2".
disturbance_counts() {
    awk '{ n[$3]++; all++ } END { printf "%d", all; for (k in n) printf "%s%s %d", (s++ ? ", " : ": "), k, n[k] }' "$1"
}

# chaos_run SEED: the chaos, the settle phase, the export and the oracle's verdict, for a booted container.
chaos_run() {
    local run_seed=$1 out=$work/seed-$1 churn_seed disturb_seed churn_pid disturb_pid install_pid sampler_pid started rc=0
    mkdir -p "$out/states" "$out/archive"
    RANDOM=$run_seed
    churn_seed=$RANDOM
    disturb_seed=$RANDOM
    prepare_inside "$out"
    start_capture
    ((HISTORY_RUNS == 0)) || make_history

    # lifecycled's first start: install.sh starts it and waits for READY; the chaos begins as soon as its process
    # exists, so the first disturbance may hit the start while it rebuilds the history. Its restart may then fail.
    install_inside >"$out/install.log" 2>&1 &
    install_pid=$!
    wait_for 120 main_pid_known || fail "lifecycled did not start within 120 s: $(cat "$out/install.log")"
    started=$SECONDS
    c_exec $INSIDE/sampler.py >"$out/sampler.out" 2>&1 &
    sampler_pid=$!
    c_exec $INSIDE/churn.sh "$churn_seed" "$disturbances" >"$out/churn.out" 2>&1 &
    churn_pid=$!
    c_exec $INSIDE/disturb.sh "$disturb_seed" "$disturbances" >"$out/disturb.out" 2>&1 &
    disturb_pid=$!
    # If this test stops early, both loops must stop too (the container is powered off after it anyway).
    trap 'c_exec touch '"$RUN_INSIDE/stop-disturb $RUN_INSIDE/stop-churn $RUN_INSIDE/stop-sample"' 2>/dev/null || true
        wait '"$churn_pid $disturb_pid $install_pid $sampler_pid"' 2>/dev/null || true' EXIT
    sleep "$CHAOS_SECONDS"

    # Settle: disturbances off first (the last one finishes, lifecycled is up again), then the churn.
    c_exec touch $RUN_INSIDE/stop-disturb
    wait "$disturb_pid" || fail "the disturbance loop failed: $(cat "$out/disturb.out")"
    if ! wait "$install_pid"; then
        printf '  install.sh failed (a disturbance during the first start?): %s\n' "$(tail -n 1 "$out/install.log")"
    fi
    if ! lifecycled_active; then
        echo "  lifecycled was not active after the disturbances: reset-failed and start"
        c_exec systemctl reset-failed lifecycled.service || true
        c_exec systemctl start lifecycled.service
    fi
    c_exec touch $RUN_INSIDE/stop-churn
    wait "$churn_pid" || fail "the churn failed: $(cat "$out/churn.out")"
    printf '  chaos: %d s; settling\n' $((SECONDS - started))
    # lifecycled handles what systemd tells it in order: once the marker's launch and sleep are out, it has caught up.
    run_marker "lc-chaos-marker-$run_seed.service"
    wait_pending_within_bound
    c_exec journalctl --sync

    sleep 1 # for the capture to take the last entries (and the sampler its last sample)
    c_exec touch $RUN_INSIDE/stop-sample
    wait "$sampler_pid" || fail "the sampler failed: $(cat "$out/sampler.out")"
    trap - EXIT
    c_exec systemctl stop chaos-capture.service
    # What was captured and what the journal holds now, each entry once, in the journal's order.
    { c_exec cat $RUN_INSIDE/captured.json; c_exec journalctl --no-pager -o json _PID=1 + SYSLOG_IDENTIFIER=lifecycled; } |
        jq -c -s 'unique_by(.__CURSOR) | sort_by(.__REALTIME_TIMESTAMP | tonumber) | .[]' >"$out/journal.json"
    c_exec tar -C $UNITS_DIR -cf - . | tar -C "$out/states" -xf -
    c_exec sh -c "if [ -d $ARCHIVE_DIR ]; then tar -C $ARCHIVE_DIR -cf - .; else tar -cf - -T /dev/null; fi" | tar -C "$out/archive" -xf -
    for log in nostore.log manual.log samples.jsonl; do
        c_exec cat $RUN_INSIDE/$log >"$out/$log"
    done
    c_exec cat $RUN_INSIDE/disturbances.log >"$out/disturbances.log"
    c_exec sh -c "cat $RUN_INSIDE/disturb-notes.log 2>/dev/null; true" >"$out/disturb-notes.log"
    c_exec cat $RUN_INSIDE/churn.log >"$out/churn.log"
    c_exec cat $RUN_INSIDE/quiet.log >"$out/quiet.log"
    printf '  disturbances: %s; the first: %s\n' "$(disturbance_counts "$out/disturbances.log")" \
        "$(head -n 1 "$out/disturbances.log" | cut -d' ' -f3-)"
    [[ ! -s $out/disturb-notes.log ]] || sed 's/^/  disturbance note: /' "$out/disturb-notes.log"
    printf '  churn: %s actions, %s failed commands; %s\n' "$(grep -c . "$out/churn.log" || true)" \
        "$(grep -c ' failed (exit' "$out/churn.log" || true)" "$(grep 'churn over' "$out/churn.log" | cut -d' ' -f2-)"

    [[ ! -s $out/manual.log ]] || printf '  manual events: %s\n' "$(awk '{ n[$5]++ } END { for (k in n) printf "%s %d ", k, n[k] }' "$out/manual.log")"
    "$PYTHON" "$here/lib/chaos_oracle.py" --journal "$out/journal.json" --states "$out/states" \
        --archive "$out/archive" --disturbances "$out/disturbances.log" --self-logged "$out/quiet.log" \
        --seen-live "$out/nostore.log" --manual "$out/manual.log" --samples "$out/samples.jsonl" \
        >"$out/oracle.txt" 2>&1 || rc=$?
    printf '  %s\n' "$(grep '^oracle: ' "$out/oracle.txt" || echo "the oracle printed no summary (exit $rc)")"
    if ((rc != 0)); then
        # Each violation with its evidence (PID 1's entries of the run, the dispatches, lifecycled's down times and
        # the disturbances around it), cut at 150 lines; the whole report stays in the work directory.
        grep -v '^oracle: ' "$out/oracle.txt" | head -n 150 | sed 's/^/  /' >&2
        (($(wc -l <"$out/oracle.txt") <= 151)) || printf '  ... the whole report: %s\n' "$out/oracle.txt" >&2
        fail "seed $run_seed: $(grep -c '^VIOLATION' "$out/oracle.txt" || true) violation(s); evidence in $out" \
            "(journal.json, states/, archive/, samples.jsonl, disturbances.log, churn.log, quiet.log, nostore.log," \
            "manual.log, oracle.txt); reproduce with CHAOS_SEED=$run_seed CHAOS_RUNS=1"
    fi
}

# --- run -----------------------------------------------------------------------------------------------------------

container_install_trap
suite_started=$SECONDS
seeds=()
for ((n = 0; n < RUNS; n++)); do
    seeds+=($((seed + n)))
done
echo "chaos: seed $seed, $RUNS run(s) (seeds ${seeds[*]}), $CHAOS_SECONDS s of chaos each," \
    "disturbances: ${disturbances:-none}; reproduce one with CHAOS_SEED=N CHAOS_RUNS=1"
results=()
# PID 1's journal is the oracle's truth: a queue deep enough that a 10 s journald stall of this churn drops none of
# PID 1's entries (lib/container.sh says why it must be the container's own).
export CONTAINER_UNIX_QLEN=8192
for run_seed in "${seeds[@]}"; do
    echo "chaos: seed $run_seed"
    run_started=$SECONDS
    if ! container_boot "lc-chaos-$$-$run_seed" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null; then
        run_test "seed $run_seed: the container boots" false
        results+=("$run_seed:no-boot")
        continue
    fi
    echo "container lc-chaos-$$-$run_seed booted in $CONTAINER_BOOT_SECONDS s"
    # journald's own rate limit off and room for the whole run in /run: PID 1's entries are the evidence.
    c_exec mkdir -p /etc/systemd/journald.conf.d
    printf '[Journal]\nRateLimitIntervalSec=0\nRuntimeMaxUse=512M\n' |
        c_exec_stdin install -m 0644 /dev/stdin /etc/systemd/journald.conf.d/50-chaos.conf
    c_exec systemctl restart systemd-journald.service
    copy_test_units
    write_config "$CHAOS_CONFIG"
    before=$_tests_failed
    run_test "seed $run_seed: a first start over $HISTORY_RUNS runs, then $CHAOS_SECONDS s of unit churn and disturbances (${disturbances:-none}): every run PID 1 logged has one begin and one matching end, numbered 1..N in run order, nothing invented, no dispatch for a skipped start; a unit PID 1 logs nothing of judged by its own record; what a journal storing nothing hid excused only in its window, a unit run there counted exactly; each accepted manual event numbered once and in order; counters, times and reconciled marks right and never going back" \
        chaos_run "$run_seed"
    container_poweroff
    if ((_tests_failed == before)); then
        results+=("$run_seed:pass")
        [[ -n ${CHAOS_KEEP:-} ]] || rm -rf "$work/seed-$run_seed"
    else
        results+=("$run_seed:FAIL")
    fi
    echo "chaos: seed $run_seed took $((SECONDS - run_started)) s"
done

echo "runtime: $((SECONDS - suite_started)) s"
echo "chaos: seeds ${results[*]}"
if ((_tests_failed == 0)) && [[ -z ${CHAOS_KEEP:-} ]]; then # _tests_failed: from lib/assert.sh
    rm -rf "$work"
else
    echo "console logs and evidence kept in $work"
fi
finish_tests # the last line: "N passed, N failed"
