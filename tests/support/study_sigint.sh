#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# A study interrupted by SIGINT: the runs in flight stop between steps and are not written (they run
# again on resume), exit code 130 and a message saying how to resume; running it again completes it without repeating a finished run.
set -u
exe=$1 study=$2 out=$3
rm -f "$out"
"$exe" "$study" --results "$out" --threads 2 --fresh --quiet > "$out.log" 2> "$out.stderr" &
pid=$!
sleep 2
kill -INT "$pid"
wait "$pid"
rc=$?
cat "$out.stderr"
[ "$rc" -eq 130 ] || { echo "FAIL: exit code $rc, expected 130"; exit 1; }
grep -q "interrupted; the finished runs are in .* and running the study again resumes it" "$out.stderr" \
  || { echo "FAIL: no message"; exit 1; }
done=$(($(wc -l < "$out") - 1))
echo "interrupted after $done runs"
[ "$done" -lt 16 ] || { echo "FAIL: the study ended before the signal"; exit 1; }
"$exe" "$study" --results "$out" --threads 2 --quiet > "$out.log2" || { echo "FAIL: resume exit $?"; exit 1; }
total=$(($(wc -l < "$out") - 1))
grep -q "($((total - done)) new, $done from the results file" "$out.log2" || { cat "$out.log2"; echo "FAIL: resume"; exit 1; }
[ "$(cut -d, -f1 "$out" | tail -n +2 | sort -n | uniq -d | wc -l)" -eq 0 ] || { echo "FAIL: a run repeated"; exit 1; }
echo "resumed: $((total - done)) new runs, $total in all, none repeated"
