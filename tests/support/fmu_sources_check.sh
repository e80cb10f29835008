#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Source FMUs (docs/fmi.md, "Source FMUs"), built the way a real-time target builds them: the FMU
# is unpacked, its library compiled from sources/ alone with only the compiler, put in place of
# the shipped binaries, and run in the reference importer fmusim against the binary FMU.
#   - FMI 3 with GCC, the units and include directory read from sources/buildDescription.xml,
#     which validates against the FMI 3 build-description schema (as fmusim embeds it);
#   - FMI 2 with Clang, the units read from modelDescription.xml's <SourceFiles>;
#   - both at -O2 for x86-64-v3 (AVX2, FMA), and GCC for the x86-64 baseline; the library
#     exports the FMI functions only; every header a unit included (-H) lies in the unpacked
#     sources/ or is the compiler's own C/C++ runtime;
#   - the double wishbone (LC1, 6 s) and the full vehicle (random road, 0.5 s): GCC's and Clang's
#     builds equal bit for bit, and equal to the binary FMU's x86-64-v3 build to 1e-11 of each
#     channel's range (the baseline build: 1e-9, its narrower SIMD sums in another order).
# Usage: fmu_sources_check.sh ELASTOKIN_SIM FMUSIM SOURCE_DIR WORK_DIR FMI_DIR. Prints "FAIL:" on a
# failure.
set -u -o pipefail
sim=$1 fmusim=$2 src=$3 work=$4 fmi=$5
[ -x "$fmusim" ] || { echo "SKIP: fmusim is not built (fmi_fmusim_build)"; exit 77; }
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail() { echo "FAIL: $*"; }
for c in g++ clang++ xmllint; do command -v $c > /dev/null || { fail "$c is missing (scripts/setup-debian.sh installs it)"; exit 1; }; done
compare="python3 $src/tests/support/compare_csv.py"

# The exports: the binary FMUs and the same with sources.
for fmi_version in 3 2; do
  "$sim" "$src/projects/double_wishbone.json" --export-fmu "dw$fmi_version.fmu" --fmi $fmi_version --loadcase LC1 > /dev/null ||
    fail "dw$fmi_version: export"
  "$sim" "$src/projects/double_wishbone.json" --export-fmu "dw$fmi_version.sources.fmu" --fmi $fmi_version --loadcase LC1 --sources \
    > "dw$fmi_version.export.log" || fail "dw$fmi_version: export with --sources"
  "$sim" "$src/projects/full_vehicle.json" --export-fmu "fv$fmi_version.sources.fmu" --fmi $fmi_version --loadcase "random road" \
    --sources > /dev/null || fail "fv$fmi_version: export with --sources"
done
cat dw3.export.log

# unpack FMU DIR
unpack() { python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"; }
unpack dw3.sources.fmu fmi3
unpack dw2.sources.fmu fmi2

# The build description against the schema fmusim validates with (its embedded copy).
python3 - "$fmi/fmusim/fmi3BuildDescriptionSchema.h" buildDescription.xsd <<'PY'
import re, sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "wb").write(bytes(int(x, 16) for x in re.findall(r"0x([0-9a-fA-F]{2})", text)))
PY
xmllint --noout --schema buildDescription.xsd fmi3/sources/buildDescription.xml 2>&1 | tail -n 1 ||
  fail "buildDescription.xml does not validate"

# The translation units and include directories, as an importer reads them: FMI 3 from the build
# description, FMI 2 from the model description (paths relative to sources/).
python3 - fmi3/sources/buildDescription.xml > fmi3.units <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
for s in root.iter("SourceFileSet"):
    assert s.get("language") == "C++20", s.get("language")
    for f in s.iter("SourceFile"): print("unit", f.get("name"))
    for d in s.iter("IncludeDirectory"): print("include", d.get("name"))
PY
python3 - fmi2/modelDescription.xml > fmi2.units <<'PY'
import sys, xml.etree.ElementTree as ET
for f in ET.parse(sys.argv[1]).getroot().iter("File"): print("unit", f.get("name"))
print("include .")
PY
echo "units: $(grep -c '^unit' fmi3.units) in buildDescription.xml, $(grep -c '^unit' fmi2.units) in FMI 2's <SourceFiles>"
[ "$(grep -c '^unit' fmi3.units)" -gt 20 ] || fail "buildDescription.xml lists too few units"
cmp -s <(grep '^unit' fmi3.units) <(grep '^unit' fmi2.units) || fail "FMI 3 and FMI 2 list different units"

