#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# A fleet through the journal's own transport (docs/fleet.md): two senders, each a throw-away container of this
# machine's root with lifecycled installed, upload their journals with systemd-journal-upload over plain HTTP to a
# systemd-journal-remote in another network namespace, joined to theirs by a veth pair. Sender A uploads its whole
# journal, as the packaged service does; sender B only lifecycled's dispatches, as an export file filtered by
# MESSAGE_ID. Then every field of every dispatch must have arrived unchanged, and `lifecyclectl status --directory`
# and `runs --directory` must show both machines. Takes about a minute.
# Needs root, systemd-container, jq, iproute2 and systemd-journal-remote (receiver and uploader).
# Usage: Tests/Integration/fleet.sh BUILD_DIR      (the release build: scripts/test passes it)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"
# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"
suite_preflight fleet.sh "$@"
readonly CTL=$PREFIX_INSIDE/bin/lifecyclectl
readonly HOST_CTL=$build_dir/lifecyclectl
readonly CONFIG='{"watch": ["lc-*.service"]}'
readonly UNITS_DIR=/var/lib/lifecycled/units
readonly WAIT=20
readonly REMOTE=/lib/systemd/systemd-journal-remote UPLOAD=/lib/systemd/systemd-journal-upload
for tool in "$REMOTE" "$UPLOAD"; do
    [[ -x $tool ]] || {
        echo "fleet.sh: $tool is missing (apt-get install --no-install-recommends systemd-journal-remote)" >&2
        exit 1
    }
done
command -v ip >/dev/null || {
    echo "fleet.sh: ip is missing (apt-get install iproute2)" >&2
    exit 1
}

# Two network namespaces and the addresses on their veth pair: the only addresses the test sends to.
readonly COLLECTOR_NS=lc-fleet-col-$$ SENDER_NS=lc-fleet-snd-$$
readonly COLLECTOR_IP=10.77.91.1 SENDER_IP=10.77.91.2 PORT=19532
readonly URL=http://$COLLECTOR_IP:$PORT
readonly SENDERS=("lc-fleet-a-$$" "lc-fleet-b-$$")
# lifecycled's MESSAGE_IDs: the filtered upload sends these and nothing else.
readonly DISPATCH_IDS=("$ID_LAUNCH" "$ID_WAKE" "$ID_SLEEP" "$ID_CUSTOM" "$ID_CRASH")

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-fleet.XXXXXX")
export CONTAINER_LOG_DIR=$work
remote_dir=$work/remote
mkdir "$remote_dir"
receiver_pid=""

cleanup() {
    local rc=$?
    container_poweroff
    stop_receiver
    ip netns del "$COLLECTOR_NS" 2>/dev/null || true # takes the veth pair with it
    ip netns del "$SENDER_NS" 2>/dev/null || true
    exit "$rc"
}

stop_receiver() {
    if [[ -n $receiver_pid ]]; then
        kill -TERM "$receiver_pid" 2>/dev/null || true
        wait "$receiver_pid" 2>/dev/null || true
        receiver_pid=""
    fi
}

# --- set-up: the network, the receiver, two senders -----------------------------------------------------------------

make_network() {
    ip netns add "$COLLECTOR_NS"
    ip netns add "$SENDER_NS"
    ip -n "$COLLECTOR_NS" link add lcf0 type veth peer name lcf1 netns "$SENDER_NS"
    ip -n "$COLLECTOR_NS" addr add "$COLLECTOR_IP/24" dev lcf0
    ip -n "$SENDER_NS" addr add "$SENDER_IP/24" dev lcf1
    ip -n "$COLLECTOR_NS" link set lcf0 up
    ip -n "$SENDER_NS" link set lcf1 up
}

receiver_listens() { [[ -n $(ip netns exec "$COLLECTOR_NS" ss -ltnH "sport = :$PORT") ]]; }

start_receiver() {
    # Plain HTTP, only for the test (docs/fleet.md has HTTPS); split by sender address: remote-10.77.91.2.journal.
    ip netns exec "$COLLECTOR_NS" "$REMOTE" --listen-http="$COLLECTOR_IP:$PORT" --output="$remote_dir/" \
        >"$work/receiver.log" 2>&1 &
    receiver_pid=$!
    wait_for 10 receiver_listens
}

# The dispatches of this sender, one `journalctl -o json` object per line.
sender_dispatches() {
    c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled _UID=0 | jq -c 'select(.LIFECYCLE_EVENT)'
}

