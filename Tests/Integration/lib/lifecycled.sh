# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# What every suite that installs lifecycled in the throw-away container shares: the checks before it boots, and the
# dispatches' MESSAGE_IDs (docs/journal.md). Source it after lib/assert.sh and lib/container.sh, then call
#   suite_preflight SUITE_NAME "$@"     # sets build_dir, or exits with a message saying what is missing

# shellcheck disable=SC2034 # used by the suites that source this file
readonly ID_LAUNCH=7006b0aab99348aaa0549048c05b00b9 ID_WAKE=c3cffdd912a94468bf55af95c5153a3f \
    ID_SLEEP=1ecaafbe5252451daa10ccc3e7fd2329 ID_CUSTOM=c045a9c8b7de4d3084fecaf0ae0df532 \
    ID_CRASH=8ca45d5015014645bedba16bc4a17ad0 ID_MISSED=0e2c805157d74255856d089a14e48eb1
# Where the suites install lifecycled inside: /usr is the host's, read-only, in the container.
readonly PREFIX_INSIDE=/opt/lifecycled

suite_preflight() {
    local name=$1
    shift
    if (($# != 1)); then
        echo "usage: $name BUILD_DIR (a release build holding lifecycled and lifecyclectl)" >&2
        exit 64
    fi
    build_dir=$1
    if ((EUID != 0)); then
        echo "$name: must run as root (systemd-nspawn boots a container)" >&2
        exit 1
    fi
    local tool binary
    for tool in systemd-nspawn nsenter jq; do
        command -v "$tool" >/dev/null || {
            echo "$name: $tool is missing (apt-get install systemd-container util-linux jq)" >&2
            exit 1
        }
    done
    for binary in lifecycled lifecyclectl; do
        [[ -x $build_dir/$binary ]] || {
            echo "$name: $build_dir/$binary is missing; build with:" \
                "swift build -c release --static-swift-stdlib --scratch-path .build-release" >&2
            exit 1
        }
    done
}

# Helpers of the suites that drive the installed daemon. They read the suite's WAIT (seconds a polled condition may
# take), UNITS_DIR, CONFIG and the MESSAGE_IDs above.

unit_prop() { c_exec systemctl show -p "$2" --value "$1"; }

# The dispatches of UNIT, oldest first, one `journalctl -o json` object per line (root-owned entries only).
dispatches() { c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled _UID=0 "LIFECYCLE_UNIT=$1"; }

dispatch_count() { dispatches "$1" | grep -c . || true; }

has_dispatches() { (($(dispatch_count "$1") >= $2)); }

wait_dispatches() { wait_for "$WAIT" has_dispatches "$1" "$2"; }

nth_dispatch() { dispatches "$1" | sed -n "${2}p"; }

all_dispatches() { c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled | jq -c 'select(.LIFECYCLE_EVENT)'; }

all_dispatch_count() { all_dispatches | grep -c . || true; }

daemon_log() {
    c_exec journalctl --no-pager -o json SYSLOG_IDENTIFIER=lifecycled | jq -c 'select(.LIFECYCLE_EVENT | not)'
}

daemon_log_count() { daemon_log | jq -r --arg t "$1" 'select(.MESSAGE | tostring | contains($t)) | .MESSAGE' | grep -c . || true; }

has_daemon_log() { (($(daemon_log_count "$1") >= $2)); }

wait_daemon_log() { wait_for "$WAIT" has_daemon_log "$1" "$2"; }

state() { c_exec jq -r "${2:-.}" "$UNITS_DIR/$1.json"; }

# Dispatches in UNIT's state file that the journal has not been seen to hold yet ("missing" without a file). Once the
# journal holds them, the file is written again without them: wait for that before comparing state files.
pending_count() { state "$1" '(.pending_dispatches // []) | length' 2>/dev/null || echo missing; }
nothing_pending() { [[ $(pending_count "$1") == 0 ]]; }

resync_count() { daemon_log_count "Resynced with systemd"; }

# wait_resyncs_settled MIN: until lifecycled has logged at least MIN resyncs and no new one for a second.
wait_resyncs_settled() {
    local min=$1 last=-1 now stable=0 deadline=$((SECONDS + WAIT))
    while ((SECONDS < deadline)); do
        now=$(resync_count)
        if ((now >= min && now == last)); then
            stable=$((stable + 1))
            ((stable >= 5)) && return 0
        else
            stable=0
        fi
        last=$now
        sleep 0.2
    done
    fail "lifecycled's resyncs did not settle within $WAIT s (wanted >= $min, last count $last)"
}

write_config() { printf '%s\n' "$1" | c_exec_stdin install -D -m 0644 /dev/stdin "$CONFIG"; }

# in_range VALUE LOW HIGH: VALUE is a number within [LOW, HIGH].
in_range() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v + 0 == v && v >= lo && v <= hi) }'; }

# series_value TEXT SERIES: the value of one series of a metrics text (its name and labels exactly as written), or
# nothing. (ENVIRON, not awk -v, which would read the backslashes of an escaped label as escapes of its own.)
series_value() { S=$2 awk 'index($0, ENVIRON["S"] " ") == 1 { print substr($0, length(ENVIRON["S"]) + 2) }' <<<"$1"; }

# assert_ge MIN ACTUAL WHAT
assert_ge() {
    if ! [[ $2 =~ ^[0-9]+$ ]] || (($2 < $1)); then
        fail "$3: expected >= $1, got '$2'"
    fi
}

# run_marker NAME: a transient unit that exits 0 at once; returns when lifecycled has dispatched its launch and its
# sleep. lifecycled handles events in order, so everything it was going to do before has been done by then.
run_marker() {
    c_exec systemd-run --quiet --wait --unit="$1" true >/dev/null
    wait_dispatches "$1" 2
}

has_crash_notice() { dispatches "$1" | jq -e --arg id "$ID_CRASH" 'select(.MESSAGE_ID == $id)' >/dev/null; }

# Copies the test units (Tests/Integration/units/*.service) into the container and reloads systemd.
copy_test_units() {
    local file
    for file in "$(dirname "${BASH_SOURCE[0]}")"/../units/*.service; do
        c_copy "$file" "/etc/systemd/system/${file##*/}"
    done
    c_exec systemctl daemon-reload
}

# Runs scripts/install.sh inside (the suites bind the repository at /opt/lifecycled-src): installs and starts lifecycled.
install_inside() { c_exec env PREFIX=$PREFIX_INSIDE /opt/lifecycled-src/scripts/install.sh /opt/lifecycled-build; }

# For a suite whose every test needs lifecycled: installs it, or says why not, powers the container off and exits 1.
install_or_exit() {
    local out
    if ! out=$(install_inside 2>&1) || ! c_exec systemctl is-active --quiet lifecycled.service; then
        echo "install.sh failed or lifecycled is not running: the tests are skipped" >&2
        printf '%s\n' "${out:-}" >&2
        c_exec journalctl --no-pager -u lifecycled.service >&2 || true
        container_poweroff
        exit 1
    fi
}
