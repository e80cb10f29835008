#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A long run interrupted by SIGINT: exit code 130, the results so far written under their name
# (header and at least the first sample), no temporary file left behind.
set -u
sim=$1 project=$2 out=$3
rm -f "$out"
"$sim" "$project" --loadcase LC1 --duration 1000 --quiet --out "$out" 2> "$out.stderr" &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
cat "$out.stderr"
[ "$rc" -eq 130 ] || { echo "exit code $rc, expected 130"; exit 1; }
grep -q "interrupted by SIGINT at t = .*results up to then were written" "$out.stderr" || { echo "no message"; exit 1; }
[ "$(head -c 8 "$out")" = "time [s]" ] || { echo "no results file"; exit 1; }
[ "$(wc -l < "$out")" -ge 2 ] || { echo "no samples"; exit 1; }
dir=$(dirname "$out")
[ ! -e "$dir/.$(basename "$out").partial" ] || { echo "temporary file left behind"; exit 1; }
echo "interrupted run wrote $(($(wc -l < "$out") - 1)) samples"
