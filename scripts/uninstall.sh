#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Removes what scripts/install.sh put in place. See --help.
set -euo pipefail

destdir=${DESTDIR:-}
unit=$destdir/etc/systemd/system/lifecycled.service
policy=$destdir/etc/dbus-1/system.d/org.lifecycled.Lifecycle1.conf

usage() {
    cat <<'EOF'
Usage: scripts/uninstall.sh

Stops and disables lifecycled.service, then removes what scripts/install.sh put in place:
  $PREFIX/bin/lifecycled, $PREFIX/bin/lifecyclectl, and lifecyclectl's shell completions
  the man pages and the journal catalog under $PREFIX
  /etc/systemd/system/lifecycled.service
  /etc/dbus-1/system.d/org.lifecycled.Lifecycle1.conf
and reloads systemd, the D-Bus configuration and the journal catalog.

Keeps the configuration (/etc/lifecycled) and the recorded lifecycle state (/var/lib/lifecycled), so a later
install carries on counting. Delete those two directories by hand to forget everything.

Environment:
  PREFIX   where the binaries were installed (default: read from the installed unit, else /usr/local)
  DESTDIR  remove the files staged under this directory instead; nothing is stopped or reloaded
EOF
}

die() {
    printf 'uninstall.sh: %s\n' "$*" >&2
    exit 1
}

for arg in "$@"; do
    case $arg in
        -h | --help) usage; exit 0 ;;
        *) die "unknown argument $arg (see --help)" ;;
    esac
done

if [[ -n ${PREFIX:-} ]]; then
    bindir=${PREFIX%/}/bin
elif [[ -f $unit ]]; then
    # install.sh wrote the real bindir into ExecStart=; reading it back finds binaries installed with any PREFIX.
    bindir=$(sed -n 's|^ExecStart=\(/.*\)/lifecycled$|\1|p' "$unit")
    [[ -n $bindir ]] || die "cannot read the bindir from ExecStart= in $unit; set PREFIX"
else
    bindir=/usr/local/bin
fi

if [[ -z $destdir ]]; then
    ((EUID == 0)) || die "uninstalling needs root (try: sudo $0), or set DESTDIR= for staged files"
    if [[ -d /run/systemd/system && -f $unit ]]; then
        systemctl disable --now --quiet lifecycled.service
    fi
fi

removed=0
for file in "$destdir$bindir/lifecycled" "$destdir$bindir/lifecyclectl" "$unit" "$policy" \
    "$destdir${bindir%/bin}/share/bash-completion/completions/lifecyclectl" \
    "$destdir${bindir%/bin}/share/zsh/site-functions/_lifecyclectl" \
    "$destdir${bindir%/bin}/share/man/man8/lifecycled.8" "$destdir${bindir%/bin}/share/man/man1/lifecyclectl.1" \
    "$destdir${bindir%/bin}/share/man/man5/lifecycled.json.5" \
    "$destdir${bindir%/bin}/lib/systemd/catalog/lifecycled.catalog"; do
    if [[ -e $file ]]; then
        rm -f -- "$file"
        printf 'removed %s\n' "$file"
        removed=$((removed + 1))
    fi
done
# Folders install.sh may have created, deepest first, removed only when empty: the completions' own folders, and
# /opt/<name> (FHS: it belongs to the package). Shared directories such as /usr/local/bin or /etc/systemd/system
# stay on a real system; in a DESTDIR staging tree every folder install.sh made goes once empty. /etc/lifecycled
# and /var/lib/lifecycled are kept, as documented.
prefix=${bindir%/bin}
folders=("$prefix/share/bash-completion/completions" "$prefix/share/bash-completion" "$prefix/share/zsh/site-functions"
    "$prefix/share/zsh")
if [[ $bindir == /opt/*/bin || -n $destdir ]]; then
    # The man pages' and the catalog's folders are shared on a real system under /usr or /usr/local.
    folders+=("$prefix/share/man/man1" "$prefix/share/man/man5" "$prefix/share/man/man8" "$prefix/share/man"
        "$prefix/lib/systemd/catalog" "$prefix/lib/systemd" "$prefix/lib")
fi
if [[ $bindir == /opt/*/bin ]]; then
    folders+=("$prefix/share" "$bindir" "$prefix")
fi
if [[ -n $destdir ]]; then
    folders+=("$prefix/share" "$bindir" "/etc/systemd/system" "/etc/systemd" "/etc/dbus-1/system.d" "/etc/dbus-1")
    # The prefix's parents inside the staging tree, up to DESTDIR itself (which stays).
    parent=$prefix
    while [[ $parent == /?* ]]; do
        folders+=("$parent")
        parent=${parent%/*}
    done
fi
for folder in "${folders[@]}"; do
    if [[ -d $destdir$folder ]]; then rmdir --ignore-fail-on-non-empty -- "$destdir$folder"; fi
done
((removed > 0)) || printf 'nothing to remove: lifecycled is not installed under %s\n' "${destdir:-/}"

if [[ -z $destdir && -d /run/systemd/system ]]; then
    systemctl daemon-reload
    systemctl reset-failed lifecycled.service 2>/dev/null || true # forget a failed state of the removed unit
    journalctl --update-catalog || printf 'uninstall.sh: journalctl --update-catalog failed\n' >&2
    busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig ||
        systemctl reload dbus.service || printf 'uninstall.sh: could not reload the D-Bus configuration\n' >&2
fi
printf 'kept %s/etc/lifecycled (configuration) and %s/var/lib/lifecycled (state)\n' "$destdir" "$destdir"
