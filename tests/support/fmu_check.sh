#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The exported FMUs in the reference importer fmusim (docs/fmi.md), which validates each model
# description against the FMI schema: the double wishbone (LC1, 6 s), the full vehicle (random
# road, 0.5 s), FMI 3 and 2, and the full vehicle on tyres (step steer, 2.5 s, FMI 3) reproduce elastokin-sim to round-off with no input file (the load
# case built in) and, from an input file of the same signals, elastokin-sim --hold-inputs;
# communication intervals of 1, 5 and 10 ms give the same results; points between the internal
# steps (a stop time of 5.0105 s, intervals of 0.3 and 2.5 ms, an input jump at 12.5 ms) are no
# worse against a fine run than whole steps; a missing input file, an unknown start value and a
# NaN input are errors with a message, not crashes; a parameter set to its own value changes
# nothing.
# Usage: fmu_check.sh ELASTOKIN_SIM FMUSIM SOURCE_DIR WORK_DIR. Prints "FAIL:" on a failure.
set -u -o pipefail
sim=$1 fmusim=$2 src=$3 work=$4
[ -x "$fmusim" ] || { echo "SKIP: fmusim is not built (fmi_fmusim_build)"; exit 77; }
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
compare="python3 $src/tests/support/compare_csv.py"
fail() { echo "FAIL: $*"; }

check() {  # name project loadcase fmi stop
  local name=$1 project=$2 lc=$3 fmi=$4 stop=$5
  "$sim" "$project" --export-fmu "$name.fmu" --fmi "$fmi" --loadcase "$lc" || { fail "$name: export"; return; }
  "$fmusim" --interface-type cs --stop-time "$stop" --output-interval 0.001 --output-file "$name.csv" "$name.fmu" \
    > "$name.log" 2>&1 || { cat "$name.log"; fail "$name: fmusim"; return; }
  "$sim" "$project" --loadcase "$lc" --duration "$stop" --quiet --out "$name.runner.csv" > /dev/null
  echo "== $name (FMI $fmi, $lc, no input file) against elastokin-sim:"
  $compare "$name.runner.csv" "$name.csv" --tolerance 1e-10 | tail -n 1 || fail "$name: results differ"
  "$sim" "$project" --loadcase "$lc" --duration "$stop" --write-inputs "$name.inputs.csv" > /dev/null
  "$fmusim" --interface-type cs --stop-time "$stop" --output-interval 0.001 --input-file "$name.inputs.csv" \
    --output-file "$name.input.csv" "$name.fmu" > "$name.log" 2>&1 || { cat "$name.log"; fail "$name: fmusim with inputs"; return; }
  "$sim" "$project" --loadcase "$lc" --duration "$stop" --hold-inputs --quiet --out "$name.held.csv" > /dev/null
  echo "== $name (FMI $fmi, $lc, input file) against elastokin-sim --hold-inputs:"
  $compare "$name.held.csv" "$name.input.csv" --tolerance 1e-10 | tail -n 1 || fail "$name: results with inputs differ"
}

check dw3 "$src/projects/double_wishbone.json" LC1 3 6
check dw2 "$src/projects/double_wishbone.json" LC1 2 6
check fv3 "$src/projects/full_vehicle.json" "random road" 3 0.5
check fv2 "$src/projects/full_vehicle.json" "random road" 2 0.5
# The full vehicle on Magic Formula tyres (the .tir files travel in the FMU), steered: the
# steering-wheel angle's step from an input file, as a driving simulator would set it.
check fvt3 "$src/projects/full_vehicle_tyres.json" "step steer" 3 2.5

# The portable build (x86-64-v3) agrees as well, whatever this CPU would pick.
ELASTOKIN_FMU_ISA=x86-64-v3 "$fmusim" --interface-type cs --stop-time 6 --output-interval 0.001 --output-file dw3.v3.csv \
  dw3.fmu > dw3.v3.log 2>&1 || { cat dw3.v3.log; fail "dw3: fmusim with the x86-64-v3 build"; }