# run_sender NAME HOW: boots NAME in the sender namespace, makes it dispatch a launch, a sleep, a crash and a custom
# event, keeps its dispatches in $work/NAME.sent, and uploads: HOW is "all" (the whole journal) or "dispatches".
run_sender() {
    local name=$1 how=$2
    # Debian's preset disables journal-remote and journal-upload; masking them as well keeps them from starting
    # by themselves on any host, so that only the uploads below send anything.
    container_boot "$name" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" \
        --network-namespace-path="/run/netns/$SENDER_NS" \
        --bind-ro=/dev/null:/etc/systemd/system/systemd-journal-upload.service \
        --bind-ro=/dev/null:/etc/systemd/system/systemd-journal-remote.socket \
        --bind-ro=/dev/null:/etc/systemd/system/systemd-journal-remote.service >/dev/null
    echo "sender $name booted in $CONTAINER_BOOT_SECONDS s"
    write_config "$CONFIG"
    install_or_exit
    copy_test_units
    c_exec systemctl start lc-oneshot.service
    wait_dispatches lc-oneshot.service 2
    c_exec systemctl start lc-exit3.service || true
    wait_for "$WAIT" has_crash_notice lc-exit3.service
    # A payload with quotes, a backslash and a newline must arrive byte for byte.
    c_exec "$CTL" track lc-oneshot deployed "note=say \"hi\" \\ to
$name" >/dev/null
    wait_dispatches lc-oneshot.service 3
    c_exec journalctl --sync
    c_exec cat /etc/machine-id >"$work/$name.machine-id"
    sender_dispatches >"$work/$name.sent"
    c_exec "$CTL" status --json >"$work/$name.status"
    if [[ $how == all ]]; then
        c_exec "$UPLOAD" --url="$URL" --follow=no
    else
        local -a matches=()
        local id
        for id in "${DISPATCH_IDS[@]}"; do matches+=("MESSAGE_ID=$id"); done
        c_exec sh -c 'journalctl -o export "$@" >/run/lifecycled.export' sh "${matches[@]}"
        c_exec "$UPLOAD" --url="$URL" /run/lifecycled.export
    fi
    container_poweroff
}

write_config() { printf '%s\n' "$1" | c_exec_stdin install -D -m 0644 /dev/stdin /etc/lifecycled/lifecycled.json; }

# --- tests -----------------------------------------------------------------------------------------------------------

# The receiver's copy of one sender's dispatches, read from its files as lifecyclectl reads them.
received_dispatches() {
    journalctl --no-pager -o json --directory="$remote_dir" SYSLOG_IDENTIFIER=lifecycled _UID=0 \
        "_MACHINE_ID=$(<"$work/$1.machine-id")" | jq -c 'select(.LIFECYCLE_EVENT)'
}

# Every field, sorted by name; the cursor names a place in one journal file, so it cannot be the same.
normalized() { jq -S -c 'del(.__CURSOR)'; }

test_every_field_arrives() {
    local name sent got
    for name in "${SENDERS[@]}"; do
        sent=$(normalized <"$work/$name.sent")
        got=$(received_dispatches "$name" | normalized)
        assert_ge 4 "$(grep -c . <<<"$sent")" "dispatches of $name"
        if [[ $sent != "$got" ]]; then
            diff <(printf '%s\n' "$sent") <(printf '%s\n' "$got") | head -n 20 >&2 || true
            fail "the dispatches of $name did not arrive unchanged"
        fi
        assert_eq "$name" "$(jq -r '._HOSTNAME' <<<"$got" | sort -u)" "_HOSTNAME of $name's dispatches"
        assert_eq "$(<"$work/$name.machine-id")" "$(jq -r '._MACHINE_ID' <<<"$got" | sort -u)" "_MACHINE_ID of $name"
        assert_eq "say \"hi\" \\ to
$name" "$(jq -r 'select(.LIFECYCLE_EVENT == "deployed") | .LIFECYCLE_PAYLOAD | fromjson | .note' <<<"$got")" \
            "the custom event's payload from $name"
    done
}

test_filtered_upload_sends_dispatches_only() {
    local mid others
    mid=$(<"$work/${SENDERS[1]}.machine-id")
    others=$(journalctl --no-pager -o json --directory="$remote_dir" "_MACHINE_ID=$mid" |
        jq -r 'select(.LIFECYCLE_EVENT | not) | .MESSAGE' | head -n 3)
    assert_eq "" "$others" "entries of ${SENDERS[1]} that are not dispatches"
    # The whole-journal upload brought the rest too, PID 1's entries among them.
    mid=$(<"$work/${SENDERS[0]}.machine-id")
    assert_ge 1 "$(journalctl --no-pager --directory="$remote_dir" "_MACHINE_ID=$mid" _PID=1 -o cat | grep -c . || true)" \
        "PID 1's entries of ${SENDERS[0]}"
}

