# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Boots this machine's own root as a throw-away systemd container (docs/testing.md, "Against a real systemd") and runs
# commands in it. Source it, then:
#
#   container_install_trap                 # a failing run still powers the container off
#   container_boot NAME BUILD_DIR [NSPAWN_ARGS...]
#   c_exec systemctl start foo.service     # runs inside; exit status passes through
#   container_poweroff
#
# Call container_boot directly, never as $(container_boot ...): it sets these globals in the calling shell, and the
# nspawn process must be a child of that shell so that container_poweroff can wait for it.
#   CONTAINER_NAME, CONTAINER_NSPAWN_PID (the systemd-nspawn we started), CONTAINER_PID (the container's systemd,
#   PID 1 inside), CONTAINER_LOG (console output), CONTAINER_BOOT_SECONDS.
# BUILD_DIR is bound read-only to /opt/lifecycled-build. Extra NSPAWN_ARGS (e.g. --bind-ro=SRC:DEST) are passed on.
# With --volatile=yes only the host's /usr is visible inside (read-only); /etc, /var and /opt are a fresh tmpfs.
#
# Tunables: CONTAINER_BOOT_TIMEOUT (s, default 60), CONTAINER_POWEROFF_TIMEOUT (s, default 30), CONTAINER_LOG_DIR,
# CONTAINER_UNIX_QLEN (see _container_netns_make).

CONTAINER_NAME=""
CONTAINER_NSPAWN_PID=""
CONTAINER_PID=""
CONTAINER_LOG=""
CONTAINER_BOOT_SECONDS=""
_container_pid_start=""   # start time of CONTAINER_PID, so that we never signal a recycled PID
_container_netns=""       # the network namespace we made for the container, if any

# Path and locale inside: nsenter would otherwise carry the caller's whole environment into the container.
_container_env=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    HOME=/root LANG=C.UTF-8 SYSTEMD_PAGER=cat SYSTEMD_COLORS=0)

_container_say() { printf 'container: %s\n' "$*" >&2; }

# Field 22 of /proc/PID/stat (start time in clock ticks). The command name (field 2) may contain spaces: cut after it.
_container_start_time() {
    local stat fields
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    read -r -a fields <<<"$stat"
    printf '%s\n' "${fields[19]}"
}

_container_alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null; }

# With CONTAINER_UNIX_QLEN=N, the container gets a network namespace of its own (named after it) whose
# net.unix.max_dgram_qlen is N. A datagram socket takes its queue length when it is created, and PID 1 creates
# journald's socket at boot, so the namespace must exist before the container does. Why it matters: while journald is
# stopped, entries wait in that queue; once it is full, PID 1 drops each entry after 10 ms, and a test that takes PID
# 1's journal for the truth loses its evidence (this host's queue is 10 entries deep).
_container_netns_make() {
    _container_netns=$CONTAINER_NAME
    ip netns add "$_container_netns" &&
        ip netns exec "$_container_netns" sysctl -q -w net.unix.max_dgram_qlen="$CONTAINER_UNIX_QLEN"
}

# The container's systemd is the child of our systemd-nspawn that is PID 1 in its own PID namespace (during set-up
# nspawn briefly has a second, intermediate child).
_container_find_init() {
    local child nspid
    for child in $(pgrep -P "$CONTAINER_NSPAWN_PID" 2>/dev/null); do
        nspid=$(awk '/^NSpid:/ { print $NF }' "/proc/$child/status" 2>/dev/null) || continue
        if [[ $nspid == 1 && $(cat "/proc/$child/comm" 2>/dev/null) == systemd ]]; then
            printf '%s\n' "$child"
            return 0
        fi
    done
    return 1
}

