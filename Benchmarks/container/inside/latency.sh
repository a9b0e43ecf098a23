#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Runs inside the benchmark container (Benchmarks/container/run.sh). Starts and stops UNIT CYCLES times and prints,
# per cycle, the run's InvocationID and systemd's own monotonic timestamps (µs) of its two transitions:
#   INVOCATION_ID INACTIVE_EXIT_US INACTIVE_ENTER_US
# The unit stays loaded (it is enabled), so its timestamps can be read after each transition. PAUSE (seconds, may be
# 0) separates each transition from the next command, so that lifecycled handles one transition at a time.
# Usage: latency.sh UNIT CYCLES PAUSE
set -euo pipefail
unit=$1 cycles=$2 pause=$3

show() { systemctl show -p "$1" --value "$unit"; }

for ((i = 0; i < cycles; i++)); do
    systemctl start "$unit"
    [[ $pause == 0 ]] || sleep "$pause"
    invocation=$(show InvocationID)
    began=$(show InactiveExitTimestampMonotonic)
    systemctl stop "$unit"
    [[ $pause == 0 ]] || sleep "$pause"
    ended=$(show InactiveEnterTimestampMonotonic)
    printf '%s %s %s\n' "$invocation" "$began" "$ended"
done