test_status_shows_both_machines() {
    local json table name
    json=$("$HOST_CTL" status --directory "$remote_dir" --json)
    for name in "${SENDERS[@]}"; do
        assert_eq "failed" "$(jq -r --arg m "$name" \
            '.units[] | select(.machine == $m and .unit == "lc-exit3.service") | .state' <<<"$json")" \
            "state of lc-exit3.service on $name"
        # Every unit's object is the one the sender's own status --json gave (its state files), plus the machine.
        local unit fleet_unit local_unit
        for unit in lc-oneshot.service lc-exit3.service; do
            fleet_unit=$(jq -cS --arg m "$name" --arg u "$unit" \
                '.units[] | select(.machine == $m and .unit == $u) | del(.machine, .machine_id)' <<<"$json")
            local_unit=$(jq -cS --arg u "$unit" '.units[] | select(.unit == $u)' <"$work/$name.status")
            assert_eq "$local_unit" "$fleet_unit" "$unit on $name: from the collector and from its state file"
        done
        assert_eq "$(<"$work/$name.machine-id")" "$(jq -r --arg m "$name" \
            '[.units[] | select(.machine == $m) | .machine_id] | unique | .[]' <<<"$json")" "machine_id of $name"
    done
    table=$("$HOST_CTL" status --directory "$remote_dir" --no-pager)
    assert_contains "$table" "MACHINE" "status --directory header"
    assert_contains "$table" "${SENDERS[0]} lc-exit3.service" "status --directory, first machine"
    assert_contains "$table" "${SENDERS[1]} lc-exit3.service" "status --directory, second machine"
    # --file takes the files themselves, as journalctl does.
    local -a files=("$remote_dir"/*.journal)
    local from_files
    from_files=$("$HOST_CTL" status "${files[@]/#/--file=}" --json)
    assert_eq "$json" "$from_files" "status --file of every received file"
}

test_runs_of_one_machine() {
    assert_status 1 "$HOST_CTL" runs lc-oneshot --directory "$remote_dir"
    local err
    err=$("$HOST_CTL" runs lc-oneshot --directory "$remote_dir" 2>&1 >/dev/null || true)
    assert_contains "$err" "choose one with --machine" "runs of a unit that several machines hold"
    local json
    json=$("$HOST_CTL" runs lc-oneshot --directory "$remote_dir" --machine "${SENDERS[1]}" --json)
    assert_eq "launch sleep success" "$(jq -r '.runs[0] | "\(.begin) \(.end) \(.result)"' <<<"$json")" \
        "the run of lc-oneshot.service on ${SENDERS[1]}"
    json=$("$HOST_CTL" runs lc-exit3 --directory "$remote_dir" --machine "$(<"$work/${SENDERS[0]}.machine-id")" --json)
    assert_eq "crash exit-code 3" "$(jq -r '.runs[0] | "\(.end) \(.result) \(.exit_status)"' <<<"$json")" \
        "the run of lc-exit3.service on ${SENDERS[0]}, chosen by machine id"
}

test_bad_sources_are_errors() {
    mkdir "$work/empty"
    local err
    err=$("$HOST_CTL" status --directory "$work/empty" 2>&1 >/dev/null || true)
    assert_eq "lifecyclectl: Failed to open the journal $work/empty: no readable journal file." "$err" \
        "status --directory of an empty directory"
    err=$("$HOST_CTL" runs lc-oneshot --file "$work/receiver.log" 2>&1 >/dev/null || true)
    assert_eq "lifecyclectl: Failed to open the journal $work/receiver.log: not a journal file." "$err" \
        "runs --file of a file that is not a journal file"
    # Files the reader may not read: journal-remote writes them 0640 root in a directory of root's.
    local -a files=("$remote_dir"/*.journal)
    err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$HOST_CTL" status --file "${files[0]}" 2>&1 >/dev/null || true)
    assert_contains "$err" "lifecyclectl: Failed to open the journal ${files[0]}: " "status --file, unreadable"
    err=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$HOST_CTL" status --directory "$remote_dir" 2>&1 >/dev/null || true)
    assert_contains "$err" "lifecyclectl: Failed to open the journal $remote_dir: " "status --directory, unreadable"
    assert_status 64 "$HOST_CTL" status --directory "$remote_dir" --file "$work/receiver.log"
}

# --- run -------------------------------------------------------------------------------------------------------------

trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
make_network
start_receiver
run_sender "${SENDERS[0]}" all
run_sender "${SENDERS[1]}" dispatches
# journal-remote writes as entries arrive; stopping it closes the files cleanly before they are compared.
stop_receiver

run_test "every field of every dispatch arrives, _HOSTNAME, _MACHINE_ID and LIFECYCLE_PAYLOAD included" \
    test_every_field_arrives
run_test "the filtered upload sends the dispatches only; the whole-journal upload sends everything" \
    test_filtered_upload_sends_dispatches_only
run_test "status --directory and --file: one row per machine and unit, with the machine" \
    test_status_shows_both_machines
run_test "runs --directory: one machine's runs, chosen with --machine by hostname or machine id" \
    test_runs_of_one_machine
run_test "an empty directory, a file that is not a journal, unreadable files, --directory with --file: errors" \
    test_bad_sources_are_errors

if ((_tests_failed == 0)); then # from lib/assert.sh
    rm -rf "$work"
else
    echo "logs and received journals kept in $work"
fi
finish_tests # the last line: "N passed, N failed"
