#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The shell examples of the README and the docs stay true: the blocks marked "Tests/Integration/readme.sh runs the
# next block" in the files of DOCUMENTS (README.md's configuring and journalctl blocks, then docs/lifecyclectl.md's
# inspecting and replaying blocks) are run, in that order and as they stand, in a throw-away container where
# lifecycled was installed with scripts/install.sh. The other blocks need this machine's toolchain or network
# (builds, apt-get, the demo, the tests themselves) or a collected journal (fleet.sh covers it). In the container:
# - `sudo` is a function that runs its command (everything runs as root);
# - nginx.service is a stand-in (`sleep infinity`), started, stopped and started again once the first block made
#   lifecycled watch it, so that the later blocks have a unit to show;
# - `lifecyclectl follow` runs for 2 s (it would wait for dispatches forever);
# - `swift run lifecyclectl` runs the installed lifecyclectl.
# Then the replay example's promise is checked: its last line detects a crash and a version update.
# Usage: Tests/Integration/readme.sh BUILD_DIR      (the release build: scripts/test passes it)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# shellcheck source=Tests/Integration/lib/assert.sh
source "$here/lib/assert.sh"
# shellcheck source=Tests/Integration/lib/container.sh
source "$here/lib/container.sh"
# shellcheck source=Tests/Integration/lib/lifecycled.sh
source "$here/lib/lifecycled.sh"
suite_preflight readme.sh "$@"
readonly WAIT=20
readonly MARKER='<!-- Tests/Integration/readme.sh runs the next block, as it stands, in a container -->'
# Where the marked blocks are, in the order they run, and how many each holds.
readonly DOCUMENTS=(README.md:2 docs/lifecyclectl.md:2)

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-readme.XXXXXX")
export CONTAINER_LOG_DIR=$work

# What every block runs after, inside the container.
read -r -d '' prelude <<SH || true
export PATH=$PREFIX_INSIDE/bin:\$PATH SYSTEMD_PAGER=cat
sudo() { "\$@"; }
swift() { [ "\$1" = run ] && shift && "\$@"; }
lifecyclectl() {
    if [ "\${1:-}" = follow ]; then timeout 2 $PREFIX_INSIDE/bin/lifecyclectl "\$@" || [ \$? = 124 ]
    else $PREFIX_INSIDE/bin/lifecyclectl "\$@"; fi
}
cd /tmp/readme
set -e
SH

# The marked blocks of one document, each as one NUL-terminated string, in order.
marked_blocks() {
    awk -v marker="$MARKER" '
        $0 == marker { armed = 1; next }
        armed && /^```sh/ { on = 1; armed = 0; block = ""; next }
        on && /^```/ { on = 0; printf "%s%c", block, 0; next }
        on { block = block $0 "\n" }
    ' "$repo/$1"
}

test_examples() {
    local blocks=() found=() document block n=0 out
    for document in "${DOCUMENTS[@]}"; do
        mapfile -d '' -t found < <(marked_blocks "${document%:*}")
        assert_eq "${document#*:}" "${#found[@]}" "marked blocks in ${document%:*}"
        blocks+=("${found[@]}")
    done
    for block in "${blocks[@]}"; do
        n=$((n + 1))
        if ! out=$(c_exec bash -c "$prelude"$'\n'"$block" 2>&1); then
            fail "marked block $n failed:"$'\n'"$block"$'\n'"output:"$'\n'"$out"
        fi
        printf '  block %s: %s lines of output\n' "$n" "$(wc -l <<<"$out")"
        if ((n == 1)); then
            c_exec systemctl start nginx.service
            c_exec systemctl stop nginx.service
            c_exec systemctl start nginx.service
            wait_dispatches nginx.service 3
        fi
        if [[ $block == *"replay --config manual.json"* ]]; then
            local promised
            promised=$(tail -n 1 <<<"$out" | jq -r '.data | "\(.lifecycle_diddetectcrash) \(.lifecycle_totalcrashcount)" +
                " \(.lifecycle_isfirstlaunchupdate)"')
            assert_eq "true 1 true" "$promised" "the replay example's last line (crash detected, one crash, an update)"
        fi
    done
}

container_install_trap
container_boot "lc-readme-$$" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
c_exec mkdir -p /tmp/readme
printf '[Unit]\nDescription=nginx stand-in for the README examples\n[Service]\nExecStart=/usr/bin/sleep infinity\n' |
    c_exec_stdin tee /etc/systemd/system/nginx.service >/dev/null
c_exec systemctl daemon-reload
install_or_exit
run_test "the marked shell examples of README.md and docs/lifecyclectl.md run as they stand, in order" test_examples
container_poweroff
if ((_tests_failed == 0)); then rm -rf "$work"; else echo "console log kept in $work"; fi
finish_tests
