#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The Debian package (scripts/build-deb) through its whole life, in a throw-away container with writable overlays on
# /usr, /etc and /var (lib/overlay.sh): `apt-get install ./lifecycled_*.deb` enables and starts lifecycled, which
# tracks a unit a drop-in watches; an upgrade to a higher version keeps a changed conffile, the drop-in and the state
# file and restarts the daemon; `apt-get remove` stops it and keeps configuration and state; `apt-get purge` leaves
# nothing behind. lintian finds nothing to warn about. Needs root, systemd-container, jq, dpkg-dev, binutils, lintian.
# Usage: Tests/Integration/package.sh BUILD_DIR
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

suite_preflight package.sh "$@"
for tool in dpkg-deb dpkg-shlibdeps strip lintian; do
    command -v "$tool" >/dev/null ||
        { echo "package.sh: $tool is missing (apt-get install dpkg-dev binutils lintian)" >&2; exit 1; }
done

readonly WAIT=15 UNITS_DIR=/var/lib/lifecycled/units
readonly UNIT=lc-sleep@pkg.service CONFFILE=/etc/lifecycled/lifecycled.json
readonly DROPIN=/etc/lifecycled/lifecycled.json.d/50-package-test.json
readonly DEBS=/opt/lifecycled-debs # where the container sees $work

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-package.XXXXXX")
# apt fetches a local package as the user _apt: it must be able to read it.
chmod 0755 "$work"
export CONTAINER_LOG_DIR=$work

# Two packages of the same build: the version the sources say, and a higher one to upgrade to. gzip: xz would take
# a minute per package here, dpkg reads every kind alike, and lintian refuses none.
version=$("$build_dir/lifecycled" --version)
upgrade_version=$version+test1
echo "building lifecycled $version and $upgrade_version packages"
deb1=$("$repo/scripts/build-deb" --compression gzip --output "$work" "$build_dir")
deb2=$("$repo/scripts/build-deb" --compression gzip --output "$work" --version "$upgrade_version" "$build_dir")

# apt-get inside, its output in $work/apt.log and shown only when it fails (the host's apt hooks are chatty).
apt_get() {
    local rc=0
    printf '== apt-get %s\n' "$*" >>"$work/apt.log"
    c_exec env DEBIAN_FRONTEND=noninteractive apt-get -q -y "$@" >>"$work/apt.log" 2>&1 || rc=$?
    ((rc == 0)) || { tail -n 30 "$work/apt.log" >&2; fail "apt-get $* failed with exit status $rc"; }
}

# "ii 0.1.0" and the like: dpkg's wanted and current state, and the version.
# shellcheck disable=SC2016 # dpkg-query's own ${field} syntax
package_status() { c_exec dpkg-query -W -f '${db:Status-Abbrev}${Version}' lifecycled 2>/dev/null || true; }

