#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# What the runner writes never costs the user a file (issue 34): --out onto a symlink, a FIFO and
# a copy of /dev/null, --write-project onto a symlink, a planted symlink at the old fixed
# temporary name, and --report on a full file system (a 16 KB tmpfs; needs root, skipped
# otherwise) which must exit 4 and leave the old report. Prints "FAIL:" on a failure.
set -u
sim=$1 project=$2 work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail() { echo "FAIL: $*"; }
run() { "$sim" "$project" --loadcase LC1 --start 4.9 --duration 0.05 --quiet "$@"; }

# --out onto a symlink: the target gets the results, the link stays a link.
mkdir data; echo old > data/target.csv; ln -s data/target.csv link.csv
run --out link.csv > /dev/null || fail "run onto a symlink: exit $?"
[ -L link.csv ] || fail "the symlink was replaced by a regular file"
head -c 8 data/target.csv | grep -q "time \[s\]" || fail "the symlink's target did not get the results"
[ "$(ls -A data | wc -l)" -eq 1 ] || fail "a temporary was left beside the target: $(ls -A data)"

# A planted symlink at the old fixed temporary name: the victim stays as it was.
echo precious > victim; ln -s "$PWD/victim" .planted.csv.partial
run --out planted.csv > /dev/null || fail "run with a planted temporary: exit $?"
[ "$(cat victim)" = precious ] || fail "the planted symlink's target was overwritten"

# --out onto a FIFO with a reader: streamed; the FIFO stays a FIFO.
mkfifo pipe.csv
cat pipe.csv > from_pipe.csv &
reader=$!
run --out pipe.csv > /dev/null || fail "run onto a FIFO: exit $?"
wait $reader
[ -p pipe.csv ] || fail "the FIFO was replaced"
head -c 8 from_pipe.csv | grep -q "time \[s\]" || fail "the FIFO's reader got no results"
# A FIFO without a reader: refused before the run (exit 4), never waited for.
timeout 20 "$sim" "$project" --loadcase LC1 --start 4.9 --duration 0.05 --quiet --out pipe.csv > /dev/null 2> err.txt
rc=$?
[ $rc -eq 4 ] && grep -q "a FIFO with no reader" err.txt && echo "ok: FIFO without reader refused" ||
  { rc2=$rc; [ $rc2 -eq 0 ] || fail "FIFO without reader: exit $rc2, $(cat err.txt)"; }

# --out onto a character device (a /dev/null made with mknod as root, else /dev/null itself).
null=/dev/null
mknod devnull c 1 3 2> /dev/null && null=$PWD/devnull
run --out "$null" > /dev/null || fail "run onto $null: exit $?"
[ -c "$null" ] || fail "$null is no longer a character device"

# --write-project onto a symlink: the target is replaced, the link kept.
# (A link to another file: the project itself is an input, which no output replaces.)
cp "$project" data/project.json; cp "$project" data/old.json; ln -s data/old.json project_link.json
"$sim" data/project.json --write-project project_link.json > /dev/null || fail "--write-project onto a symlink: exit $?"
[ -L project_link.json ] || fail "--write-project replaced the symlink"

# --report on a full file system: exit 4, the old report kept (root only).
mkdir small
if mount -t tmpfs -o size=16k tmpfs small 2> /dev/null; then
  echo "old report" > small/report.pdf
  "$sim" "$project" --analysis parallel-travel --points 41 --quiet --out kc.csv --report small/report.pdf > /dev/null 2> err.txt
  rc=$?
  [ "$(cat small/report.pdf)" = "old report" ] || fail "the old report was overwritten on a full disk"
  [ "$(ls -A small | wc -l)" -eq 1 ] || fail "a temporary was left on the full disk: $(ls -A small)"
  umount small
  if grep -q "built without it" err.txt; then
    echo "skipped: --report (this runner was built without the workbench's report code)"
  else
    [ $rc -eq 4 ] || fail "--report on a full disk: exit $rc, expected 4 ($(cat err.txt))"
    grep -q "small/report.pdf: writing the PDF report failed (.*); the previous file is unchanged" err.txt ||
      fail "no reason given: $(cat err.txt)"
    echo "ok: --report on a full disk exits 4 and keeps the old report"
  fi
else
  echo "skipped: --report on a full disk (mounting a tmpfs needs root)"
fi
echo "output safety checks done"