echo "== dw3, engine built for x86-64-v3, against elastokin-sim:"
$compare dw3.runner.csv dw3.v3.csv --tolerance 1e-10 | tail -n 1 || fail "dw3: the x86-64-v3 build's results differ"

# fmusim does validate: a model description the schema does not allow is refused.
python3 - dw3.fmu invalid.fmu <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as a, zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as b:
    for item in a.infolist():
        data = a.read(item)
        if item.filename == "modelDescription.xml":
            data = data.replace(b"<ModelVariables>", b"<ModelVariables>\n    <NoSuchElement/>")
        b.writestr(item, data)
PY
"$fmusim" --interface-type cs --stop-time 0.01 invalid.fmu > invalid.log 2>&1 && fail "fmusim accepted an invalid model description"
grep -q "NoSuchElement" invalid.log || fail "fmusim's schema message is missing ($(head -c 300 invalid.log))"
echo "an invalid model description is refused: $(grep -m1 NoSuchElement invalid.log)"

# Communication intervals of 5 and 10 ms: the same results at the common times, bit for bit.
for h in 0.005 0.01; do
  "$fmusim" --interface-type cs --stop-time 6 --output-interval "$h" --output-file "dw3.$h.csv" dw3.fmu > /dev/null 2>&1 ||
    fail "fmusim at $h s"
  echo "== communication interval $h s against 0.001 s:"
  $compare dw3.csv "dw3.$h.csv" --tolerance 0 | tail -n 1 || fail "interval $h s differs"
done

# Communication points between the internal steps (a shorter step of the same method there):
# a stop time of 5.0105 s (past the step in Fx at 5 s), intervals of 0.3 and 2.5 ms, and an input
# file whose rows jump at 12.5 ms.
# Where the points lie on the grid the results are the whole steps', to round-off; elsewhere no
# worse against a run at dt = 0.1 ms than the whole steps themselves.
"$fmusim" --interface-type cs --stop-time 5.0105 --output-interval 0.001 --output-file dw3.stop.csv dw3.fmu \
  > dw3.stop.log 2>&1 || { cat dw3.stop.log; fail "fmusim with the stop time 5.0105 s"; }
grep -q '^5.0105,' dw3.stop.csv || fail "no output at the stop time 5.0105 s ($(tail -n 1 dw3.stop.csv | head -c 80))"
echo "== stop time 5.0105 s against elastokin-sim on the grid:"
$compare dw3.runner.csv dw3.stop.csv --tolerance 1e-10 | tail -n 1 || fail "stop time 5.0105 s: results differ"
"$sim" "$src/projects/double_wishbone.json" --loadcase LC1 --duration 6 --dt 0.0001 --sample-rate 1000 --quiet \
  --out dw3.fine.csv > /dev/null || fail "elastokin-sim at dt = 0.1 ms"
for h in 0.0003 0.0025; do
  "$fmusim" --interface-type cs --stop-time 6 --output-interval "$h" --output-file "dw3.$h.csv" dw3.fmu > "dw3.$h.log" 2>&1 ||
    { cat "dw3.$h.log"; fail "fmusim at $h s"; }
  echo "== communication interval $h s against dt = 0.1 ms, no worse than whole steps:"
  $compare dw3.fine.csv "dw3.$h.csv" --within dw3.runner.csv --factor 1.5 --tolerance 1e-12 | tail -n 2 ||
    fail "interval $h s: worse than whole steps"
done
# The jump at 12.5 ms: a project whose Fx steps there is the reference (held over 0.1 ms steps),
# the same project on the 1 ms grid (the jump felt from 13 ms) the whole steps' error.
python3 - "$src/projects/double_wishbone.json" jump.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
for s in p["load cases"][0]["signals"]:
    if s["type"] == "step":
        s["time [s]"] = 0.0125