# build NAME SOURCE_DIR COMPILER FLAGS...: compiles SOURCE_DIR/sources into NAME/elastokin.so, two
# units at a time, as listed in SOURCE_DIR.units.
build() {
  local name=$1 dir=$2 cxx=$3 includes nm_out
  shift 3
  includes=$(awk '$1 == "include" { printf " -I%s", $2 }' "$dir.units")
  rm -rf "$name"; mkdir -p "$name/obj"
  local obj; obj=$(realpath "$name/obj")
  awk '$1 == "unit" { print $2 }' "$dir.units" | (cd "$dir/sources" &&
    xargs -P 2 -I{} sh -c "f=\$(echo {} | tr / _); $cxx -std=c++20 -O2 -fPIC -fvisibility=hidden $* $includes -H -c {} -o $obj/\$f.o 2> $obj/\$f.log || { cat $obj/\$f.log; exit 1; }") ||
    { fail "$name: the sources do not compile ($cxx $*)"; return 1; }
  $cxx -shared -o "$name/elastokin.so" "$name"/obj/*.o -Wl,-z,defs || { fail "$name: the library does not link"; return 1; }
  nm_out=$(nm -D --defined-only "$name/elastokin.so")
  grep -q ' T fmi3DoStep$' <<< "$nm_out" || fail "$name: fmi3DoStep is not exported"
  grep -q ' T fmi2DoStep$' <<< "$nm_out" || fail "$name: fmi2DoStep is not exported"
  local others; others=$(awk '$2 == "T" && $3 !~ /^fmi[23]/ { print $3 }' <<< "$nm_out" | head -n 3)
  [ -z "$others" ] || fail "$name: the library exports more than the FMI functions: $others"
  # Every header a unit included (the compiler's -H list) lies in sources/ or belongs to the
  # compiler's C/C++ runtime.
  python3 - "$dir/sources" "$name/obj" <<'PY'
import glob, os, re, sys
root = os.path.realpath(sys.argv[1])
runtime = re.compile(r"^/usr/(include/c\+\+/|lib/(gcc|llvm-\d+)/|include/(x86_64[^/]*|linux|asm[^/]*)/|include/[^/]+\.h$)")
bad, n = set(), set()
for log in glob.glob(os.path.join(sys.argv[2], "*.log")):
    for line in open(log, errors="replace"):
        m = re.match(r"^\.+ (\S.*)$", line.rstrip("\n"))
        if not m:
            continue
        p = os.path.realpath(os.path.join(root, m.group(1)))
        n.add(p)
        if not p.startswith(root + os.sep) and not runtime.search(p):
            bad.add(p)
print(f"{len(n)} headers included; from outside sources/ and the compiler's runtime: {len(bad)}")
for p in sorted(bad)[:10]: print("FAIL: included from outside the archive:", p)
PY
  echo "$name: $(ls "$name"/obj/*.o | wc -l) units compiled by $cxx $* -O2, linked into elastokin.so ($(du -k "$name/elastokin.so" | cut -f1) kB)"
}
# GCC and Clang for the instruction set of the binary FMU's x86-64-v3 build (the same SIMD width,
# hence the same order of Eigen's sums), and GCC for the x86-64 baseline, all with
# -ffp-contract=off as the sources' README gives it.
build gcc fmi3 g++ -march=x86-64-v3 -ffp-contract=off
build clang fmi2 clang++ -march=x86-64-v3 -ffp-contract=off
build portable fmi3 g++ -ffp-contract=off

# with_library FMU LIBRARY OUT: the FMU with its binaries replaced by LIBRARY alone.
with_library() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys, zipfile
src, lib, out = sys.argv[1:]
with zipfile.ZipFile(src) as a, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as b:
    platform = None
    for item in a.infolist():
        if item.filename.startswith("binaries/"):
            platform = item.filename.split("/")[1]
            continue
        b.writestr(item, a.read(item))
    b.write(lib, f"binaries/{platform}/elastokin.so")
PY
}

# run NAME FMU STOP: fmusim's outputs every 1 ms.
run() {
  "$fmusim" --interface-type cs --stop-time "$3" --output-interval 0.001 --output-file "$1.csv" "$2" > "$1.log" 2>&1 ||
    { cat "$1.log"; fail "$1: fmusim"; }
}

# The binary FMU's x86-64-v3 build is the reference (ELASTOKIN_FMU_ISA). The builds for the same
# instruction set differ from it by round-off only: where the binary's build fused a*b+c into one
# rounding (GCC's default for C++, placed by its inlining), about 1e-14 of a value, which on the
# channels of smallest range (scrub radius: 0.1 mm on 39 mm) is 4e-12 of the range; checked
# against 1e-11. The baseline build's SIMD is narrower, so Eigen sums in another order: 1e-9.
for case in "dw3 gcc 6 1e-11" "fv3 gcc 0.5 1e-11" "dw2 clang 6 1e-11" "fv2 clang 0.5 1e-11" "dw3 portable 6 1e-9"; do
  set -- $case
  name=$1 build=$2 stop=$3 tolerance=$4
  with_library "$name.sources.fmu" "$build/elastokin.so" "$name.$build.fmu" || fail "$name: repacking"
  [ -f "$name.binary.csv" ] || ELASTOKIN_FMU_ISA=x86-64-v3 run "$name.binary" "$name.sources.fmu" "$stop"
  run "$name.$build" "$name.$build.fmu" "$stop"
  echo "== $name (FMI ${name:2:1}), library built from the sources ($build), against the shipped x86-64-v3 binary:"
  $compare "$name.binary.csv" "$name.$build.csv" --tolerance "$tolerance" | tail -n 1 ||
    fail "$name: the $build build's results differ"
done

# Without contraction the two compilers give the same results, bit for bit.
for model in dw fv; do
  echo "== $model: the GCC build (FMI 3) against the Clang build (FMI 2):"
  $compare "${model}3.gcc.csv" "${model}2.clang.csv" --tolerance 0 | tail -n 1 || fail "$model: GCC's and Clang's builds differ"
done

# A source FMU carries the same project as the binary FMU.
unpack dw3.fmu binary3
cmp -s binary3/resources/project.json fmi3/resources/project.json || fail "the source FMU's project differs"
exit 0
