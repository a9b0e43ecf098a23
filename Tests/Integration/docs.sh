#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The man pages and the journal message catalog. On the host: each page renders without a warning and documents
# exactly the options of `--help` (lifecyclectl: each command's own options in its own subsection). In a throw-away
# container with writable overlays: scripts/install.sh with PREFIX=/usr/local puts the pages where man finds them and
# the catalog where journalctl reads it, so that `journalctl -x` explains every kind of dispatch of a real daemon;
# scripts/uninstall.sh takes both away again. On the host too: every relative link of README.md and docs/*.md names
# a file that exists, and a heading of it when it names one. Needs root, systemd-container, jq, groff, man-db.
# Usage: Tests/Integration/docs.sh BUILD_DIR
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

suite_preflight docs.sh "$@"
for tool in groff man; do
    command -v "$tool" >/dev/null || { echo "docs.sh: $tool is missing (apt-get install groff-base man-db)" >&2; exit 1; }
done

readonly WAIT=15 UNITS_DIR=/var/lib/lifecycled/units
readonly ID_TRACKING=081be4c15c3f4ca9acd5f51507046ad0
readonly DROPIN=/etc/lifecycled/lifecycled.json.d/50-docs-test.json
pages=("$repo/man/lifecycled.8" "$repo/man/lifecyclectl.1" "$repo/man/lifecycled.json.5")

# The option names of one `--help`, one a line: the first column of its OPTIONS section only, so that an option
# merely named in a description does not count.
help_options() {
    "$@" --help | awk '/^[A-Z][A-Z ]*:$/ { on = ($0 == "OPTIONS:"); next } on && /^  -/' |
        while IFS= read -r line; do
            # "-v, --verbose", "--config <file>": a description may follow after a single space.
            [[ ${line:2} =~ ^((--?[A-Za-z][A-Za-z0-9-]*)( <[^>]*>)?(, )?)+ ]] && printf '%s\n' "${BASH_REMATCH[0]}"
        done | grep -oE -- '--?[A-Za-z][A-Za-z0-9-]*' | sort -u
}

# The lines of a man page's source from the .SH or .SS heading that contains TEXT up to the next heading.
page_part() {
    HEADING=$2 awk '/^\.S[SH]/ { on = index($0, ENVIRON["HEADING"]) > 0 } on' "$1"
}

# The options a part of a page defines: the tags of its .TP items, roff's \- read as -.
page_options() {
    awk 'previous ~ /^\.TP/ { print } { previous = $0 }' | sed 's/\\-/-/g' |
        grep -oE -- '(^|[^A-Za-z0-9-])--?[A-Za-z][A-Za-z0-9-]*' | sed 's/^[^-]*//' | sort -u
}

# assert_same_options WHAT DOCUMENTED ACCEPTED: every option accepted is documented, and nothing else is.
assert_same_options() {
    local missing extra
    missing=$(comm -13 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | paste -sd ' ')
    extra=$(comm -23 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | paste -sd ' ')
    [[ -z $missing ]] || fail "$1: not documented: $missing"
    [[ -z $extra ]] || fail "$1: documented, but not in --help: $extra"
}