p["load cases"][0]["duration [s]"] = 0.1
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
"$sim" jump.json --loadcase LC1 --duration 0.05 --write-inputs jump.grid.csv > /dev/null || fail "jump: inputs"
python3 - jump.grid.csv jump.inputs.csv <<'PY'
import sys
rows = open(sys.argv[1]).read().splitlines()
out = [rows[0]]
for r in rows[1:]:
    t = float(r.split(",")[0])
    if abs(t - 0.013) < 1e-12:  # the jump at 12.5 ms: two rows at that time, before and after
        before = out[-1].split(",")
        after = r.split(",")
        out += [",".join(["0.0125"] + before[1:]), ",".join(["0.0125"] + after[1:])]
    out.append(r)
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
"$sim" jump.json --export-fmu jump.fmu --fmi 3 --loadcase LC1 > /dev/null || fail "jump: export"
"$fmusim" --interface-type cs --stop-time 0.05 --output-interval 0.001 --input-file jump.inputs.csv \
  --output-file jump.fmu.csv jump.fmu > jump.log 2>&1 || { cat jump.log; fail "fmusim with an input jump at 12.5 ms"; }
"$sim" jump.json --loadcase LC1 --duration 0.05 --dt 0.0001 --sample-rate 1000 --hold-inputs --quiet --out jump.fine.csv \
  > /dev/null || fail "jump: fine run"
"$sim" jump.json --loadcase LC1 --duration 0.05 --hold-inputs --quiet --out jump.grid.out.csv > /dev/null || fail "jump: grid run"
echo "== input jump at 12.5 ms against dt = 0.1 ms, no worse than whole steps:"
$compare jump.fine.csv jump.fmu.csv --within jump.grid.out.csv --factor 1.5 --tolerance 1e-12 | tail -n 2 ||
  fail "jump at 12.5 ms: worse than whole steps"

# A parameter set to its own value changes nothing, bit for bit (a hardpoint: its joint's markers).
"$sim" "$src/projects/double_wishbone.json" --export-fmu hp.fmu --loadcase LC1 --fmu-parameter "hardpoints/16/z [m]" \
  > /dev/null || fail "hardpoint parameter: export"
own=$(python3 -c "import sys, zipfile, re; d = zipfile.ZipFile('hp.fmu').read('modelDescription.xml').decode(); \
print(re.search(r'name=\"hardpoints/16/z \\[m\\]\"[^>]*start=\"([^\"]+)\"', d).group(1))")
"$fmusim" --interface-type cs --stop-time 6 --output-interval 0.001 --start-value "hardpoints/16/z [m]" "$own" \
  --output-file hp.csv hp.fmu > hp.log 2>&1 || { cat hp.log; fail "fmusim with a parameter set"; }
echo "== hardpoint 16 z set to its own value ($own m) against the FMU without:"
$compare dw3.csv hp.csv --tolerance 0 | tail -n 1 || fail "a parameter set to its own value changed the results"

# Bad use: errors with a message, never a crash (fmusim exits 1 on an error status, a signal on a crash).
"$fmusim" --interface-type cs --stop-time 0.01 --input-file missing.csv dw3.fmu > bad1.log 2>&1
rc=$?
[ $rc -ge 1 ] && [ $rc -lt 128 ] || fail "missing input file: exit $rc"
grep -qi "input file" bad1.log || fail "missing input file: no message ($(cat bad1.log))"
"$fmusim" --interface-type cs --stop-time 0.01 --start-value "no such variable" 1 dw3.fmu > bad2.log 2>&1
rc=$?
[ $rc -ge 1 ] && [ $rc -lt 128 ] || fail "unknown start value: exit $rc"
printf 'time,Fx wheel left\n0,0\n0.005,nan\n0.01,nan\n' > nan.csv
"$fmusim" --interface-type cs --stop-time 0.01 --output-interval 0.001 --input-file nan.csv --log-level error dw3.fmu > bad3.log 2>&1
rc=$?
[ $rc -ge 1 ] && [ $rc -lt 128 ] || fail "NaN input: exit $rc ($(cat bad3.log))"
grep -q "values must be finite numbers" bad3.log || fail "NaN input: the FMU's message is not shown ($(cat bad3.log))"
echo "bad use: $(head -c 200 bad1.log | tr '\n' ' ') | $(head -c 200 bad3.log | tr '\n' ' ')"
echo "fmusim checks done"
