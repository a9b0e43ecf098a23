#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# lifecycled across a reboot (docs/guarantees.md, "Reliability"): boots this machine's root as a throw-away container
# twice, with the same machine id and with the journal (/var/log/journal) and the state directory bound from one host
# directory, so the second boot sees the first one's journal and state files as after a real reboot. lifecycled is
# installed in each boot, and stopped before the first boot shuts down. Checks that the runs the shutdown ended, a run
# that began and ended in the next boot before lifecycled started, and one that began then and still runs are each
# recorded once, marked reconciled, at their real times; and that the first boot's runs are not recorded again.
# Needs root, systemd-container and jq. About 15 s.
# Usage: Tests/Integration/reboot.sh BUILD_DIR      (the release build: scripts/test passes it)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"
# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"
suite_preflight reboot.sh "$@"

readonly CONFIG=/etc/lifecycled/lifecycled.json
readonly UNITS_DIR=/var/lib/lifecycled/units
readonly WAIT=20
readonly PID1_SUCCESS=7ad2d189f7e94e70a38c781354912448
# The default session timeout (30 minutes): a start soon after a stop is a wake.
readonly CONFIG_JSON='{"watch": ["lc-*.service"]}'
# Runs in both boots; runs only in the first boot (both stopped by the shutdown); starts and stops in the second boot
# before lifecycled is back.
readonly ACROSS=lc-sleep@across.service FIRST_ONLY=lc-sleep@first-only.service SECOND_ONLY=lc-sleep@second-only.service

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-reboot.XXXXXX")
export CONTAINER_LOG_DIR=$work
mkdir -p "$work/journal" "$work/state"
machine_id=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')

# boot NAME: boots the container over the same journal, state directory and machine id, with the test units.
boot() {
    container_boot "$1" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" --uuid="$machine_id" \
        --bind="$work/journal:/var/log/journal" --bind="$work/state:/var/lib/lifecycled" >/dev/null
    echo "container $1 booted in $CONTAINER_BOOT_SECONDS s"
    copy_test_units
}

install_lifecycled() {
    write_config "$CONFIG_JSON"
    install_inside >/dev/null
    c_exec systemctl is-active --quiet lifecycled.service || fail "lifecycled is not running after install.sh"
}

# "SEQUENCE EVENT INVOCATION [reconciled]" per dispatch of UNIT, comma-separated.
dispatch_runs() {
    dispatches "$1" | jq -r '[.LIFECYCLE_SEQUENCE, .LIFECYCLE_EVENT, .LIFECYCLE_INVOCATION_ID]
        + (if .LIFECYCLE_RECONCILED == "true" then ["reconciled"] else [] end) | join(" ")' | paste -sd, -
}

test_first_boot() {
    install_lifecycled
    c_exec systemctl start "$ACROSS" "$FIRST_ONLY"
    wait_dispatches "$ACROSS" 1
    wait_dispatches "$FIRST_ONLY" 1
    # Tests run in subshells: the first boot's runs go to the second test through files.
    unit_prop "$ACROSS" InvocationID >"$work/first_run"
    unit_prop "$FIRST_ONLY" InvocationID >"$work/first_only_run"
    # lifecycled is not running when the shutdown stops the units: their ends are in this boot's journal only.
    c_exec systemctl stop lifecycled.service
}

