# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# A tiny test framework for the integration suites. Source it, then:
#
#   test_foo() { assert_eq "active" "$(c_exec systemctl is-active foo)" "state of foo"; }
#   run_test "foo starts" test_foo
#   finish_tests                      # prints "N passed, N failed"; non-zero if anything failed
#
# Each test runs in a subshell with `set -e`, so the first failing assertion or command ends that test only, and a
# test cannot change the globals of the next one. Assertions print what was expected and what was got to stderr.
# Needs jq for the JSON helpers. Failure details go to stderr: run suites with 2>&1 to keep them in order.

_tests_passed=0
_tests_failed=0
_tests_failed_names=()

# run_test NAME FUNCTION [ARGS...]
run_test() {
    local name=$1 rc started elapsed
    shift
    printf -- '--- %s\n' "$name"
    started=$EPOCHREALTIME
    # errexit is ignored inside `if` and `||`, so run the subshell as a plain command with errexit off around it.
    local errexit_was_on=0
    [[ $- == *e* ]] && errexit_was_on=1
    set +e
    _tests_level=$((BASH_SUBSHELL + 1)) # the test's own subshell, as opposed to command substitutions inside it
    (
        # errtrace: report failures inside helpers too; _tests_on_err names the line in the test that failed.
        set -eE
        trap '_tests_on_err "$?" "$BASH_COMMAND"' ERR
        "$@"
    )
    rc=$?
    ((errexit_was_on)) && set -e
    elapsed=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    if ((rc == 0)); then
        _tests_passed=$((_tests_passed + 1))
        printf 'PASS %s (%s s)\n' "$name" "$elapsed"
    else
        _tests_failed=$((_tests_failed + 1))
        _tests_failed_names+=("$name")
        printf 'FAIL %s (%s s, exit status %s)\n' "$name" "$elapsed" "$rc"
    fi
}

# Names the first line outside lib/ (the test's own code) where a command failed. Failures inside command
# substitutions are skipped: they only matter if they fail the command around them, which is reported then.
_tests_on_err() {
    local rc=$1 cmd=$2 i
    ((BASH_SUBSHELL == _tests_level)) || return 0
    for ((i = 1; i < ${#BASH_SOURCE[@]}; i++)); do
        [[ ${BASH_SOURCE[i]%/*} == "${BASH_SOURCE[0]%/*}" ]] && continue
        if ((i == 1)); then
            printf '  at %s:%s: %s (exit status %s)\n' "${BASH_SOURCE[i]##*/}" "${BASH_LINENO[i - 1]}" "$cmd" "$rc" >&2
        else
            printf '  at %s:%s, in %s\n' "${BASH_SOURCE[i]##*/}" "${BASH_LINENO[i - 1]}" "${FUNCNAME[i - 1]}" >&2
        fi
        return 0
    done
}

# Prints the summary line, alone and in exactly this form: "N passed, N failed". Non-zero if any test failed.
finish_tests() {
    local name
    for name in "${_tests_failed_names[@]}"; do
        printf 'failed: %s\n' "$name"
    done
    printf '%d passed, %d failed\n' "$_tests_passed" "$_tests_failed"
    ((_tests_failed == 0))
}

fail() {
    printf '  %s\n' "$*" >&2
    return 1
}

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
    [[ $2 == "$1" ]] || fail "${3:-value}: expected '$1', got '$2'"
}

# assert_contains HAYSTACK NEEDLE [WHAT]
assert_contains() {
    [[ $1 == *"$2"* ]] || fail "${3:-output}: expected to contain '$2', got '$1'"
}

# assert_status EXPECTED_EXIT_STATUS CMD [ARGS...]: runs CMD and checks its exit status.
assert_status() {
    local expected=$1 rc=0
    shift
    "$@" || rc=$?
    ((rc == expected)) || fail "exit status of '$*': expected $expected, got $rc"
}

# json_field JSON FIELD: prints FIELD of one JSON object (empty if absent; arrays of strings joined by spaces).
json_field() {
    jq -r --arg f "$2" '.[$f] // "" | if type == "array" then map(tostring) | join(" ") else tostring end' <<<"$1"
}

# assert_json_field JSON FIELD EXPECTED [WHAT]: for one JSON object, e.g. a `journalctl -o json` line.
assert_json_field() {
    local got
    got=$(json_field "$1" "$2" 2>&1) || got="(not a JSON object: $1)"
    assert_eq "$3" "$got" "${4:-JSON} field $2"
}

# assert_journal_has ENTRIES FIELD=VALUE...: ENTRIES is the output of `journalctl -o json` (one object per line);
# at least one entry must carry every FIELD=VALUE given. On failure, lists the entries that were there.
assert_journal_has() {
    local entries=$1 filter='.' pair i=0 matches got
    shift
    local -a args=()
    for pair in "$@"; do
        args+=(--arg "f$i" "${pair%%=*}" --arg "v$i" "${pair#*=}")
        filter+=" | select(.[\$f$i] | if type == \"array\" then any(.[]; . == \$v$i) else . == \$v$i end)"
        i=$((i + 1))
    done
    matches=$(jq -c "${args[@]}" "$filter" <<<"$entries" 2>/dev/null) || matches=""
    [[ -n $matches ]] && return 0
    got=$(jq -r '"    " + ([.MESSAGE_ID // "-", .UNIT // .USER_UNIT // "-", .MESSAGE // "-"] | map(tostring) | join("  "))' \
        <<<"$entries" 2>&1) || got="    (not JSON lines) $entries"
    fail "expected a journal entry with $*; got $(grep -c . <<<"$entries") entries:"$'\n'"$got"
}

# wait_for SECONDS CMD [ARGS...]: polls CMD (quietly) until it succeeds or SECONDS have passed.
wait_for() {
    local timeout=$1
    shift
    local deadline=$((SECONDS + timeout))
    until "$@" >/dev/null 2>&1; do
        if ((SECONDS >= deadline)); then
            fail "timed out after ${timeout} s waiting for: $*"
            return 1
        fi
        sleep "${WAIT_FOR_INTERVAL:-0.2}"
    done
}
