#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Usage: scripts/fuzz.sh [SECONDS]  (default 60)
# Builds the libFuzzer targets (build-asan/, clang, ASan + UBSan) and runs each for SECONDS with
# the seed corpus and the JSON dictionary. New inputs go to build-asan/corpus/<target>/; a crash
# is written to build-asan/crashes/<target>/ and fails the script: copy it to
# tests/data/regressions/ with the fix, so that it is replayed by every test run after.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
bash scripts/setup-debian.sh > /dev/null
mkdir -p build-asan
CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Sanitize -DELASTOKIN_SANITIZE=ON \
  -DELASTOKIN_FUZZ=ON -DELASTOKIN_NATIVE=OFF -DELASTOKIN_BUILD_UI=OFF -DELASTOKIN_FMU=OFF -DELASTOKIN_PYTHON=OFF > build-asan/build.log
cmake --build build-asan -j"$(nproc)" --target fuzz_loader fuzz_run fuzz_study fuzz_property fuzz_identity fuzz_tyre fuzz_sid >> build-asan/build.log
status=0
for target in fuzz_loader fuzz_run fuzz_study fuzz_property fuzz_identity fuzz_tyre fuzz_sid; do
  corpus=build-asan/corpus/$target crashes=build-asan/crashes/$target
  mkdir -p "$corpus" "$crashes"
  dict=tests/fuzz/json.dict
  if [ "$target" = fuzz_study ]; then
    cp -n tests/data/studies/*.study.json projects/studies/*.json tests/data/bad_input/*.study.json \
       "$corpus"/ 2>/dev/null || true
  elif [ "$target" = fuzz_identity ]; then
    cp -n tests/fuzz/identity/* "$corpus"/ 2>/dev/null || true
    dict=tests/fuzz/cells.dict
  elif [ "$target" = fuzz_property ]; then
    cp -n tests/data/adams/* "$corpus"/ 2>/dev/null || true
    dict=tests/fuzz/teim_orbit.dict
  elif [ "$target" = fuzz_sid ]; then
    cp -n tests/data/sid/* "$corpus"/ 2>/dev/null || true
    dict=tests/fuzz/sid.dict
  elif [ "$target" = fuzz_tyre ]; then
    cp -n tests/data/tyres/*.tir "$corpus"/ 2>/dev/null || true
    dict=tests/fuzz/teim_orbit.dict
  else
    cp -n tests/fuzz/corpus/* tests/data/minimal_valid.json tests/data/bad_input/*.json \
       projects/quarter_double_wishbone.json tests/data/regressions/* "$corpus"/ 2>/dev/null || true
  fi
  echo "== $target: $seconds s"
  if ! ASAN_OPTIONS=detect_leaks=1 build-asan/tests/fuzz/$target "$corpus" -dict="$dict" \
        -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=131072 -print_final_stats=1 \
        -artifact_prefix="$crashes/" > "build-asan/$target.log" 2>&1; then
    status=1
    echo "$target FOUND A CRASH: see build-asan/$target.log and $crashes/"
    tail -n 40 "build-asan/$target.log"
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build-asan/$target.log" | sed "s/^/  /"
  echo "  crashes: $(find "$crashes" -type f | wc -l), corpus: $(find "$corpus" -type f | wc -l) inputs"
done
exit $status
