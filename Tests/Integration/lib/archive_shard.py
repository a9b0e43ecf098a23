#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes an archive shard for faults.sh's archive tests, from one unit's state file on standard input.

Usage: archive_shard.py UNIT EXPIRED RECENT < units/UNIT.json > shard
       archive_shard.py --same-shard UNIT COUNT PREFIX < units/UNIT.json > shard
Prints, on standard error, the shard's file name (the 32-bit FNV-1a hash of UNIT's name, modulo 256, as two hex digits
and .jsonl, as lifecycled's UnitArchive names it). Writes EXPIRED records of units gone-N.service last active 400 days
ago and RECENT records of units kept-N.service active now, one compact JSON record per line (the archive's form).
With --same-shard, writes COUNT records, active now, of units PREFIX-N.service whose names fall in UNIT's shard (so
that lifecycled looks for them there), and prints their names on standard error after the shard's.
"""
import copy
import json
import sys
import time


def shard_name(unit):
    value = 2166136261
    for byte in unit.encode():
        value = ((value ^ byte) * 16777619) & 0xFFFFFFFF
    return "%02x.jsonl" % (value % 256)


def record(base, unit, at):
    made = copy.deepcopy(base)
    made["unit"] = unit
    made["pending_dispatches"] = []
    made.pop("last_failure", None)
    for key in ("timestamp_first_launch", "timestamp_last_launch", "timestamp_last_sleep", "timestamp_last_wake"):
        if key in made["state"]:
            made["state"][key] = at
    made["state"]["timestamp_last_sleep"] = at
    return json.dumps(made, sort_keys=True, separators=(",", ":"))


def same_shard(unit, count, prefix):
    base = json.load(sys.stdin)
    now = int(time.time() * 1000)
    names = []
    index = 0
    while len(names) < count:
        name = "%s-%d.service" % (prefix, index)
        if shard_name(name) == shard_name(unit):
            names.append(name)
        index += 1
    sys.stdout.write("".join(record(base, name, now) + "\n" for name in names))
    sys.stderr.write("\n".join([shard_name(unit)] + names) + "\n")


def main():
    if sys.argv[1] == "--same-shard":
        same_shard(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        return
    unit, expired, recent = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    base = json.load(sys.stdin)
    now = int(time.time() * 1000)
    lines = [record(base, "gone-%d.service" % index, now - 400 * 86_400_000) for index in range(expired)]
    lines += [record(base, "kept-%d.service" % index, now) for index in range(recent)]
    sys.stdout.write("\n".join(lines) + "\n")
    sys.stderr.write(shard_name(unit) + "\n")


if __name__ == "__main__":
    main()
