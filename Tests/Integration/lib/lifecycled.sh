# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# What every suite that installs lifecycled in the throw-away container shares: the checks before it boots, and the
# dispatches' MESSAGE_IDs (docs/journal.md). Source it after lib/assert.sh and lib/container.sh, then call
#   suite_preflight SUITE_NAME "$@"     # sets build_dir, or exits with a message saying what is missing

# shellcheck disable=SC2034 # used by the suites that source this file
readonly ID_LAUNCH=7006b0aab99348aaa0549048c05b00b9 ID_WAKE=c3cffdd912a94468bf55af95c5153a3f \
    ID_SLEEP=1ecaafbe5252451daa10ccc3e7fd2329 ID_CUSTOM=c045a9c8b7de4d3084fecaf0ae0df532 \
    ID_CRASH=8ca45d5015014645bedba16bc4a17ad0
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
