#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The first SIGINT / SIGTERM stops an analysis (issue 34): a 100,000-point frequency response and a
# 100,000-point K&C sweep end with 130 / 143, say how far they got, and the CSV holds exactly the
# points done. The time from the signal to the exit is printed (not asserted: the machine may be
# loaded). Prints "FAIL:" on a failure.
set -u
sim=$1 project=$2 work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail() { echo "FAIL: $*"; }

interrupt() {  # signal name, expected exit, what, then the runner's arguments
  local sig=$1 expect=$2 what=$3; shift 3
  "$sim" "$project" --quiet "$@" > out.txt 2> err.txt &
  local pid=$!
  sleep 1.5
  local t0; t0=$(date +%s%N)
  kill -"$sig" "$pid"
  wait "$pid"
  local rc=$? t1; t1=$(date +%s%N)
  echo "$what: exit $rc, $(( (t1 - t0) / 1000000 )) ms from SIG$sig to the exit; $(cat err.txt)"
  [ "$rc" -eq "$expect" ] || fail "$what: exit $rc, expected $expect"
}

interrupt INT 130 "frequency response" --analysis frequency-response --wheel 1 --load fz-contact --from 0.1 \
  --to 1000 --points 100000 --out frf.csv
done=$(sed -n 's/.*after \([0-9]*\) of 100000 frequencies.*/\1/p' err.txt)
[ -n "$done" ] || fail "frequency response: no 'after N of 100000 frequencies' message"
[ "$(($(wc -l < frf.csv) - 1))" = "${done:-x}" ] || fail "frequency response: the CSV has $(($(wc -l < frf.csv) - 1)) rows, not $done"
[ "${done:-100000}" -lt 100000 ] || fail "frequency response: ended before the signal"

interrupt TERM 143 "K&C sweep" --analysis parallel-travel --points 100000 --out kc.csv
done=$(sed -n 's/.*after \([0-9]*\) of 100000 points.*/\1/p' err.txt)
[ -n "$done" ] || fail "K&C sweep: no 'after N of 100000 points' message"
[ "$(($(wc -l < kc.csv) - 1))" = "${done:-x}" ] || fail "K&C sweep: the CSV has $(($(wc -l < kc.csv) - 1)) rows, not $done"
echo "analysis signal checks done"
