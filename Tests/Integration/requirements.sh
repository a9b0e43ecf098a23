#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# scripts/lib/requirements.sh, which lets scripts/demo, scripts/test and scripts/build-deb work on a fresh machine, in
# a throw-away container with writable overlays: as root it installs exactly the missing packages with apt-get (a
# stub apt-get records the calls: the test needs no network), as another user it names them and installs nothing; it
# finds Swift in /opt/swift/usr/bin and says where to get it when there is none. Needs root, systemd-container, jq.
# Usage: Tests/Integration/requirements.sh BUILD_DIR
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"
# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"
# shellcheck source=Tests/Integration/lib/overlay.sh
source "$here/lib/overlay.sh"

suite_preflight requirements.sh "$@"

readonly LIB=/opt/lifecycled-src/scripts/lib/requirements.sh APT_LOG=/run/apt-calls

# require CALL...: runs `source requirements.sh; CALL` inside as root. CALL is expanded there, not here.
require() { c_exec bash -c "source $LIB && $*"; }

# shellcheck disable=SC2016 # the arrays are require's, expanded inside
test_root_installs_only_what_is_missing() {
    # Everything the demo needs is on this machine but jq, which the overlay lets us take away.
    c_exec dpkg --remove --force-depends jq >/dev/null 2>&1
    assert_status 1 c_exec test -e /usr/bin/jq
    local out
    out=$(require 'require_packages demo "${BUILD_NEEDS[@]}" "${CONTAINER_NEEDS[@]}"' 2>&1)
    assert_contains "$out" "demo: installing the missing packages jq" "what it says"
    assert_eq "update -qq"$'\n'"install -y -qq --no-install-recommends jq" "$(c_exec cat "$APT_LOG")" "apt-get calls"
}

# shellcheck disable=SC2016 # the same
test_nothing_missing_installs_nothing() {
    c_exec rm -f "$APT_LOG"
    require 'require_packages test "${BUILD_NEEDS[@]}"' >/dev/null 2>&1
    assert_status 1 c_exec test -e "$APT_LOG"
}

test_user_is_told_what_to_install() {
    c_exec rm -f "$APT_LOG"
    local rc=0 out
    out=$(c_exec setpriv --reuid=65534 --regid=65534 --clear-groups \
        bash -c "source $LIB && require_packages demo jq=jq nonexistent-tool=some-package" 2>&1) || rc=$?
    assert_eq 1 "$rc" "exit status as a user"
    assert_contains "$out" "install them with: sudo apt-get install jq some-package" "what it says"
    assert_status 1 c_exec test -e "$APT_LOG"
}

test_swift_is_found_in_opt() {
    c_exec install -D -m 0755 /dev/null /opt/swift/usr/bin/swift
    # sudo's secure_path has no /opt/swift: require_swift must find it there anyway.
    assert_eq /opt/swift/usr/bin/swift "$(require 'PATH=/usr/sbin:/usr/bin:/sbin:/bin; require_swift t; command -v swift')" \
        "the swift require_swift found"
    c_exec rm -r /opt/swift
    local rc=0 out
    out=$(require 'PATH=/usr/sbin:/usr/bin:/sbin:/bin; require_swift demo' 2>&1) || rc=$?
    assert_eq 1 "$rc" "exit status without Swift"
    assert_contains "$out" "Swift 6.2 or newer is needed" "what it says"
    assert_contains "$out" "https://www.swift.org/install/linux/" "what it says"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-requirements.XXXXXX")
export CONTAINER_LOG_DIR=$work
container_install_trap
overlay_boot "lc-requirements-$$" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
echo "container lc-requirements-$$ booted in $CONTAINER_BOOT_SECONDS s (overlays on /usr, /etc, /var)"
# A stub apt-get ahead of the real one on PATH: it records its arguments and installs nothing.
printf '#!/bin/sh\necho "$*" >>%s\n' "$APT_LOG" | c_exec_stdin install -m 0755 /dev/stdin /usr/local/sbin/apt-get

run_test "as root: apt-get installs exactly the missing packages" test_root_installs_only_what_is_missing
run_test "nothing missing: apt-get is not called" test_nothing_missing_installs_nothing
run_test "as a user: names the packages, installs nothing, fails" test_user_is_told_what_to_install
run_test "Swift is found in /opt/swift/usr/bin, or its absence explained" test_swift_is_found_in_opt
container_poweroff

if finish_tests; then
    rm -rf "$work"
else
    echo "console log kept in $work"
    exit 1
fi
