#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Runs inside the benchmark container (Benchmarks/container/run.sh). Starts or stops the instances 1…COUNT of a
# template unit in batches (one systemctl call per batch), and after each batch checks that PID 1 still owns
# org.freedesktop.systemd1 with the same unique name: a burst of starts from one client once pushed PID 1 off the bus
# (docs/guarantees.md, "Reliability"). Prints one line per owner change, then "owner BEFORE AFTER".
# Usage: units.sh start|stop TEMPLATE_PREFIX COUNT BATCH      e.g. units.sh start lc-mem@ 1000 100
set -euo pipefail
verb=$1 prefix=$2 count=$3 batch=$4

# The unique name owning org.freedesktop.systemd1 (busctl prints: s ":1.2"). No awk: with --volatile=yes /etc is
# empty inside, so /etc/alternatives links such as /usr/bin/awk do not resolve.
owner() {
    local reply
    reply=$(busctl --system call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetNameOwner s \
        org.freedesktop.systemd1 2>&1) || true
    reply=${reply##* }
    printf '%s\n' "${reply//\"/}"
}

first=$(owner)
last=$first
for ((i = 1; i <= count; i += batch)); do
    units=()
    for ((j = i; j < i + batch && j <= count; j++)); do
        units+=("$prefix$j.service")
    done
    systemctl "$verb" "${units[@]}"
    now=$(owner)
    if [[ $now != "$last" ]]; then
        printf 'owner-changed after %s of units %d-%d: %s -> %s\n' "$verb" "$i" "$((j - 1))" "$last" "$now"
        last=$now
    fi
done
printf 'owner %s %s\n' "$first" "$(owner)"
