#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs lifecycled on a systemd host from a release build. See --help.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${PREFIX:-/usr/local}
destdir=${DESTDIR:-}
build_command="swift build -c release --static-swift-stdlib"

usage() {
    cat <<EOF
Usage: scripts/install.sh [BUILD_DIR]

Installs lifecycled from a release build (BUILD_DIR, default: $repo/.build/release).
Build it first with: $build_command

Puts in place:
  \$PREFIX/bin/lifecycled, \$PREFIX/bin/lifecyclectl
  /etc/systemd/system/lifecycled.service
  /etc/dbus-1/system.d/org.lifecycled.Lifecycle1.conf
  /etc/lifecycled/lifecycled.json   (only if there is none: an existing configuration is never overwritten)
then reloads systemd and the D-Bus configuration, and enables and (re)starts lifecycled.service.

Environment:
  PREFIX   where the binaries go, as PREFIX/bin (default: /usr/local)
  DESTDIR  stage all files under this directory instead: nothing is reloaded, enabled or started

Undo with scripts/uninstall.sh (it keeps /etc/lifecycled and /var/lib/lifecycled).
EOF
}

die() {
    printf 'install.sh: %s\n' "$*" >&2
    exit 1
}

say() { printf '%s\n' "$*"; }

build_dir=""
for arg in "$@"; do
    case $arg in
        -h | --help) usage; exit 0 ;;
        -*) die "unknown option $arg (see --help)" ;;
        *) [[ -z $build_dir ]] || die "only one BUILD_DIR may be given (see --help)"; build_dir=$arg ;;
    esac
done
build_dir=${build_dir:-$repo/.build/release}

# The bindir is written into ExecStart=, which must be an absolute path without characters systemd would parse.
[[ $prefix == /* ]] || die "PREFIX must be an absolute path, got '$prefix'"
[[ $prefix =~ ^[A-Za-z0-9/._+-]+$ ]] || die "PREFIX may only contain letters, digits and /._+-, got '$prefix'"
prefix=${prefix%/}
bindir=$prefix/bin

[[ -d $build_dir ]] || die "build directory $build_dir does not exist. Build first: cd $repo && $build_command"
for binary in lifecycled lifecyclectl; do
    [[ -x $build_dir/$binary ]] ||
        die "$build_dir/$binary is missing or not executable. Build first: cd $repo && $build_command"
done
for file in systemd/lifecycled.service systemd/org.lifecycled.Lifecycle1.conf config/lifecycled.json; do
    [[ -f $repo/$file ]] || die "$repo/$file is missing: run this script from a complete lifecycled checkout"
done
# A binary linked against the toolchain's Swift runtime works only where that toolchain is installed.
if [[ $(ldd "$build_dir/lifecycled" 2>/dev/null || true) == *libswiftCore* ]]; then
    say "warning: $build_dir/lifecycled links the Swift runtime dynamically; build it with: $build_command" >&2
fi

if [[ -z $destdir ]]; then
    ((EUID == 0)) || die "a real install needs root (try: sudo $0 $*), or set DESTDIR= to stage the files"
    [[ -d /run/systemd/system ]] || die "systemd is not running on this machine; set DESTDIR= to stage the files"
fi

install -d -m 0755 "$destdir$bindir" "$destdir/etc/systemd/system" "$destdir/etc/dbus-1/system.d"
install -m 0755 "$build_dir/lifecycled" "$build_dir/lifecyclectl" "$destdir$bindir/"
say "installed $destdir$bindir/lifecycled and $destdir$bindir/lifecyclectl"

sed "s|@BINDIR@|$bindir|g" "$repo/systemd/lifecycled.service" |
    install -m 0644 /dev/stdin "$destdir/etc/systemd/system/lifecycled.service"
install -m 0644 "$repo/systemd/org.lifecycled.Lifecycle1.conf" "$destdir/etc/dbus-1/system.d/"
say "installed $destdir/etc/systemd/system/lifecycled.service and" \
    "$destdir/etc/dbus-1/system.d/org.lifecycled.Lifecycle1.conf"

config=$destdir/etc/lifecycled/lifecycled.json
if [[ -e $config ]]; then
    say "kept the existing configuration $config"
else
    install -D -m 0644 "$repo/config/lifecycled.json" "$config"
    say "installed the default configuration $config"
fi

if [[ -n $destdir ]]; then
    say "staged under $destdir; nothing was started"
    exit 0
fi

systemctl daemon-reload
# The bus must know the policy before lifecycled asks for its name.
busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig ||
    systemctl reload dbus.service ||
    die "could not reload the D-Bus configuration; run 'systemctl reload dbus.service' and start lifecycled.service"
systemctl enable --quiet lifecycled.service
# restart, not start: when upgrading, the running daemon must pick up the new binaries.
if ! systemctl restart lifecycled.service; then
    systemctl status --no-pager --lines=20 lifecycled.service >&2 || true
    die "lifecycled.service failed to start; see: journalctl -u lifecycled.service"
fi
say "lifecycled.service is enabled and running; see: $bindir/lifecyclectl status"