container_boot() {
    if (($# < 2)); then
        _container_say "usage: container_boot NAME BUILD_DIR [NSPAWN_ARGS...]"
        return 2
    fi
    local name=$1 build_dir=$2
    shift 2
    if _container_alive "$CONTAINER_NSPAWN_PID"; then
        _container_say "container $CONTAINER_NAME is already running (nspawn pid $CONTAINER_NSPAWN_PID)"
        return 1
    fi
    if [[ ! -d $build_dir ]]; then
        _container_say "build directory $build_dir does not exist"
        return 1
    fi
    build_dir=$(cd "$build_dir" && pwd)
    local log_dir=${CONTAINER_LOG_DIR:-${TMPDIR:-/tmp}}
    CONTAINER_NAME=$name
    CONTAINER_LOG=$log_dir/container-$name.log
    CONTAINER_PID=""
    local started=$EPOCHREALTIME netns_args=()
    if [[ -n ${CONTAINER_UNIX_QLEN:-} ]]; then
        if ! _container_netns_make; then
            _container_say "cannot make a network namespace with net.unix.max_dgram_qlen=$CONTAINER_UNIX_QLEN"
            _container_netns_delete
            return 1
        fi
        netns_args=(--network-namespace-path="/run/netns/$_container_netns")
    fi

    # stdin from /dev/null: nspawn then shows the console read-only instead of wanting a terminal.
    systemd-nspawn --register=no --keep-unit --directory=/ --volatile=yes --machine="$name" \
        --bind-ro="$build_dir:/opt/lifecycled-build" "${netns_args[@]}" "$@" -b systemd.firstboot=off \
        </dev/null >"$CONTAINER_LOG" 2>&1 &
    CONTAINER_NSPAWN_PID=$!

    local deadline=$((SECONDS + ${CONTAINER_BOOT_TIMEOUT:-60})) state=""
    while ((SECONDS < deadline)); do
        if ! _container_alive "$CONTAINER_NSPAWN_PID"; then
            _container_say "systemd-nspawn exited during boot; last lines of $CONTAINER_LOG:"
            tail -n 20 "$CONTAINER_LOG" >&2
            wait "$CONTAINER_NSPAWN_PID" 2>/dev/null || true
            CONTAINER_NSPAWN_PID=""
            _container_netns_delete
            return 1
        fi
        if [[ -z $CONTAINER_PID ]] && CONTAINER_PID=$(_container_find_init); then
            _container_pid_start=$(_container_start_time "$CONTAINER_PID")
        fi
        if [[ -n $CONTAINER_PID ]]; then
            # --wait blocks until start-up is over, but fails at once while PID 1 has no bus yet: hence the loop.
            state=$(timeout $((deadline - SECONDS + 1)) \
                nsenter -t "$CONTAINER_PID" -a "${_container_env[@]}" systemctl is-system-running --wait 2>/dev/null) || true
            case $state in
                running | degraded) break ;;
            esac
        fi
        sleep 0.1
    done
    case $state in
        running | degraded) ;;
        *)
            _container_say "container $name did not finish booting within ${CONTAINER_BOOT_TIMEOUT:-60} s" \
                "(is-system-running: ${state:-no answer}); log: $CONTAINER_LOG"
            container_poweroff
            return 1
            ;;
    esac
    CONTAINER_BOOT_SECONDS=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    export CONTAINER_NAME CONTAINER_NSPAWN_PID CONTAINER_PID CONTAINER_LOG CONTAINER_BOOT_SECONDS
    if [[ $state == degraded ]]; then
        _container_say "container $name is degraded; failed units:"
        c_exec systemctl --failed --no-legend >&2 || true
    fi
    printf '%s\n' "$CONTAINER_PID"
}

# Runs CMD inside the container with stdin from /dev/null, so that it cannot swallow the caller's input (loops).
c_exec() {
    c_exec_stdin "$@" </dev/null
}

# Runs CMD inside the container, passing the caller's stdin: c_exec_stdin sh -c 'cat >/etc/x' <file
c_exec_stdin() {
    if [[ -z $CONTAINER_PID ]]; then
        _container_say "no container is running"
        return 125
    fi
    nsenter -t "$CONTAINER_PID" -a "${_container_env[@]}" "$@"
}

# Copies a host file into the container: c_copy SRC DEST [MODE]. Parent directories are created.
c_copy() {
    local src=$1 dest=$2 mode=${3:-0644}
    c_exec_stdin install -D -m "$mode" /dev/stdin "$dest" <"$src"
}

# Powers the container off and waits for our systemd-nspawn to exit. Safe to call any number of times.
container_poweroff() {
    local pid=$CONTAINER_NSPAWN_PID
    if [[ -z $pid ]]; then
        return 0
    fi
    if _container_alive "$pid" && [[ -n $CONTAINER_PID ]]; then
        timeout 10 nsenter -t "$CONTAINER_PID" -a "${_container_env[@]}" systemctl poweroff >/dev/null 2>&1 || true
    fi
    local deadline=$((SECONDS + ${CONTAINER_POWEROFF_TIMEOUT:-30}))
    while _container_alive "$pid" && ((SECONDS < deadline)); do
        sleep 0.1
    done
    if _container_alive "$pid"; then
        # Stuck: SIGTERM makes nspawn ask the container to shut down; SIGKILL if even that hangs.
        _container_say "container $CONTAINER_NAME did not power off; sending SIGTERM to systemd-nspawn $pid"
        kill -TERM "$pid" 2>/dev/null || true
        deadline=$((SECONDS + 10))
        while _container_alive "$pid" && ((SECONDS < deadline)); do
            sleep 0.1
        done
        if _container_alive "$pid"; then
            _container_say "sending SIGKILL to systemd-nspawn $pid"
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    wait "$pid" 2>/dev/null || true
    # A killed nspawn can leave its container's PID 1 behind; it is ours only if its start time still matches.
    if [[ -n $CONTAINER_PID && -n $_container_pid_start ]] && _container_alive "$CONTAINER_PID" &&
        [[ $(_container_start_time "$CONTAINER_PID") == "$_container_pid_start" ]]; then
        _container_say "sending SIGKILL to the container's PID 1 ($CONTAINER_PID)"
        kill -KILL "$CONTAINER_PID" 2>/dev/null || true
    fi
    CONTAINER_NSPAWN_PID=""
    CONTAINER_PID=""
    _container_pid_start=""
    _container_netns_delete
}

_container_netns_delete() {
    [[ -n $_container_netns ]] || return 0
    ip netns delete "$_container_netns" 2>/dev/null || true
    _container_netns=""
}

# Powers the container off on any exit, keeping the script's exit status; INT and TERM exit 130 and 143.
container_install_trap() {
    trap '_container_on_exit' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

_container_on_exit() {
    local rc=$?
    container_poweroff
    exit "$rc"
}
