# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# A throw-away container that may write to /usr, /etc and /var, for what plain --volatile=yes cannot test: a journal
# catalog under /usr, a Debian package, an install with PREFIX=/usr/local (docs/testing.md, "What plain
# --volatile=yes cannot test").
# Source it after lib/container.sh, then:
#
#   overlay_boot NAME BUILD_DIR [NSPAWN_ARGS...]
#
# Each overlay has a tmpfs upper layer: the container sees the host's /usr, /etc and /var and every write vanishes at
# power-off. The host's /etc comes with its enabled services; those that would get in the way are masked before boot
# by binding /dev/null over their unit file in /etc/systemd/system (systemd takes such a file as masked):
#   timers.target       apt-daily and its friends would take dpkg's lock or rebuild caches while a test runs
#   apt-daily*, man-db, dpkg-db-backup   the same, when started otherwise
#   packagekit          apt's hook would start it on the bus after every package operation
#   unattended-upgrades its shutdown hook would slow the power-off down
#   postgresql*         a host database server has nothing to do in a test and would fight over its port
readonly OVERLAY_MASKED_UNITS=(timers.target apt-daily.service apt-daily-upgrade.service man-db.service
    dpkg-db-backup.service packagekit.service unattended-upgrades.service postgresql.service postgresql@.service)

overlay_boot() {
    local name=$1 build_dir=$2 unit
    shift 2
    local -a args=(--overlay=/usr::/usr --overlay=/etc::/etc --overlay=/var::/var)
    for unit in "${OVERLAY_MASKED_UNITS[@]}"; do
        args+=("--bind-ro=/dev/null:/etc/systemd/system/$unit")
    done
    container_boot "$name" "$build_dir" "${args[@]}" "$@"
}

# Fails, naming what it found, when anything of lifecycled is in the container before a test installs it: a package,
# files from an install on the host, a unit, or catalog entries.
assert_no_lifecycled() {
    local found=() path
    c_exec dpkg-query -W lifecycled >/dev/null 2>&1 && found+=("the package lifecycled")
    for path in /usr/bin/lifecycled /usr/local/bin/lifecycled /etc/lifecycled /var/lib/lifecycled \
        /etc/systemd/system/lifecycled.service /usr/lib/systemd/system/lifecycled.service \
        /usr/local/lib/systemd/catalog/lifecycled.catalog /usr/lib/systemd/catalog/lifecycled.catalog; do
        c_exec test -e "$path" && found+=("$path")
    done
    if c_exec journalctl --list-catalog 2>/dev/null | grep -q "$ID_LAUNCH"; then
        found+=("lifecycled's journal catalog")
    fi
    ((${#found[@]} == 0)) || fail "lifecycled is already there before the install: ${found[*]}"
}
