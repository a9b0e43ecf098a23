#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# A journald that stores nothing below notice (MaxLevelStore=notice): for each build given, a fresh throw-away
# container (Tests/Integration/lib/container.sh) installs lifecycled with scripts/install.sh, restarts journald storing
# nothing below notice, and runs one watched oneshot RUNS times. Prints, per build: the unit's state file (bytes, and
# the dispatches it still holds) once lifecycled has had PATIENCE seconds to give up what the journal never shows, its
# counters, how long a restart of lifecycled then takes to READY, and its counters after one more run, which must be
# at least what they were (docs/journal.md, "A journal that stores nothing"). Give the current code and a baseline in
# one run, e.g.
#
#   Benchmarks/container/nostore.sh .build-release/x86_64-unknown-linux-gnu/release /path/to/baseline/release
#
# A benchmark: it asserts nothing, and scripts/test does not run it. Needs root, systemd-container and jq.
# Environment: RUNS (300), PATIENCE (s, 150), READY_LIMIT (s, 120: how long the restart may take).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/container.sh
source "$repo/Tests/Integration/lib/container.sh"
# shellcheck source=Benchmarks/container/lib.sh
source "$here/lib.sh"

RUNS=${RUNS:-300}
PATIENCE=${PATIENCE:-150}
READY_LIMIT=${READY_LIMIT:-120}
readonly PREFIX_INSIDE=/opt/lifecycled UNIT=lc-ns.service STATE=/var/lib/lifecycled/units/lc-ns.service.json

check_builds nostore.sh "$@"

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-nostore.XXXXXX")
export CONTAINER_LOG_DIR=$work
container_install_trap

# "sequence launches wakes sleeps pending bytes" of the unit's state file.
state_figures() {
    c_exec sh -c "stat -c %s $STATE; cat $STATE" | jq -rs '.[1] as $s | "\($s.sequence) \($s.state.count_total_launch)'\
' \($s.state.count_total_wake) \($s.state.count_total_sleep) \(($s.pending_dispatches // []) | length) \(.[0])"'
}

measure() {
    local build=$1 label=$2 started sequence launches wakes sleeps pending bytes
    mkdir -p "$work/$label"
    cp "$build/lifecycled" "$build/lifecyclectl" "$work/$label/"
    container_boot "lc-nostore-$label-$$" "$work/$label" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
    c_exec mkdir -p /etc/lifecycled /etc/systemd/journald.conf.d
    printf '{"watch": ["lc-ns*.service"]}\n' | c_exec_stdin tee /etc/lifecycled/lifecycled.json >/dev/null
    printf '[Service]\nType=oneshot\nExecStart=/bin/true\n' | c_exec_stdin tee /run/systemd/system/$UNIT >/dev/null
    c_exec systemctl daemon-reload
    c_exec env PREFIX=$PREFIX_INSIDE /opt/lifecycled-src/scripts/install.sh /opt/lifecycled-build >"$work/$label/install.log" 2>&1
    printf '[Journal]\nMaxLevelStore=notice\n' | c_exec_stdin tee /etc/systemd/journald.conf.d/lc-nostore.conf >/dev/null
    c_exec systemctl restart systemd-journald.service
    started=$SECONDS
    c_exec sh -c "i=0; while [ \$i -lt $RUNS ]; do systemctl start $UNIT; i=\$((i + 1)); done"
    say "  $label: $RUNS runs in $((SECONDS - started)) s"
    started=$SECONDS
    while ((SECONDS - started < PATIENCE)); do
        read -r sequence launches wakes sleeps pending bytes <<<"$(state_figures)"
        ((sequence >= 2 * RUNS && pending <= 16)) && break
        sleep 2
    done
    say "  $label: after $((SECONDS - started)) s more, state file $((bytes / 1024)) KB holding $pending dispatches;" \
        "sequence $sequence, launches $launches, wakes $wakes, sleeps $sleeps; status: $(unit_prop lifecycled.service StatusText)"
    started=$SECONDS
    if ! c_exec timeout "$READY_LIMIT" systemctl restart lifecycled.service; then
        say "  $label: restarted, lifecycled was not READY within $READY_LIMIT s ($(unit_prop lifecycled.service StatusText))"
        container_poweroff
        return
    fi
    say "  $label: restarted while the journal stores nothing: READY in $((SECONDS - started)) s"
    c_exec systemctl start $UNIT
    sleep 2
    read -r sequence launches wakes sleeps pending bytes <<<"$(state_figures)"
    say "  $label: after one more run: sequence $sequence, launches $launches, wakes $wakes, sleeps $sleeps (each at" \
        "least what it was, plus that run)"
    container_poweroff
}

section "A journald storing nothing below notice: $RUNS runs of one watched oneshot"
measure_each "$@"
rm -rf "$work"
