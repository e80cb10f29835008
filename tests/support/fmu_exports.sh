#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The FMU's loader (elastokin.so) exports the same FMI functions as every engine build beside it
# (elastokin-<isa>.so), and nothing else: a function declared in fmu/fmi3_api.h or fmi2_api.h but
# missing from fmu/fmi_functions.inc, or the other way round, fails here.
# Usage: fmu_exports.sh LOADER FOLDER
set -eu -o pipefail
loader=$1 folder=$2
exports() { nm -D --defined-only "$1" | awk '{print $3}' | sort; }
want=$(exports "$loader")
[ "$(echo "$want" | grep -c '^fmi[23]')" -ge 100 ] || { echo "the loader exports only: $want"; exit 1; }
echo "$want" | grep -v '^fmi[23]' && { echo "the loader exports more than FMI functions"; exit 1; }
n=0
for build in "$folder"/elastokin-*.so; do
  if ! diff <(echo "$want") <(exports "$build"); then
    echo "$(basename "$build") and the loader export different functions ('<': the loader only)"
    exit 1
  fi
  n=$((n + 1))
done
[ $n -ge 1 ] || { echo "no engine builds in $folder"; exit 1; }
echo "the loader and $n engine builds export the same $(echo "$want" | wc -l) FMI functions"
