#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Proves the real-systemd harness on this machine: boots a throw-away container, drives two transient units and
# checks what systemd itself reports about them, then powers the container off. Needs root, systemd-container, jq.
# Usage: Tests/Integration/smoke.sh
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"

if ((EUID != 0)); then
    echo "smoke.sh: must run as root (systemd-nspawn boots a container)" >&2
    exit 1
fi
for tool in systemd-nspawn nsenter jq; do
    command -v "$tool" >/dev/null || { echo "smoke.sh: $tool is missing (apt-get install systemd-container util-linux jq)" >&2; exit 1; }
done

# SD_MESSAGE_* ids that PID 1 logs (docs/systemd.md, "PID 1's journal entries about a run").
readonly UNIT_STARTED=39f53479d3a045ac8e11786248231fbf
readonly UNIT_PROCESS_EXIT=98e322203f7a4ed290d09fe03c09fe15
readonly UNIT_FAILURE_RESULT=d9b373ed55a64feb8242e02dbe79a49c

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-smoke.XXXXXX")
echo "marker-$$" >"$work/marker"
export CONTAINER_LOG_DIR=$work

# Entries PID 1 wrote about UNIT. UNIT= alone can be forged by any client; _PID=1 cannot. --sync makes journald
# store everything logged before this call, so no polling is needed.
pid1_entries() {
    c_exec journalctl --sync
    c_exec journalctl --no-pager -o json "UNIT=$1" _PID=1
}

unit_prop() { c_exec systemctl show -p "$2" --value "$1"; }

test_exec_passes_status_and_stdin() {
    assert_status 3 c_exec sh -c 'exit 3'
    c_copy "$work/marker" /etc/lifecycled-smoke/marker
    assert_eq "marker-$$" "$(c_exec cat /etc/lifecycled-smoke/marker)" "file copied in"
    assert_eq "from stdin" "$(echo "from stdin" | c_exec_stdin cat)" "c_exec_stdin"
}

test_build_dir_is_bound_read_only() {
    assert_eq "marker-$$" "$(c_exec cat /opt/lifecycled-build/marker)" "marker in /opt/lifecycled-build"
    assert_status 1 c_exec sh -c 'touch /opt/lifecycled-build/new-file 2>/dev/null'
}

test_oneshot_succeeds() {
    local unit=lc-smoke-oneshot.service
    # RemainAfterExit keeps the finished unit loaded, so its Result is its own, not an unloaded unit's default.
    c_exec systemd-run --quiet --unit="$unit" -p Type=oneshot -p RemainAfterExit=yes true
    assert_eq success "$(unit_prop "$unit" Result)" "Result of $unit"
    assert_eq active "$(unit_prop "$unit" ActiveState)" "ActiveState of $unit"
    assert_journal_has "$(pid1_entries "$unit")" MESSAGE_ID=$UNIT_STARTED "UNIT=$unit" JOB_TYPE=start JOB_RESULT=done
}

test_exit_3_fails() {
    local unit=lc-smoke-exit3.service
    c_exec systemd-run --quiet --unit="$unit" sh -c 'exit 3'
    wait_for 10 c_exec systemctl is-failed --quiet "$unit"
    assert_eq exit-code "$(unit_prop "$unit" Result)" "Result of $unit"
    assert_eq 3 "$(unit_prop "$unit" ExecMainStatus)" "ExecMainStatus of $unit"
    local entries
    entries=$(pid1_entries "$unit")
    assert_journal_has "$entries" MESSAGE_ID=$UNIT_STARTED "UNIT=$unit"
    assert_journal_has "$entries" MESSAGE_ID=$UNIT_PROCESS_EXIT "UNIT=$unit" EXIT_CODE=exited EXIT_STATUS=3
    assert_journal_has "$entries" MESSAGE_ID=$UNIT_FAILURE_RESULT "UNIT=$unit" UNIT_RESULT=exit-code
}

test_poweroff_stops_nspawn() {
    local nspawn=$1
    if kill -0 "$nspawn" 2>/dev/null; then
        fail "systemd-nspawn $nspawn is still running after container_poweroff"
    fi
}

container_install_trap
container_boot "lc-smoke-$$" "$work" >/dev/null
echo "container lc-smoke-$$ booted in $CONTAINER_BOOT_SECONDS s (PID 1 is $CONTAINER_PID on the host)"

run_test "c_exec passes exit status and stdin" test_exec_passes_status_and_stdin
run_test "build dir is bound read-only" test_build_dir_is_bound_read_only
run_test "oneshot transient unit succeeds" test_oneshot_succeeds
run_test "transient unit exiting 3 fails" test_exit_3_fails

nspawn=$CONTAINER_NSPAWN_PID
started=$EPOCHREALTIME
container_poweroff
echo "powered off in $(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
run_test "poweroff stops systemd-nspawn" test_poweroff_stops_nspawn "$nspawn"

if finish_tests; then
    rm -rf "$work"
else
    echo "console log and files kept in $work"
    exit 1
fi