test_second_boot() {
    local boots second_run second_only_run deactivated slept first_run first_only_run
    first_run=$(cat "$work/first_run")
    first_only_run=$(cat "$work/first_only_run")
    boots=$(c_exec journalctl --list-boots --no-pager | grep -c .)
    assert_ge 2 "$boots" "boots in the journal"
    # Before lifecycled is back: a whole run, and a run that goes on.
    c_exec systemctl start "$SECOND_ONLY"
    second_only_run=$(unit_prop "$SECOND_ONLY" InvocationID)
    c_exec systemctl stop "$SECOND_ONLY"
    c_exec systemctl start "$ACROSS"
    second_run=$(unit_prop "$ACROSS" InvocationID)
    install_lifecycled
    run_marker lc-marker-reboot.service

    # The first boot's runs ended at shutdown: read from the first boot's journal, at PID 1's time.
    assert_eq "1 launch $first_run,2 sleep $first_run reconciled" "$(dispatch_runs "$ACROSS" | cut -d, -f1-2)" \
        "$ACROSS's dispatches of the first boot"
    deactivated=$(c_exec journalctl --no-pager -o json _PID=1 "UNIT=$ACROSS" "INVOCATION_ID=$first_run" \
        MESSAGE_ID=$PID1_SUCCESS | jq -r '.__REALTIME_TIMESTAMP | tonumber / 1000 | floor' | head -n 1)
    [[ -n $deactivated ]] || fail "PID 1's journal of the first boot has no end of run $first_run"
    slept=$(date -d "$(json_field "$(nth_dispatch "$ACROSS" 2)" LIFECYCLE_TIME)" +%s%3N)
    (( ${slept:-0} - deactivated < 1000 && deactivated - ${slept:-0} < 1000 )) || fail "the sleep of run $first_run" \
        "is dated $slept, PID 1 logged its end at $deactivated (ms since the epoch)"
    # The second boot's run began while lifecycled was not running: a reconciled wake.
    assert_eq "3 wake $second_run reconciled" "$(dispatch_runs "$ACROSS" | cut -d, -f3)" "$ACROSS's dispatch in the second boot"
    assert_eq "1 launch $first_only_run,2 sleep $first_only_run reconciled" "$(dispatch_runs "$FIRST_ONLY")" \
        "$FIRST_ONLY's dispatches"
    assert_eq "1 launch $second_only_run reconciled,2 sleep $second_only_run reconciled" "$(dispatch_runs "$SECOND_ONLY")" \
        "$SECOND_ONLY's dispatches"

    c_exec systemctl stop "$ACROSS"
    wait_dispatches "$ACROSS" 4
    assert_eq "4 sleep $second_run" "$(dispatch_runs "$ACROSS" | cut -d, -f4)" "$ACROSS's stop in the second boot"
    assert_eq 4 "$(dispatch_count "$ACROSS")" "dispatches of $ACROSS in both boots"
    assert_eq 4 "$(state "$ACROSS" .sequence)" "sequence in the state file of $ACROSS"
}

# --- run -----------------------------------------------------------------------------------------------------------

# History from day one across a reboot: a machine whose units ran in an earlier boot, before lifecycled was ever
# installed, gets those runs on lifecycled's first start, read from the earlier boot's persistent journal.
readonly PAST=lc-sleep@past-boot.service PAST_FAILING=lc-exit3.service
day_one_id=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
mkdir -p "$work/day-one-journal"

boot_day_one() {
    container_boot "$1" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" --uuid="$day_one_id" \
        --bind="$work/day-one-journal:/var/log/journal" >/dev/null
    copy_test_units
}

test_boot_before_install() {
    c_exec systemctl start "$PAST"
    c_exec systemctl stop "$PAST"
    c_exec systemctl start "$PAST"  # still running at shutdown: its stop is this boot's last entry about it
    c_exec systemctl start "$PAST_FAILING" || true
    sleep 0.5
    c_exec journalctl --sync
}

test_day_one_after_reboot() {
    install_lifecycled
    run_marker lc-marker-day-one.service
    # Two runs of PAST in the earlier boot (the second stopped by the shutdown), one failed run of PAST_FAILING.
    assert_eq "launch sleep wake sleep" "$(dispatches "$PAST" | jq -r .LIFECYCLE_EVENT | paste -sd' ')" \
        "$PAST's runs of the earlier boot, rebuilt on day one"
    assert_eq "true true true true" "$(dispatches "$PAST" | jq -r .LIFECYCLE_RECONCILED | paste -sd' ')" \
        "$PAST's rebuilt dispatches are marked reconciled"
    assert_eq "launch crash" "$(dispatches "$PAST_FAILING" | jq -r .LIFECYCLE_EVENT | paste -sd' ')" \
        "$PAST_FAILING's failed run of the earlier boot"
    assert_eq "1 2 2" "$(state "$PAST" '"\(.state.count_total_launch) \(.state.count_total_wake) \(.state.count_total_sleep)"')" \
        "$PAST's counters: launches, wakes (launches included), sleeps"
}

container_install_trap
suite_started=$SECONDS
boot "lc-reboot1-$$"
run_test "first boot: lifecycled records two runs, then stops" test_first_boot
container_poweroff
boot "lc-reboot2-$$"
run_test "second boot: the shutdown's ends and the runs before lifecycled started are each recorded once" test_second_boot
container_poweroff
boot_day_one "lc-dayone1-$$"
run_test "day one, first boot: units run before lifecycled is installed" test_boot_before_install
container_poweroff
boot_day_one "lc-dayone2-$$"
run_test "day one after a reboot: the earlier boot's runs are in the counters on lifecycled's first start" \
    test_day_one_after_reboot
container_poweroff
echo "runtime: $((SECONDS - suite_started)) s"
if ((_tests_failed == 0)); then # from lib/assert.sh
    rm -rf "$work"
else
    echo "console log and evidence kept in $work"
fi
finish_tests # the last line: "N passed, N failed"
