# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# What the project's scripts need on the machine, so that one command works on a fresh Debian or Ubuntu host.
# Source it, then:
#
#   require_swift WHO                      # puts /opt/swift/usr/bin on PATH when swift is not found, or exits
#   require_packages WHO "${BUILD_NEEDS[@]}" "${CONTAINER_NEEDS[@]}"
#   release_build WHO                      # the one static release tree, .build-release; sets build_dir
#
# require_packages installs what is missing with apt-get, but only as root: a normal user gets the exact apt-get
# command to run instead, and nothing is installed that is already there.

# CHECK=PACKAGE: the package is taken to be installed when CHECK is a command on PATH, or, for pkgconfig:MODULE, when
# pkg-config knows the module. Checking commands rather than dpkg's database also works on hosts without dpkg.
# shellcheck disable=SC2034 # used by the scripts that source this file
BUILD_NEEDS=(pkg-config=pkg-config pkgconfig:libsystemd=libsystemd-dev)
# The integration suites and the demo: a throw-away systemd container of this machine, and jq for the journal.
# shellcheck disable=SC2034
CONTAINER_NEEDS=(systemctl=systemd systemd-nspawn=systemd-container nsenter=util-linux dbus-daemon=dbus jq=jq ip=iproute2)
# Tests/Integration/docs.sh and package.sh: rendering the man pages, building and checking a .deb.
# shellcheck disable=SC2034
PACKAGING_NEEDS=(groff=groff-base man=man-db dpkg-deb=dpkg dpkg-shlibdeps=dpkg-dev strip=binutils lintian=lintian)

# Tests/Integration/metrics.sh: node_exporter's textfile collector, promtool and curl (require_metrics_packages).
# shellcheck disable=SC2034
METRICS_NEEDS=(prometheus-node-exporter=prometheus-node-exporter promtool=prometheus curl=curl)

# The scratch path every script builds the static release binaries into: install.sh reads the same tree.
# shellcheck disable=SC2034
RELEASE_SCRATCH=.build-release

_requirements_say() { printf '%s: %s\n' "$1" "$2" >&2; }

require_swift() {
    local who=$1
    # The official toolchain tarballs are often unpacked in /opt/swift without touching PATH (and sudo resets PATH).
    if ! command -v swift >/dev/null && [[ -x /opt/swift/usr/bin/swift ]]; then
        PATH=$PATH:/opt/swift/usr/bin
    fi
    if ! command -v swift >/dev/null; then
        _requirements_say "$who" "Swift 6.2 or newer is needed and was found neither on PATH nor in /opt/swift/usr/bin;"
        _requirements_say "$who" "install a toolchain from https://www.swift.org/install/linux/ and put its usr/bin on PATH"
        exit 1
    fi
}

require_packages() {
    local who=$1 item check package
    shift
    local -a missing=()
    for item in "$@"; do
        check=${item%%=*}
        package=${item#*=}
        case $check in
            pkgconfig:*) pkg-config --exists "${check#pkgconfig:}" 2>/dev/null && continue ;;
            *) command -v "$check" >/dev/null && continue ;;
        esac
        [[ " ${missing[*]} " == *" $package "* ]] || missing+=("$package")
    done
    ((${#missing[@]} > 0)) || return 0
    if ((EUID != 0)) || ! command -v apt-get >/dev/null; then
        _requirements_say "$who" "missing Debian packages: ${missing[*]}"
        _requirements_say "$who" "install them with: sudo apt-get install ${missing[*]}"
        exit 1
    fi
    _requirements_say "$who" "installing the missing packages ${missing[*]}"
    # The package lists of a fresh container or VM may be empty: update first, as .ci/run does.
    if ! DEBIAN_FRONTEND=noninteractive apt-get update -qq ||
        ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
        _requirements_say "$who" "could not install ${missing[*]} with apt-get"
        exit 1
    fi
}

# Builds (or brings up to date) the static release binaries in $RELEASE_SCRATCH of the current directory, which must
# be the repository. Static Swift runtime: the binaries then run where no toolchain is, such as in the container.
release_build() {
    local who=$1
    local -a build=(swift build -c release --static-swift-stdlib --scratch-path "$RELEASE_SCRATCH")
    if ! "${build[@]}"; then
        _requirements_say "$who" "the release build failed: ${build[*]}"
        exit 1
    fi
    build_dir=$("${build[@]}" --show-bin-path)
}

# METRICS_NEEDS, after the preset that keeps their services from starting in every test container (a fresh /etc
# enables every installed unit no preset disables); as root only, like require_packages. Run from the repository.
require_metrics_packages() {
    local preset=/usr/lib/systemd/system-preset/10-integration-tests.preset
    if ((EUID == 0)) && ! cmp -s .ci/10-integration-tests.preset "$preset"; then
        install -m 0644 .ci/10-integration-tests.preset "$preset"
    fi
    require_packages "$1" "${METRICS_NEEDS[@]}"
}
