#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Runs inside the benchmark container (Benchmarks/container/run.sh). Asks systemd for COUNT transient units named
# PREFIX-0 … PREFIX-(COUNT-1), each running /bin/true, from PARALLEL clients at once (`systemd-run --no-block`, so a
# client does not wait for its unit). Returns when every request has been sent; the units may still be running.
# Usage: churn.sh PREFIX COUNT PARALLEL
set -euo pipefail
prefix=$1 count=$2 parallel=$3

for ((p = 0; p < parallel; p++)); do
    (
        for ((i = p; i < count; i += parallel)); do
            systemd-run --no-block --quiet --collect --unit="$prefix-$i" /bin/true
        done
    ) &
done
wait
