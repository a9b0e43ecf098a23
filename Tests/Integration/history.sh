#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# History from day one, against a real systemd: watched units run many times (clean stops, failures, a oneshot,
# one still running) before lifecycled is installed; its first start rebuilds their runs from PID 1's journal, so
# that each unit's counters, numbering and crashes equal what PID 1's journal shows, every rebuilt dispatch marked
# reconciled; a restart of lifecycled writes none of them again. One container, about 30 s.
# Usage: Tests/Integration/history.sh BUILD_DIR      (the release build: scripts/test passes it)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"
# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"
suite_preflight history.sh "$@"
readonly CONFIG=/etc/lifecycled/lifecycled.json UNITS_DIR=/var/lib/lifecycled/units
readonly WAIT=20
readonly UP=lc-sleep@past.service FAILING=lc-exit3.service ONESHOT=lc-oneshot.service

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-history.XXXXXX")
export CONTAINER_LOG_DIR=$work

# PID 1's runs of UNIT (one InvocationID each, from its "Started"/"Starting" entries), in order.
pid1_runs() {
    c_exec journalctl --no-pager -o json _PID=1 "UNIT=$1" | jq -r 'select(.INVOCATION_ID) | .INVOCATION_ID' | uniq |
        awk '!seen[$0]++'
}

# "EVENT INVOCATION_ID RECONCILED" of each dispatch of UNIT, in order.
dispatch_lines() { dispatches "$1" | jq -r '"\(.LIFECYCLE_EVENT) \(.LIFECYCLE_INVOCATION_ID) \(.LIFECYCLE_RECONCILED // "-")"'; }

# Before lifecycled exists: runs PID 1 logs in its journal, in four files (journald rotated between them: the history
# is read one file after the other, docs/architecture.md, "PID 1's history, one file at a time").
run_the_past() {
    local i
    for i in 1 2 3; do
        c_exec systemctl start "$UP"
        sleep 0.3
        c_exec systemctl stop "$UP"
        if [[ $i == 2 ]]; then c_exec journalctl --rotate; fi
    done
    c_exec systemctl start "$UP" # still running when lifecycled starts
    c_exec journalctl --rotate
    for i in 1 2; do
        c_exec systemctl start "$FAILING" || true
        sleep 0.5
    done
    c_exec journalctl --rotate
    for i in 1 2; do c_exec systemctl start "$ONESHOT"; done
}

test_rebuilt_on_day_one() {
    local unit expected runs got
    run_the_past
    # The first start: no earlier lifecycled left its tracking entry.
    printf '%s\n' '{"watch": ["lc-*.service"]}' | c_exec_stdin install -D -m 0644 /dev/stdin "$CONFIG"
    install_or_exit
    run_marker lc-marker-history.service

    # lc-sleep@past: three clean runs and one still going; lc-exit3: two failures; lc-oneshot: two clean runs.
    declare -A ends=([$UP]=sleep [$FAILING]=crash [$ONESHOT]=sleep)
    for unit in "$UP" "$FAILING" "$ONESHOT"; do
        mapfile -t runs < <(pid1_runs "$unit")
        expected=""
        local run n=0
        for run in "${runs[@]}"; do
            n=$((n + 1))
            [[ $n == 1 ]] && expected+="launch $run true"$'\n' || expected+="BEGIN $run true"$'\n'
            [[ $unit == "$UP" && $n == "${#runs[@]}" ]] && continue # still running
            expected+="${ends[$unit]} $run true"$'\n'
        done
        got=$(dispatch_lines "$unit" | sed -E '2,$ s/^(launch|wake) /BEGIN /')
        assert_eq "${expected%$'\n'}" "$got" "$unit: one begin and one end per run PID 1 logged, all reconciled"
        assert_eq "$(dispatches "$unit" | jq -r .LIFECYCLE_SEQUENCE | paste -sd' ')" \
            "$(seq 1 "$(dispatch_count "$unit")" | paste -sd' ')" "$unit: sequence numbers"
        assert_eq "$(dispatch_count "$unit")" "$(state "$unit" .sequence)" "$unit: state file sequence"
    done
    # Wakes count launches too (the reference's semantics): one launch, then wakes within the session.
    assert_eq "1 4 3" "$(state "$UP" '"\(.state.count_total_launch) \(.state.count_total_wake) \(.state.count_total_sleep)"')" \
        "$UP: launches, wakes, sleeps"
    assert_eq "2 1" "$(state "$FAILING" '"\(.state.count_total_launch) \(.state.count_total_crash)"')" \
        "$FAILING: launches (the second after a crash) and the crash the second launch counted"
}

test_nothing_again_after_restart() {
    local before after
    before=$(all_dispatch_count)
    c_exec systemctl restart lifecycled.service
    run_marker lc-marker-history-2.service
    after=$(all_dispatch_count)
    assert_eq $((before + 2)) "$after" "dispatches after a restart of lifecycled (only the marker's launch and sleep)"
}

container_install_trap
container_boot "lc-history-$$" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
copy_test_units
run_test "units run before lifecycled is installed: their past is rebuilt from PID 1's journal on day one" \
    test_rebuilt_on_day_one
run_test "a restart of lifecycled writes none of the rebuilt dispatches again" test_nothing_again_after_restart
container_poweroff
if ((_tests_failed == 0)); then rm -rf "$work"; else echo "console log kept in $work"; fi
finish_tests
