#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# What lifecycled costs PID 1, in a throw-away container (Tests/Integration/lib/container.sh) with UNITS (1000) loaded,
# watched lc-mem@N.service instances: PID 1's CPU at lifecycled's start after a daemon-reload while it was stopped
# (every UnitFileState to compute again), and in the 5 s after a daemon-reload with lifecycled running and stopped;
# then, apart (tracing slows PID 1), the calls lifecycled makes (busctl monitor) and PID 1's syscalls (strace -c).
# TYPE_PROBE=1 adds PID 1's CPU for GetAll of .Service against single Gets, one busctl each.
# Needs root, systemd-container, strace. Prints figures; asserts nothing. Results: docs/PERFORMANCE.md.
#
# Usage: Benchmarks/container/pid1-cpu.sh BUILD_DIR [LABEL]      (REPS: 3 runs of each)
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$repo/Benchmarks/container/lib.sh"
build_dir=$1 label=${2:-lifecycled} units=${UNITS:-1000} reps=${REPS:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-pid1.XXXXXX")
export CONTAINER_LOG_DIR=$work
mkdir "$work/bin"; cp "$build_dir/lifecycled" "$build_dir/lifecyclectl" "$work/bin/"
container_install_trap
trap 'echo "pid1-cpu.sh: line $LINENO: $BASH_COMMAND failed" >&2; c_exec journalctl -u lifecycled -n 20 --no-pager >&2 || true' ERR
lc_pid() { unit_host_pid lifecycled.service; }
quiet() { local pid=$1 last now still=0 end=$((SECONDS + 120)); last=$(cpu_ticks "$pid")
  while ((SECONDS < end)); do sleep 0.5; now=$(cpu_ticks "$pid"); if [[ $now == "$last" ]]; then ((++still >= 4)) && return 0; else still=0; last=$now; fi; done; }
container_boot "lc-pid1-$$" "$work/bin" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
echo "$label: machine $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), lifecycled $(sha256sum "$work/bin/lifecycled" | cut -c1-12)"
echo '{"watch": ["lc-mem@*.service"]}' | c_exec_stdin install -D -m 0644 /dev/stdin /etc/lifecycled/lifecycled.json
printf '[Service]\nType=simple\nExecStart=/bin/sleep infinity\n' | c_exec_stdin install -D -m 0644 /dev/stdin /etc/systemd/system/lc-mem@.service
c_exec systemctl daemon-reload
c_exec /opt/lifecycled-src/Benchmarks/container/inside/units.sh start lc-mem@ "$units" 100 >/dev/null
c_exec env PREFIX=/opt/lifecycled /opt/lifecycled-src/scripts/install.sh /opt/lifecycled-build >/dev/null
quiet "$(lc_pid)"
for ((r = 1; r <= ${START_REPS:-$reps}; r++)); do
  c_exec systemctl stop lifecycled.service; c_exec systemctl daemon-reload; sleep 5
  p0=$(cpu_ticks "$CONTAINER_PID"); c_exec systemctl start lifecycled.service; pid=$(lc_pid); quiet "$pid"
  p1=$(cpu_ticks "$CONTAINER_PID")
  ready=$(( ($(c_exec systemctl show -p ActiveEnterTimestampMonotonic --value lifecycled.service) - $(c_exec systemctl show -p InactiveExitTimestampMonotonic --value lifecycled.service)) / 1000 ))
  echo "start (cold) $r: PID 1 $(((p1 - p0) * TICK_MS)) ms, lifecycled $(($(cpu_ticks "$pid") * TICK_MS)) ms, READY after $ready ms"
done
for ((r = 1; r <= reps; r++)); do
  for state in running stopped; do
    if [[ $state == stopped ]]; then c_exec systemctl stop lifecycled.service; fi
    sleep 2; p0=$(cpu_ticks "$CONTAINER_PID"); l0=0; pid=""
    if [[ $state == running ]]; then pid=$(lc_pid); l0=$(cpu_ticks "$pid"); fi
    c_exec systemctl daemon-reload; sleep 5; p1=$(cpu_ticks "$CONTAINER_PID")
    extra=""; if [[ -n $pid ]]; then extra=", lifecycled $((($(cpu_ticks "$pid") - l0) * TICK_MS)) ms"; fi
    echo "reload $r, lifecycled $state: PID 1 $(((p1 - p0) * TICK_MS)) ms in 5 s$extra"
    if [[ $state == stopped ]]; then c_exec systemctl start lifecycled.service; quiet "$(lc_pid)"; fi
  done
done
# Calls and syscalls, apart from the CPU figures (tracing slows PID 1 down).
count() { grep -o '"member":"[A-Za-z]*"' "$1" | sort | uniq -c | tr -s ' ' | tr '\n' ';'; echo; }
c_exec systemctl stop lifecycled.service; c_exec systemctl daemon-reload; sleep 3
c_exec_stdin sh -c 'timeout -s INT 30 busctl monitor --system --json=short --match "type=method_call,destination=org.freedesktop.systemd1" > /tmp/mon.json 2>/dev/null' </dev/null &
mon=$!; sleep 1
timeout -s INT 28 strace -c -p "$CONTAINER_PID" -o "$work/strace-start.txt" & st=$!; sleep 0.5
c_exec systemctl start lifecycled.service; wait "$st" || true; wait "$mon" || true
c_exec cat /tmp/mon.json >"$work/mon-start.json"
echo "calls at start: $(count "$work/mon-start.json")"
echo "PID 1 syscalls at start: $(awk '$NF ~ /^(openat|getdents64|total)$/ { printf "%s %s; ", $NF, $4 }' "$work/strace-start.txt")"
sleep 2
c_exec_stdin sh -c 'timeout -s INT 15 busctl monitor --system --json=short --match "type=method_call,destination=org.freedesktop.systemd1" > /tmp/mon2.json 2>/dev/null' </dev/null &
mon=$!; sleep 1
timeout -s INT 13 strace -c -p "$CONTAINER_PID" -o "$work/strace-reload.txt" & st=$!; sleep 0.5
c_exec systemctl daemon-reload; wait "$st" || true; wait "$mon" || true
c_exec cat /tmp/mon2.json >"$work/mon-reload.json"
echo "calls after reload: $(count "$work/mon-reload.json")"
echo "PID 1 syscalls after reload: $(awk '$NF ~ /^(openat|getdents64|total)$/ { printf "%s %s; ", $NF, $4 }' "$work/strace-reload.txt")"
if [[ -n ${TYPE_PROBE:-} ]]; then
  # PID 1's CPU for N × GetAll(.Service) vs N × Get of the five properties vs N × a cheap call (busctl per call).
  probe() { local p0 p1; p0=$(cpu_ticks "$CONTAINER_PID"); c_exec_stdin bash -c "$1" </dev/null; p1=$(cpu_ticks "$CONTAINER_PID"); echo "$(((p1 - p0) * TICK_MS))"; }
  c_exec systemctl stop lifecycled.service; c_exec systemctl daemon-reload; sleep 3
  loop='for i in $(seq 1 300); do p=/org/freedesktop/systemd1/unit/lc_2dmem_40${i}_2eservice; '
  echo "PID 1 for 300 busctl calls: GetUnit $(probe "$loop"'busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1 org.freedesktop.systemd1.Manager GetUnit s lc-mem@$i.service >/dev/null; done') ms," \
    "GetAll .Service $(probe "$loop"'busctl call org.freedesktop.systemd1 $p org.freedesktop.DBus.Properties GetAll s org.freedesktop.systemd1.Service >/dev/null; done') ms," \
    "5 Gets .Service $(probe "$loop"'for n in Result NRestarts ExecMainCode ExecMainStatus MainPID; do busctl call org.freedesktop.systemd1 $p org.freedesktop.DBus.Properties Get ss org.freedesktop.systemd1.Service $n >/dev/null; done; done') ms (/5 for per-call)"
  timeout -s INT 8 strace -c -p "$CONTAINER_PID" -o "$work/strace-svc.txt" & st=$!; sleep 0.3
  c_exec_stdin bash -c 'for i in $(seq 301 400); do busctl call org.freedesktop.systemd1 /org/freedesktop/systemd1/unit/lc_2dmem_40${i}_2eservice org.freedesktop.DBus.Properties GetAll s org.freedesktop.systemd1.Service >/dev/null; done' </dev/null
  wait "$st" || true
  echo "PID 1 syscalls for 100 GetAll .Service: $(awk 'NR > 2 && $NF != "total" && $4 ~ /^[0-9]+$/ && $4 > 50 { printf "%s %s; ", $NF, $4 }' "$work/strace-svc.txt")"
fi
container_poweroff