# The anchors GitHub gives the headings of a Markdown file, one a line: lower case, spaces as hyphens, punctuation
# left out; a repeated heading gets -1, -2, ...
heading_anchors() {
    LC_ALL=C awk '
        /^```/ { code = !code; next }
        !code && /^#+ / {
            h = $0; sub(/^#+ +/, "", h); h = tolower(h)
            gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
            if (seen[h]++) print h "-" (seen[h] - 1); else print h
        }' "$1"
}

# The relative links of a Markdown file, one a line (PATH, PATH#ANCHOR or #ANCHOR): outside code blocks and code
# spans, not URLs.
relative_links() {
    awk '/^```/ { code = !code; next } !code' "$1" | sed 's/`[^`]*`//g' | grep -oE '\]\([^)[:space:]]+\)' |
        sed -E 's/^\]\(//; s/\)$//' | grep -vE '^[a-z][a-z0-9+.-]*:' || true
}

test_links_resolve() {
    local doc link path anchor target count=0
    local -a broken=()
    for doc in "$repo/README.md" "$repo"/docs/*.md; do
        while IFS= read -r link; do
            count=$((count + 1))
            path=${link%%#*}
            anchor=""
            [[ $link != *#* ]] || anchor=${link#*#}
            target=$doc
            [[ -z $path ]] || target=$(dirname "$doc")/$path
            if [[ ! -e $target ]]; then
                broken+=("${doc#"$repo"/}: $link: no such file")
            elif [[ -n $anchor && $target == *.md ]] && ! heading_anchors "$target" | grep -qxF -- "$anchor"; then
                broken+=("${doc#"$repo"/}: $link: no such heading in ${target#"$repo"/}")
            fi
        done < <(relative_links "$doc")
    done
    ((count > 20)) || fail "found only $count relative links in README.md and docs/*.md"
    ((${#broken[@]} == 0)) || fail "broken links:"$'\n'"$(printf '    %s\n' "${broken[@]}")"
}

test_pages_render_cleanly() {
    local page out
    for page in "${pages[@]}"; do
        out=$(groff -man -ww -z "$page" 2>&1)
        assert_eq "" "$out" "groff -man -ww -z ${page##*/}"
        # man-db's own pipeline, as a reader gets it (preprocessors, tbl, the pager's width).
        out=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
        assert_eq "" "$out" "warnings of man -l ${page##*/}"
        if command -v mandoc >/dev/null; then
            out=$(mandoc -Tlint -W warning "$page" 2>&1) || true
            assert_eq "" "$out" "mandoc -Tlint ${page##*/}"
        fi
    done
}

test_lifecycled_page_has_every_option() {
    local accepted documented
    accepted=$(help_options "$build_dir/lifecycled")
    [[ $accepted == *--check-config* ]] || fail "could not read the options of lifecycled --help: '$accepted'"
    documented=$(page_part "$repo/man/lifecycled.8" '.SH OPTIONS' | page_options)
    assert_same_options "lifecycled(8) OPTIONS" "$documented" "$accepted"
}

test_lifecyclectl_page_has_every_option() {
    local commands command accepted documented
    commands=$("$build_dir/lifecyclectl" --help |
        awk '/^[A-Z][A-Z ]*:$/ { on = ($0 == "SUBCOMMANDS:"); next } on && /^  [a-z]/ { sub(/,$/, "", $1); print $1 }')
    [[ $commands == *replay* ]] || fail "could not read the commands of lifecyclectl --help: '$commands'"
    # Every command also takes --version and -h/--help: the page describes those once, under OPTIONS.
    for command in $commands; do
        accepted=$(help_options "$build_dir/lifecyclectl" "$command" | grep -vxE -- '--version|-h|--help' || true)
        documented=$(page_part "$repo/man/lifecyclectl.1" "\\fB$command\\fR" | page_options)
        [[ -n $documented || -z $accepted ]] || fail "lifecyclectl(1) has no subsection for the command $command"
        assert_same_options "lifecyclectl(1) $command" "$documented" "$accepted"
    done
    # The completion option is hidden from --help; the page documents it, so it must work.
    accepted=$({ help_options "$build_dir/lifecyclectl"; echo --generate-completion-script; } | sort -u)
    documented=$(page_part "$repo/man/lifecyclectl.1" '.SH OPTIONS' | page_options)
    assert_same_options "lifecyclectl(1) OPTIONS" "$documented" "$accepted"
    "$build_dir/lifecyclectl" --generate-completion-script bash >/dev/null
}

test_man_finds_the_installed_pages() {
    local section name out
    for section_name in 8:lifecycled 1:lifecyclectl 5:lifecycled.json; do
        section=${section_name%%:*}
        name=${section_name#*:}
        # Debian's /usr/local/man is a link to /usr/local/share/man, and man may name the page through it.
        assert_eq "/usr/local/share/man/man$section/$name.$section" \
            "$(c_exec readlink -f "$(c_exec man -w "$section" "$name")")" "man -w $section $name"
        # tr: justified text has runs of spaces.
        out=$(c_exec env MANWIDTH=80 man "$section" "$name" 2>&1 | tr -s " ")
        assert_contains "$out" "$name - " "man $section $name"
    done
}

test_catalog_lists_every_id() {
    local listed id
    listed=$(c_exec journalctl --list-catalog)
    for id in "$ID_LAUNCH" "$ID_WAKE" "$ID_SLEEP" "$ID_CUSTOM" "$ID_CRASH" "$ID_MISSED" "$ID_TRACKING"; do
        assert_contains "$listed" "$id lifecycled: " "journalctl --list-catalog"
    done
}

# explained ID UNIT: `journalctl -x` of the newest entry with MESSAGE_ID=ID about UNIT (all of them without UNIT).
explained() {
    local -a match=("MESSAGE_ID=$1")
    [[ -z ${2:-} ]] || match+=("LIFECYCLE_UNIT=$2")
    c_exec journalctl --no-pager -x -n 1 "${match[@]}"
}

# assert_explained OUTPUT SUBJECT: the explanation is there with its fields filled in.
assert_explained() {
    assert_contains "$1" "Subject: $2" "journalctl -x"
    assert_contains "$1" "Defined-By: lifecycled" "journalctl -x"
    # A field the entry lacks would show up as its bare name, or as @NAME@ without a value.
    local unfilled='(at|of|result|launch of|event) "?LIFECYCLE_[A-Z_]+'
    if [[ $1 == *@LIFECYCLE_* || $1 =~ $unfilled ]]; then
        fail "journalctl -x left a field unfilled: $1"
    fi
}

test_journalctl_x_explains_each_dispatch() {
    local unit=lc-crash.service
    c_copy "$repo/Tests/Integration/units/$unit" "/etc/systemd/system/$unit"
    c_exec systemctl daemon-reload
    printf '{"watch": ["%s", "lc-marker-*.service"]}\n' "$unit" | c_exec_stdin install -D -m 0644 /dev/stdin "$DROPIN"
    c_exec systemctl reload lifecycled.service
    run_marker lc-marker-reloaded.service # the new configuration is in force once this is tracked

    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 1
    assert_explained "$(explained "$ID_LAUNCH" "$unit")" "$unit launched (lifecycle dispatch #1)"
    c_exec systemctl stop "$unit"
    wait_dispatches "$unit" 2
    assert_explained "$(explained "$ID_SLEEP" "$unit")" "$unit went to sleep (lifecycle dispatch #2)"
    c_exec systemctl start "$unit"
    wait_dispatches "$unit" 3
    assert_explained "$(explained "$ID_WAKE" "$unit")" "$unit woke (lifecycle dispatch #3)"
    c_exec /usr/local/bin/lifecyclectl track "$unit" deployed build=42
    wait_dispatches "$unit" 4
    assert_explained "$(explained "$ID_CUSTOM" "$unit")" \
        "$unit: custom event deployed (lifecycle dispatch #4)"
    # SIGKILL: a crash notice, then Restart=on-failure brings a launch that counts the crash.
    # The main process only: signalling the whole cgroup can fail with EIO in this container (hybrid cgroups).
    c_exec systemctl kill --kill-whom=main -s KILL "$unit"
    wait_dispatches "$unit" 6
    local crash
    crash=$(explained "$ID_CRASH" "$unit")
    assert_explained "$crash" "$unit crashed: signal (lifecycle dispatch #5)"
    assert_contains "$crash" "\"signal\", as systemd reported it" "the crash notice's explanation"
    assert_explained "$(explained "$ID_TRACKING")" "lifecycled is tracking units"
    c_exec systemctl stop "$unit"
}

test_uninstall_takes_pages_and_catalog_away() {
    c_exec /opt/lifecycled-src/scripts/uninstall.sh >/dev/null
    local path listed
    for path in /usr/local/share/man/man8/lifecycled.8 /usr/local/share/man/man1/lifecyclectl.1 \
        /usr/local/share/man/man5/lifecycled.json.5 /usr/local/lib/systemd/catalog/lifecycled.catalog; do
        assert_status 1 c_exec test -e "$path"
    done
    listed=$(c_exec journalctl --list-catalog)
    [[ $listed != *"$ID_LAUNCH"* ]] || fail "journalctl --list-catalog still lists lifecycled after uninstall.sh"
}

run_test "every relative link of README.md and docs/*.md resolves" test_links_resolve
run_test "the man pages render without warnings" test_pages_render_cleanly
run_test "lifecycled(8) documents exactly the options of lifecycled --help" test_lifecycled_page_has_every_option
run_test "lifecyclectl(1) documents exactly each command's options" test_lifecyclectl_page_has_every_option

work=$(mktemp -d "${TMPDIR:-/tmp}/lifecycled-docs.XXXXXX")
export CONTAINER_LOG_DIR=$work
container_install_trap
overlay_boot "lc-docs-$$" "$build_dir" --bind-ro="$repo:/opt/lifecycled-src" >/dev/null
echo "container lc-docs-$$ booted in $CONTAINER_BOOT_SECONDS s (overlays on /usr, /etc, /var)"

run_test "nothing of lifecycled is there before the install" assert_no_lifecycled
if out=$(c_exec env PREFIX=/usr/local /opt/lifecycled-src/scripts/install.sh /opt/lifecycled-build 2>&1) &&
    c_exec systemctl is-active --quiet lifecycled.service; then
    run_test "man finds the pages install.sh put in /usr/local" test_man_finds_the_installed_pages
    run_test "journalctl --list-catalog lists lifecycled's seven MESSAGE_IDs" test_catalog_lists_every_id
    run_test "journalctl -x explains a launch, sleep, wake, custom event, crash and tracking" \
        test_journalctl_x_explains_each_dispatch
    run_test "uninstall.sh takes the pages and the catalog away" test_uninstall_takes_pages_and_catalog_away
else
    printf 'install.sh with PREFIX=/usr/local failed or lifecycled is not running:\n%s\n' "$out" >&2
    c_exec journalctl --no-pager -u lifecycled.service >&2 || true
    run_test "install.sh with PREFIX=/usr/local" false
fi
container_poweroff

if finish_tests; then
    rm -rf "$work"
else
    echo "console log kept in $work"
    exit 1
fi