test_package_contents() {
    local listing field
    listing=$(dpkg-deb -c "$deb1" | awk '{ print $6 }')
    for path in ./usr/bin/lifecycled ./usr/bin/lifecyclectl ./usr/lib/systemd/system/lifecycled.service \
        ./usr/share/dbus-1/system.d/org.lifecycled.Lifecycle1.conf ./etc/lifecycled/lifecycled.json \
        ./etc/lifecycled/lifecycled.json.d/ ./usr/share/man/man8/lifecycled.8.gz ./usr/share/man/man1/lifecyclectl.1.gz \
        ./usr/share/man/man5/lifecycled.json.5.gz ./usr/share/bash-completion/completions/lifecyclectl \
        ./usr/share/zsh/vendor-completions/_lifecyclectl ./usr/lib/systemd/catalog/lifecycled.catalog \
        ./usr/share/doc/lifecycled/copyright; do
        grep -qxF -- "$path" <<<"$listing" || fail "the package lacks $path"
    done
    [[ $listing != *./usr/local/* && $listing != *./etc/systemd/* ]] || fail "the package ships files for the admin"
    assert_eq "$version" "$(dpkg-deb -f "$deb1" Version)" "Version"
    assert_eq "/etc/lifecycled/lifecycled.json" "$(dpkg-deb --ctrl-tarfile "$deb1" | tar -xOf - ./conffiles)" \
        "conffiles"
    # Static Swift runtime: only C libraries of the base system, never a Swift toolchain.
    field=$(dpkg-deb -f "$deb1" Depends)
    for dependency in ${field//,/ }; do
        [[ $dependency == [\(\>=\<]* || $dependency == *\) ]] && continue # a version, not a package
        [[ $dependency =~ ^(libc6|libsystemd0|libgcc-s1|libstdc\+\+6)$ ]] || fail "unexpected dependency $dependency"
    done
    assert_contains "$field" "libsystemd0" "Depends"
    assert_eq "ExecStart=/usr/bin/lifecycled" \
        "$(dpkg-deb --fsys-tarfile "$deb1" | tar -xOf - ./usr/lib/systemd/system/lifecycled.service | grep ^ExecStart=)"
    dpkg --compare-versions "$upgrade_version" gt "$version" || fail "$upgrade_version is not higher than $version"
}

test_install() {
    apt_get install "$DEBS/${deb1##*/}" >/dev/null
    assert_eq "ii $version" "$(package_status)" "dpkg status and version"
    assert_eq enabled "$(c_exec systemctl is-enabled lifecycled.service)" "is-enabled"
    assert_eq active "$(c_exec systemctl is-active lifecycled.service)" "is-active"
    assert_eq "/usr/bin/lifecycled" "$(unit_prop lifecycled.service ExecStart | grep -o 'path=[^ ;]*' | cut -d= -f2)" \
        "ExecStart of the running unit"
    # It owns its name on the bus, which the policy in /usr/share/dbus-1/system.d allows.
    wait_for "$WAIT" c_exec busctl --system status org.lifecycled.Lifecycle1
    assert_contains "$(c_exec journalctl --list-catalog)" "$ID_LAUNCH lifecycled:" "journalctl --list-catalog"
    assert_eq /usr/share/man/man8/lifecycled.8.gz "$(c_exec man -w 8 lifecycled)" "man -w 8 lifecycled"
    assert_status 0 c_exec test -d /etc/lifecycled/lifecycled.json.d
    assert_status 0 c_exec lifecycled --check-config >/dev/null
}

test_tracks_a_watched_unit() {
    c_copy "$repo/Tests/Integration/units/lc-sleep@.service" /etc/systemd/system/lc-sleep@.service
    c_exec systemctl daemon-reload
    printf '{"watch": ["%s", "lc-marker-*.service"]}\n' "$UNIT" | c_exec_stdin install -m 0644 /dev/stdin "$DROPIN"
    c_exec systemctl reload lifecycled.service
    run_marker lc-marker-reloaded.service # the reload is asynchronous: the drop-in is in force once this is tracked
    c_exec systemctl start "$UNIT"
    wait_dispatches "$UNIT" 1
    assert_json_field "$(nth_dispatch "$UNIT" 1)" MESSAGE_ID "$ID_LAUNCH" "the first dispatch"
    assert_contains "$(c_exec journalctl --no-pager -x -n 1 MESSAGE_ID="$ID_LAUNCH" LIFECYCLE_UNIT="$UNIT")" \
        "Subject: $UNIT launched (lifecycle dispatch #1)" "journalctl -x"
    c_exec systemctl stop "$UNIT"
    wait_dispatches "$UNIT" 2
    assert_eq 1 "$(state "$UNIT" .state.count_launch)" "count_launch in the state file"
    assert_eq 2 "$(state "$UNIT" .sequence)" "sequence in the state file"
}

test_upgrade_keeps_configuration_and_state() {
    # A changed conffile: dpkg must keep it without asking, as the package's copy did not change.
    c_exec sh -c "jq '.session_timeout = 600' $CONFFILE >$CONFFILE.new && mv $CONFFILE.new $CONFFILE"
    local conf_before state_before invocation_before
    conf_before=$(c_exec sha256sum "$CONFFILE" "$DROPIN")
    wait_for "$WAIT" nothing_pending "$UNIT" || fail "$UNIT: dispatches still unconfirmed in its state file"
    state_before=$(state "$UNIT" .)
    invocation_before=$(unit_prop lifecycled.service InvocationID)
    # stdin is /dev/null: a conffile question would make dpkg fail here rather than wait.
    apt_get install "$DEBS/${deb2##*/}" >/dev/null
    assert_eq "ii $upgrade_version" "$(package_status)" "dpkg status and version after the upgrade"
    assert_eq "$conf_before" "$(c_exec sha256sum "$CONFFILE" "$DROPIN")" "the configuration after the upgrade"
    assert_eq "" "$(c_exec find /etc/lifecycled -name '*.dpkg-*')" "dpkg's conffile copies"
    assert_eq "$state_before" "$(state "$UNIT" .)" "the state file after the upgrade"
    assert_eq active "$(c_exec systemctl is-active lifecycled.service)" "is-active after the upgrade"
    assert_eq enabled "$(c_exec systemctl is-enabled lifecycled.service)" "is-enabled after the upgrade"
    [[ $(unit_prop lifecycled.service InvocationID) != "$invocation_before" ]] ||
        fail "lifecycled.service was not restarted by the upgrade"
    # Counting carries on where it was: the next start is a wake, dispatch #3.
    wait_for "$WAIT" c_exec busctl --system status org.lifecycled.Lifecycle1
    c_exec systemctl start "$UNIT"
    wait_dispatches "$UNIT" 3
    assert_json_field "$(nth_dispatch "$UNIT" 3)" MESSAGE_ID "$ID_WAKE" "the dispatch after the upgrade"
    assert_json_field "$(nth_dispatch "$UNIT" 3)" LIFECYCLE_SEQUENCE 3 "the dispatch after the upgrade"
    c_exec systemctl stop "$UNIT"
    wait_dispatches "$UNIT" 4
}

test_remove_keeps_configuration_and_state() {
    c_exec dpkg-query -L lifecycled >"$work/files"
    apt_get remove lifecycled >/dev/null
    assert_eq "rc $upgrade_version" "$(package_status)" "dpkg status after remove"
    assert_status 3 c_exec systemctl is-active --quiet lifecycled.service
    local load
    load=$(unit_prop lifecycled.service LoadState)
    [[ $load == masked || $load == not-found ]] || fail "LoadState of lifecycled.service after remove: $load"
    local path
    for path in /usr/bin/lifecycled /usr/bin/lifecyclectl /usr/lib/systemd/system/lifecycled.service \
        /usr/share/dbus-1/system.d/org.lifecycled.Lifecycle1.conf /usr/lib/systemd/catalog/lifecycled.catalog; do
        assert_status 1 c_exec test -e "$path"
    done
    [[ $(c_exec journalctl --list-catalog) != *"$ID_LAUNCH"* ]] || fail "the catalog still lists lifecycled"
    assert_status 0 c_exec test -f "$CONFFILE"
    assert_status 0 c_exec test -f "$DROPIN"
    assert_status 0 c_exec test -f "$UNITS_DIR/$UNIT.json"
}

test_purge_leaves_nothing() {
    apt_get purge lifecycled >/dev/null
    assert_eq "" "$(package_status | grep -v '^un' || true)" "dpkg status after purge"
    assert_status 1 c_exec test -e /etc/lifecycled
    assert_status 1 c_exec test -e /var/lib/lifecycled
    local path left=()
    while IFS= read -r path; do
        # Shared directories (/usr/bin, /etc) stay; every file and every directory of lifecycled's own must go.
        if [[ $path == *lifecycled* || $path == *lifecyclectl* ]] && c_exec test -e "$path"; then
            left+=("$path")
        fi
    done <"$work/files"
    ((${#left[@]} == 0)) || fail "left after purge: ${left[*]}"
    left=()
    mapfile -t left < <(c_exec find /etc /usr /var -xdev \( -path /var/log/journal -o -path /var/tmp \) -prune -o \
        \( -name '*lifecycled*' -o -name '*lifecyclectl*' \) -print)
    ((${#left[@]} == 0)) || fail "left after purge: ${left[*]}"
    assert_eq not-found "$(unit_prop lifecycled.service LoadState)" "LoadState after purge"
}

test_lintian() {
    local out rc=0
    out=$(lintian --tag-display-limit 0 --fail-on error,warning "$deb1" 2>&1) || rc=$?
    ((rc == 0)) || fail "lintian (exit status $rc): $out"
}

# init-system-helpers is Essential in Debian 12, but a minimal or older system may lack deb-systemd-helper and
# deb-systemd-invoke: the maintainer scripts then use systemctl alone.
test_without_deb_systemd_helper() {
    c_exec rm -f /usr/bin/deb-systemd-helper /usr/bin/deb-systemd-invoke
    apt_get install "$DEBS/${deb1##*/}" >/dev/null
    assert_eq "ii $version" "$(package_status)" "dpkg status"
    assert_eq enabled "$(c_exec systemctl is-enabled lifecycled.service)" "is-enabled"
    assert_eq active "$(c_exec systemctl is-active lifecycled.service)" "is-active"
    apt_get remove lifecycled >/dev/null
    assert_status 3 c_exec systemctl is-active --quiet lifecycled.service
    assert_eq "" "$(c_exec find /etc/systemd -name lifecycled.service)" "enablement links after remove"
    apt_get purge lifecycled >/dev/null
    assert_status 1 c_exec test -e /etc/lifecycled
    assert_status 1 c_exec test -e /var/lib/lifecycled
    assert_eq "" "$(c_exec find /etc /usr /var/lib -xdev \( -name '*lifecycled*' -o -name '*lifecyclectl*' \) -print)" \
        "files left after purge"
}

container_install_trap
overlay_boot "lc-package-$$" "$build_dir" --bind-ro="$work:$DEBS" >/dev/null
echo "container lc-package-$$ booted in $CONTAINER_BOOT_SECONDS s (overlays on /usr, /etc, /var)"
# A host built as a Docker image has a policy-rc.d that forbids maintainer scripts to start services, which the
# package's scripts rightly obey (deb-systemd-invoke). This is about the package: lift that policy in the container.
c_exec rm -f /usr/sbin/policy-rc.d
# man-db's dpkg trigger rebuilds the whole manual database after each apt-get run, for seconds; man finds the pages
# without it.
c_exec rm -f /var/lib/man-db/auto-update

run_test "the package holds the binaries, unit, policy, conffile, pages, completions, catalog" test_package_contents
run_test "lintian reports no error and no warning" test_lintian
run_test "nothing of lifecycled is there before the install" assert_no_lifecycled
run_test "apt-get install: enabled, started, on the bus, catalog and pages in place" test_install
run_test "the installed daemon tracks a unit that a drop-in watches" test_tracks_a_watched_unit
run_test "upgrade to $upgrade_version: changed conffile, drop-in and state kept, daemon restarted" \
    test_upgrade_keeps_configuration_and_state
run_test "apt-get remove: service gone, configuration and state kept" test_remove_keeps_configuration_and_state
run_test "apt-get purge: no file of the package, /etc/lifecycled or /var/lib/lifecycled left" test_purge_leaves_nothing
run_test "without deb-systemd-helper: enabled and started, stopped and disabled, purged" test_without_deb_systemd_helper
container_poweroff

if finish_tests; then
    rm -rf "$work"
else
    echo "console log and packages kept in $work"
    exit 1
fi
