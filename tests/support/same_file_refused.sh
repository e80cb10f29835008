#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# No output is the same file as an input or as another output, by identity (issue 51): the
# runner refuses with exit 2 and a message naming both options, before it reads or writes
# anything, for the same name, a symbolic link, a hard link and a path through "..", and for two
# outputs on one file; the input stays byte for byte as it was. A rig file that is missing or
# beside the sweep is exit 1 with the results file untouched. Prints "FAIL:" on a failure.
set -u
sim=$1 project=$2 rig=$3 property=$4 work=$5
rm -rf "$work"; mkdir -p "$work/sub"; cd "$work" || exit 1
cp "$project" P.json; cp "$rig" rig.csv; cp "$property" part.bus
ln -s P.json link.json; ln P.json hard.json
sum() { cat P.json rig.csv part.bus | md5sum; }
before=$(sum)
fail() { echo "FAIL: $*"; }
refused() {  # refused REGEX ARGS...: exit 2, the message, no file changed, no results written
  local regex=$1; shift
  "$sim" "$@" > out.txt 2> err.txt
  local rc=$?
  if [ $rc -ne 2 ]; then fail "exit $rc for: $* ($(head -c 300 err.txt))"; return; fi
  grep -Fq -- "$regex" err.txt || fail "message for: $* was: $(head -c 300 err.txt)"
  [ "$(sum)" = "$before" ] || fail "an input changed after: $*"
  echo "ok: $*"
}
kc=(--analysis parallel-travel --points 5 --quiet)
refused "--metrics 'P.json' is the same file as the project file 'P.json': an output never replaces an input" \
  P.json "${kc[@]}" --out kc.csv --metrics P.json
refused "--out 'P.json' is the same file as the project file" P.json --loadcase LC1 --duration 0.01 --out P.json
refused "--out 'link.json' is the same file as the project file 'P.json'" P.json --loadcase LC1 --duration 0.01 --out link.json
refused "--out 'hard.json' is the same file as the project file" P.json --loadcase LC1 --duration 0.01 --out hard.json
refused "--out 'sub/../P.json' is the same file as the project file" P.json --loadcase LC1 --duration 0.01 --out sub/../P.json
refused "--metrics 'rig.csv' is the same file as --measured 'rig.csv'" P.json "${kc[@]}" --measured rig.csv --out kc.csv --metrics rig.csv
refused "--write-project 'part.bus' is the same file as --import 'part.bus'" P.json --import part.bus --onto bushing:1 --write-project part.bus
refused "--to 'P.json' is the same file as the project file" P.json --export-property bushing:1 --to P.json
refused "--metrics './same.csv' is the same file as --out 'same.csv': each output needs a file of its own" \
  P.json "${kc[@]}" --out same.csv --metrics ./same.csv
[ ! -e same.csv ] || fail "same.csv was written"
# Distinct files still run; /dev/null twice is not one file.
"$sim" P.json "${kc[@]}" --out /dev/null --metrics /dev/null > /dev/null 2> err.txt || fail "outputs to /dev/null: $(cat err.txt)"
[ "$(sum)" = "$before" ] || fail "an input changed after a run to /dev/null"
# A rig file that is missing, or whose points lie beside the sweep: exit 1 naming the file (no
# usage text), and the results file not touched.
echo before > kept.csv
rig_error() {  # rig_error TEXT ARGS...
  local text=$1; shift
  "$sim" P.json "${kc[@]}" --from -1 --to 1 "$@" --out kept.csv > out.txt 2> err.txt
  local rc=$?
  [ $rc -eq 1 ] || fail "exit $rc for: $* ($(head -c 300 err.txt))"
  grep -Fq -- "$text" err.txt || fail "message for: $* was: $(head -c 300 err.txt)"
  ! grep -q "usage:" err.txt || fail "usage text for a rig file's error: $*"
  [ "$(cat kept.csv)" = before ] || fail "results written before the rig file was read: $*"
  echo "ok: $*"
}
rig_error "missing.csv: cannot open the measured K&C file" --measured missing.csv
printf 'Wheel travel LF (mm),Toe LF (deg)\n500,0.1\n600,0.2\n' > far.csv
rig_error "far.csv, field 'Wheel travel LF (mm)': no measured point lies inside the computed sweep: the file's points run from 500 to 600 mm, the sweep from -1 to 1 mm" \
  --measured far.csv --map "Toe LF=wheel left toe"
echo "done"
