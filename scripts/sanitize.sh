#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The sanitizer configuration: clang with AddressSanitizer and UndefinedBehaviorSanitizer, a
# portable instruction set (no -march=native, like any build for valgrind: docs/robustness.md), no
# workbench, no MPI (Open MPI's own allocations would be reported as leaks; the study's MPI
# ranks are tested in the normal build), and no threads (-DELASTOKIN_THREADS=OFF: engine/parallel
# left out, every run on one thread, --threads N > 1 refused), so that the layer above the
# integrators stays optional (engine/README.md) without a build of its own; the threads are tested
# in the normal build. Builds into build-asan/ (shared with scripts/fuzz.sh) and runs the engine,
# CLI and fuzz-regression tests there.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
mkdir -p build-asan
CC=clang CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Sanitize -DELASTOKIN_SANITIZE=ON \
  -DELASTOKIN_FUZZ=ON -DELASTOKIN_NATIVE=OFF -DELASTOKIN_THREADS=OFF -DELASTOKIN_BUILD_UI=OFF -DELASTOKIN_MPI=OFF -DELASTOKIN_FMU=OFF -DELASTOKIN_PYTHON=OFF > build-asan/build.log
cmake --build build-asan -j"$(nproc)" >> build-asan/build.log
cd build-asan
# Leaks are errors too; a sanitizer report fails the test that produced it. The "slow" tests
# (the shipped axles against CVODE over seconds: over ten minutes here; the equilibrium's twelve
# dynamic settles: four) are left to the normal build; the shipped models still run here through
# the CLI tests and the fuzz seeds, the equilibrium through tst_equilibrium_stiffest.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --output-on-failure -j"$(nproc)" --timeout 1200 -LE slow
